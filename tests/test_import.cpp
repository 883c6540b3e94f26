// `failsim import megatron`: the scenario of Megatron-LM command lines worked by hand (the
// importer itself, then the binary: the file it writes validates and runs), and each refusal.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "import/megatron.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;

namespace {

/// A Llama-2-7B pretrain_gpt.py line (Touvron et al. 2023, table 1 and appendix: 32 layers,
/// hidden 4096, 32 heads, SwiGLU MLP of 11008, RMSNorm, rotary positions, untied output, a
/// 32,000-token vocabulary) on 4 nodes of 8: tp 2, pp 2, mbs 1, gbs 128, seq 4096, 1000
/// iterations, a checkpoint every 500. Both `--flag value` and `--flag=value`.
const std::string LLAMA_7B =
    "torchrun --nproc_per_node 8 --nnodes 4 --node_rank 0 --master_addr host0 "
    "pretrain_gpt.py --tensor-model-parallel-size 2 --pipeline-model-parallel-size=2 "
    "--sequence-parallel --num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 "
    "--num-attention-heads 32 --seq-length 4096 --max-position-embeddings 4096 "
    "--position-embedding-type rope --normalization RMSNorm --swiglu --disable-bias-linear "
    "--untie-embeddings-and-output-weights --vocab-size 32000 --tokenizer-type Llama2Tokenizer "
    "--micro-batch-size=1 --global-batch-size 128 --train-iters 1000 --lr 3e-4 --bf16 "
    "--use-flash-attn --use-distributed-optimizer --save-interval 500 --save /ckpt "
    "--data-path 0.5 /data/a 0.5 /data/b";

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// The transformer section of the scenario of `line` on `nodes` nodes of 8 (no launcher).
nlohmann::ordered_json transformer_of(const std::string& line, std::int64_t nodes = 1) {
  failsim::import::MegatronImportOptions options;
  options.nodes = nodes;
  return failsim::import::import_megatron(words(line), options).scenario["workload"]["transformer"];
}

}  // namespace

TEST_CASE("import megatron: GPT-2 small and Llama 2 70B's parameters as Megatron-LM counts them",
          "[cli][import]") {
  // GPT-2 small (Radford et al. 2019): 12 layers, hidden 768, 12 heads, LayerNorm, biases,
  // learned positions of 1024, tied embeddings. Per layer 4h^2 (attention) + 8h^2 (MLP) + 9h
  // (biases) + 4h (two LayerNorms) = 7,087,872; x 12 = 85,054,464; final norm 1,536; positions
  // 1024 x 768 = 786,432; the vocabulary 50,257 is Megatron-LM's padded 50,304 (a multiple of
  // 128): 38,633,472. 124,475,904 in all; unpadded, GPT-2's published 124,439,808.
  const std::string gpt2 =
      "--num-layers 12 --hidden-size 768 --num-attention-heads 12 --seq-length 1024 "
      "--max-position-embeddings 1024 --vocab-size 50257 --micro-batch-size 1 --train-iters 1 ";
  CHECK(transformer_of(gpt2)["parameters"] == 124'475'904);
  CHECK(transformer_of(gpt2 + "--make-vocab-size-divisible-by 1")["parameters"] == 124'439'808);

  // Llama 2 70B: 80 layers, hidden 8192, 64 heads in 8 key/value groups (head 128: k = 1024),
  // SwiGLU of 28672. Per layer q 8192^2 + kv 2 x 8192 x 1024 + out 8192^2 + MLP 3 x 8192 x
  // 28672 + two RMSNorms 2 x 8192 = 855,654,400; x 80 = 68,452,352,000; final norm 8,192;
  // embeddings and output 2 x 32000 x 8192 = 524,288,000: 68,976,648,192, the published count.
  // Megatron-LM pads the vocabulary to a multiple of 128 x tp 8 = 1024: 32,768, 2 x 768 x 8192
  // more.
  const std::string llama70b =
      "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 4 --num-layers 80 "
      "--hidden-size 8192 --num-attention-heads 64 --group-query-attention --num-query-groups 8 "
      "--ffn-hidden-size 28672 --swiglu --normalization RMSNorm --disable-bias-linear "
      "--position-embedding-type rope --untie-embeddings-and-output-weights --vocab-size 32000 "
      "--seq-length 4096 --micro-batch-size 1 --train-iters 1";
  const std::int64_t padding = 2LL * 768 * 8192;
  CHECK(transformer_of(llama70b, 32)["parameters"] == 68'976'648'192 + padding);
  // Without --group-query-attention Megatron-LM ignores --num-query-groups: keys and values of
  // all 64 heads, 2 x 8192 x (8192 - 1024) more parameters in each of the 80 layers.
  std::string no_gqa = llama70b;
  no_gqa.replace(no_gqa.find("--group-query-attention "), 24, "");
  CHECK(transformer_of(no_gqa, 32)["parameters"] ==
        68'976'648'192 + padding + 80LL * 2 * 8192 * (8192 - 1024));
}

TEST_CASE("import megatron: --train-samples is iterations of the global batch, rounded down",
          "[cli][import]") {
  failsim::import::MegatronImportOptions options;
  options.nodes = 2;  // dp 16: the default global batch 16 x --micro-batch-size 4 = 64
  const auto imported = failsim::import::import_megatron(
      words("pretrain_gpt.py extra --num-layers 2 --hidden-size 256 --num-attention-heads 2 "
            "--seq-length 128 --vocab-size 1000 --micro-batch-size 4 --train-samples 1000 "
            "--no-such-flag 1 2 --fp16"),
      options);
  CHECK(imported.scenario["stop"]["train_iters"] == 1000 / 64);
  CHECK(imported.scenario["workload"]["transformer"]["global_batch_size"] == 64);
  CHECK(imported.scenario["workload"]["precision_bytes"] == 2);
  CHECK(imported.scenario["workload"]["recompute"] == "none");
  CHECK(imported.scenario["layout"]["zero_stage"] == 0);
  CHECK(imported.scenario["recovery"]["checkpoint"]["every_steps"] == 0);
  CHECK(imported.ignored == std::vector<std::string>{"--no-such-flag", "'extra'"});
}

TEST_CASE("failsim import megatron: a Llama-2-7B line worked by hand validates and runs",
          "[cli][import]") {
  TempDir dir;
  const std::string file = dir.file("llama.json");
  const auto imported = run_cli("import megatron -o '" + file + "' -- " + LLAMA_7B, dir);
  INFO(imported.err);
  REQUIRE(imported.status == 0);
  CHECK(imported.out.empty());
  CHECK(imported.err ==
        "failsim import megatron: ignored: --node_rank, --master_addr, --sequence-parallel, "
        "--max-position-embeddings, --tokenizer-type, --lr, --save, --data-path\n");
  const auto s = nlohmann::json::parse(read_text(file));
  // 4 nodes x 8 = 32 accelerators; dp = 32 / (tp 2 x pp 2) = 8.
  CHECK(s["platform"]["nodes"] == 4);
  CHECK(s["platform"]["node"] == "h100-8x");
  CHECK(
      s["layout"] ==
      nlohmann::json{{"dp", 8}, {"tp", 2}, {"pp", 2}, {"zero_stage", 1}, {"micro_batch_size", 1}});
  // Per layer: attention 4 x 4096^2 = 67,108,864, MLP 3 x 4096 x 11008 = 135,266,304, two
  // RMSNorms 8,192: 202,383,360; x 32 = 6,476,267,520; final norm 4,096; embeddings and output
  // 2 x 32000 x 4096 = 262,144,000. 6,738,415,616: Llama 2 7B's published count.
  CHECK(s["workload"]["transformer"] == nlohmann::json{{"parameters", 6'738'415'616},
                                                       {"layers", 32},
                                                       {"hidden", 4096},
                                                       {"heads", 32},
                                                       {"sequence", 4096},
                                                       {"global_batch_size", 128}});
  CHECK(s["workload"]["precision_bytes"] == 2);
  CHECK(s["workload"]["recompute"] == "selective");  // --use-flash-attn
  CHECK(s["stop"] == nlohmann::json{{"train_iters", 1000}});
  CHECK(s["recovery"]["checkpoint"]["every_steps"] == 500);
  CHECK(s["description"] == "Imported by failsim import megatron from: " + LLAMA_7B);

  const auto validated = run_cli("validate '" + file + "'", dir);
  INFO(validated.err);
  CHECK(validated.status == 0);
  // A short run: 20 iterations.
  const std::string out = dir.file("out");
  const auto ran =
      run_cli("run '" + file + "' -q --threads 1 --set /stop/train_iters=20 -o '" + out + "'", dir);
  INFO(ran.err);
  REQUIRE(ran.status == 0);
  const auto result = nlohmann::json::parse(read_text(out + "/result.json"));
  // 128 sequences a step / (mbs 1 x dp 8) = 16 micro-batches; 128 x 4096 tokens.
  CHECK(result["scenario"]["layout"]["micro_batches"] == 16);
  CHECK(result["scenario"]["workload"]["transformer"]["global_batch_tokens"] == 128 * 4096);
  CHECK(result["summary"]["collective"]["steps"]["completed"] == 20);

  // To stdout, the same text.
  const auto printed = run_cli("import megatron -- " + LLAMA_7B, dir);
  CHECK(printed.status == 0);
  CHECK(printed.out == read_text(file));
}

TEST_CASE("failsim import megatron refuses a bad option by name, status 2, writing nothing",
          "[cli][import]") {
  const std::string model =
      " --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 "
      "--vocab-size 32000";
  const std::string launcher = "torchrun --nnodes 4 --nproc-per-node 8 pretrain_gpt.py";
  struct Case {
    std::string args, message, options = "";  // failsim's options, before --
  };
  const std::vector<Case> cases{
      {launcher + model + " --micro-batch-size 0 --train-iters 10",
       "--micro-batch-size: expected a whole number >= 1, found 0"},
      {launcher + model + " --micro-batch-size=one --train-iters 10",
       "--micro-batch-size: expected a whole number >= 1, found one"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --tensor-model-parallel-size 3",
       "--tensor-model-parallel-size: expected tp x --pipeline-model-parallel-size 1 dividing "
       "the world size (torchrun --nnodes 4 x --nproc-per-node 8 = 32), found 3 (tp 3 x pp 1 = "
       "3)"},
      {launcher + model + " --micro-batch-size 2 --global-batch-size 100 --train-iters 10",
       "--global-batch-size: expected a multiple of --micro-batch-size 2 x dp 32 = 64 (dp = the "
       "world size 32 / (tp 1 x pp 1)), found 100"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --train-samples 1000",
       "--train-samples: expected no --train-iters with it (Megatron-LM counts a run in "
       "iterations or in samples: one or the other), found 1000 with --train-iters 10"},
      {launcher + model + " --micro-batch-size 1",
       "--train-iters: expected the iterations to train, or --train-samples (Megatron-LM "
       "requires one), found neither"},
      {"pretrain_gpt.py" + model + " --micro-batch-size 1 --train-iters 10",
       "--nodes: expected the job's nodes (failsim import megatron --nodes N), or torchrun's "
       "--nnodes and --nproc-per-node before the script: Megatron-LM's options do not give the "
       "world size, found none"},
      {"torchrun --nnodes 1:4 --nproc-per-node 8 pretrain_gpt.py" + model +
           " --micro-batch-size 1 --train-iters 10",
       "--nnodes: expected a fixed count of nodes (an elastic range MIN:MAX is not one world "
       "size), found 1:4"},
      {"torchrun --nnodes 4 --nproc_per_node 4 pretrain_gpt.py" + model +
           " --micro-batch-size 1 --train-iters 10",
       "--nproc_per_node: expected one process per accelerator of node h100-8x: 8 (failsim "
       "import megatron --node chooses another node), found 4"},
      {launcher + " --num-layers 30 --hidden-size 4096 --num-attention-heads 32 --seq-length "
                  "4096 --vocab-size 32000 --micro-batch-size 1 --train-iters 10 "
                  "--pipeline-model-parallel-size 4",
       "--num-layers: expected a multiple of --pipeline-model-parallel-size 4 (equal stages), "
       "found 30"},
      {launcher + " --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length "
                  "4096 --micro-batch-size 1 --train-iters 10",
       "--vocab-size: expected the vocabulary's size (Megatron-LM reads it from the tokenizer's "
       "files, which failsim does not read: add --vocab-size N, e.g. 32000 for Llama 2's "
       "tokenizer), found none"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --bf16 --fp16",
       "--fp16: expected no --bf16 with it (Megatron-LM trains in one 16-bit format), found "
       "both"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --bf16 yes",
       "--bf16: expected no value (a switch), found 'yes'"},
      {launcher + model +
           " --micro-batch-size 1 --train-iters 10 --group-query-attention "
           "--num-query-groups 5",
       "--num-query-groups: expected a divisor of --num-attention-heads 32 and a multiple of "
       "--tensor-model-parallel-size 1 (tp splits the key/value heads), found 5"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --hidden-size 4100",
       "--hidden-size: expected a multiple of --num-attention-heads 32 (the head dimension, "
       "unless --kv-channels gives it), found 4100"},
      {launcher + model +
           " --micro-batch-size 1 --train-iters 10 --tensor-model-parallel-size 8 "
           "--num-attention-heads 12 --hidden-size 768",
       "--num-attention-heads: expected a multiple of --tensor-model-parallel-size 8 (tp splits "
       "the heads), found 12"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --context-parallel-size 2",
       "--context-parallel-size: expected 1 (failsim's layout is dp x tp x pp: it has no context "
       "parallelism), found 2"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --num-experts 8",
       "--num-experts: expected none (failsim poses as a dense transformer: no mixture of "
       "experts), found 8"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --normalization BatchNorm",
       "--normalization: expected one of LayerNorm, RMSNorm, found BatchNorm"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --recompute-granularity none",
       "--recompute-granularity: expected one of selective, full, found none"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10 --seq-length 4096 8192",
       "--seq-length: expected one value after it, found 2 values"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10000000000",
       "--train-iters: expected a whole number from 1 to 1000000000, found 10000000000"},
      {launcher + model + " --micro-batch-size 1 --train-samples 100 --global-batch-size 128",
       "--train-samples: expected at least one step's --global-batch-size 128 samples, found "
       "100"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10",
       "--nodes: expected torchrun's --nnodes 4 (one or the other, or both alike), found 2",
       "--nodes 2"},
      {"pretrain_gpt.py" + model + " --micro-batch-size 1 --train-iters 10",
       "--nodes: expected at most 1000000 nodes (a collective platform's most), found 2000000",
       "--nodes 2000000"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10",
       "--achieved-fraction: expected a fraction of the accelerators' peak in (0, 1], found 1.5",
       "--achieved-fraction 1.5"},
      {launcher + model + " --micro-batch-size 1 --train-iters 10",
       "the scenario to write: /name: expected a name of letters, digits, '.', '_' and '-', not "
       "starting with '.' or '-', of at most 255 bytes (it names the default output directory), "
       "found \"-x\"",
       "--name=-x"},
  };
  TempDir dir;
  const std::string file = dir.file("scenario.json");
  write_text(file, "kept");
  for (const Case& c : cases) {
    const auto r = run_cli("import megatron -o '" + file + "' " + c.options + " -- " + c.args, dir);
    CHECK(r.status == 2);
    CHECK(r.err == "failsim import megatron: " + c.message + "\n");
    CHECK(r.out.empty());
    CHECK(read_text(file) == "kept");
  }
  // Nothing else written: the file, and the harness's stdout.txt and stderr.txt.
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 3);
}

TEST_CASE("failsim import megatron: a node file, no failures, and an -o it cannot write",
          "[cli][import]") {
  TempDir dir;
  const std::string line =
      " -- pretrain_gpt.py --num-layers 2 --hidden-size 1024 --num-attention-heads 8 "
      "--seq-length 2048 --vocab-size 32000 --micro-batch-size 1 --train-iters 10";
  const std::string file = dir.file("a100.json");
  // A node file relative to the working directory (the source tree): written absolute, as the
  // scenario's paths are relative to the scenario.
  const auto r = run_cli(
      "import megatron --nodes 2 --no-failures --node "
      "scenarios/cluster/nodes/a100-8x.json -o '" +
          file + "'" + line,
      dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto s = nlohmann::json::parse(read_text(file));
  CHECK(s["platform"]["node"] == FAILSIM_SOURCE_DIR "/scenarios/cluster/nodes/a100-8x.json");
  CHECK_FALSE(s.contains("failures"));
  CHECK(s["layout"]["dp"] == 16);
  CHECK(run_cli("validate '" + file + "'", dir).status == 0);

  const auto unwritable =
      run_cli("import megatron --nodes 2 -o '" + dir.file("no/such/dir/x.json") + "'" + line, dir);
  CHECK(unwritable.status == 3);
  CHECK_THAT(unwritable.err, Catch::StartsWith("failsim import megatron: ") &&
                                 Catch::Contains("no/such/dir/x.json"));
}
