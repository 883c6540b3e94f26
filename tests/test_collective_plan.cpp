// The plan of a collective job (sim/scenario/collective/plan.hpp) and the reference formulas of
// collectives (sim/scenario/collective/collective_time.hpp), worked out by hand: a 7B-like
// transformer on 8 nodes x 8 accelerators, a 4-stage pipeline, a small real model, and every
// refusal with its exact message. Engine-free. The scenarios are built as structs, so a refusal's
// arithmetic is checked here on the 7B by hand; the bad-scenario catalogue
// (tests/bad_scenarios.cpp) holds each refusal as a file too, which `failsim validate` and `failsim
// run` refuse alike.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "input_error_of.hpp"
#include "seven_b.hpp"
#include "sim/scenario/collective/collective_time.hpp"
#include "sim/scenario/collective/plan.hpp"

using Catch::Detail::Approx;
using failsim::sim::CollectiveOp;
using failsim::sim::CollectivePlan;
using failsim::sim::DataParallelCollective;
using failsim::sim::plan_collective;
using failsim::sim::Protocol;
using failsim::sim::RankCoordinates;
using failsim::sim::RealModelSize;
using failsim::sim::Scenario;
using failsim::sim::StepPhase;
using failsim::sim::TransformerConfig;
using failsim::testing::error_of;
using failsim::testing::seven_b;

namespace {

/// Equal to 12 significant digits: every expected number below is worked out exactly by hand.
Approx exactly(double value) { return Approx(value).epsilon(1e-12); }

CollectivePlan plan_of(const Scenario& s) { return plan_collective(s, std::nullopt, "bad.json"); }

/// The message plan_collective refuses `s` with.
std::string refusal(const Scenario& s, const std::optional<RealModelSize>& real = std::nullopt) {
  return error_of([&] { plan_collective(s, real, "bad.json"); }).what();
}

}  // namespace

TEST_CASE("Ranks are placed t fastest, nodes filled in order, and grouped", "[collective_plan]") {
  // 2 nodes x 4 accelerators, dp 2 x tp 2 x pp 2: r = (d x 2 + p) x 2 + t.
  Scenario s = seven_b();
  s.collective.platform.nodes = 2;
  s.collective.platform.node.accelerators = 4;
  s.collective.layout.dp = 2;
  s.collective.layout.tp = 2;
  s.collective.layout.pp = 2;
  s.collective.layout.micro_batches = 2;  // 1024 sequences / (2 x 2) = 256 per micro-batch
  s.collective.platform.node.device_memory = 1e15;  // the estimate is another test's
  const CollectivePlan plan = plan_of(s);
  CHECK(plan.ranks() == 8);
  CHECK(plan.node_of_rank == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(plan.coordinates(5) == RankCoordinates{1, 0, 1});  // 5 = (1 x 2 + 0) x 2 + 1
  CHECK(plan.coordinates(6) == RankCoordinates{1, 1, 0});  // 6 = (1 x 2 + 1) x 2 + 0
  for (int r = 0; r < 8; ++r) CHECK(plan.rank_of(plan.coordinates(r)) == r);
  // tp groups at d x pp + p; pipelines at d x tp + t; dp groups at p x tp + t.
  CHECK(plan.tp_groups == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(plan.pipelines == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(plan.dp_groups == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(plan.tp_inside_nodes);
  CHECK(plan.by_node({4, 0}) == std::vector<std::vector<int>>{{0}, {4}});
  CHECK(plan.by_node({0, 1, 2, 4}) == std::vector<std::vector<int>>{{0, 1, 2}, {4}});
}

TEST_CASE("A 7B-like transformer on 64 accelerators, worked out by hand", "[collective_plan]") {
  const CollectivePlan plan = plan_of(seven_b());
  CHECK(plan.ranks() == 64);
  CHECK(plan.tp_inside_nodes);  // a tp group of 8 = one node's 8 accelerators
  CHECK(plan.tp_groups.size() == 8);
  CHECK(plan.tp_groups[3] == std::vector<int>{24, 25, 26, 27, 28, 29, 30, 31});
  CHECK(plan.dp_groups.size() == 8);  // one per t, of the 8 replicas: t, t + 8, ..., t + 56
  CHECK(plan.dp_groups[2] == std::vector<int>{2, 10, 18, 26, 34, 42, 50, 58});
  CHECK(plan.pipelines.size() == 64);  // pp = 1: every rank is a chain of one stage

  // Tokens: 2^22 = 4,194,304; samples: 4,194,304 / 4096 = 1024 sequences; b = 1024 / (8 x 128)
  // = 1 sequence per micro-batch.
  CHECK(plan.tokens_per_step == 4194304.0);
  CHECK(plan.samples_per_step == 1024.0);
  CHECK(plan.micro_batch_samples == 1.0);

  // Flops per token: 6 N = 4.2e10; 12 L h s = 12 x 32 x 4096 x 4096 = 384 x 16,777,216 =
  // 6,442,450,944; together 48,442,450,944. Per step x 4,194,304 tokens = 203,182,365,764,222,976
  // = 2.0318236576422298e17 flops.
  CHECK(plan.step_flops == exactly(48442450944.0 * 4194304.0));
  CHECK(plan.step_flops == exactly(2.0318236576422298e17));
  // Per rank and micro-batch: 2.0318236576422298e17 / (64 ranks x 128 micro-batches) =
  // 24,802,534,883,328 flops, at 1e15 x 0.5 = 5e14 flop/s: 0.049605069766656 s.
  CHECK(plan.micro_batch_seconds == exactly(0.049605069766656));
  // pp = 1: no bubble, the compute is the 128 micro-batches back to back: 6.349448930131968 s.
  CHECK(plan.bubble_fraction == 0.0);
  CHECK(plan.compute_seconds == exactly(128 * 0.049605069766656));

  // Tensor parallel: 4 all-reduces x 32 layers = 128 per micro-batch, each b s h x 2 bytes =
  // 1 x 4096 x 4096 x 2 = 33,554,432 bytes (32 MiB); 128 x 128 = 16,384 a step.
  CHECK(plan.tp_all_reduces_per_micro_batch == 128);
  CHECK(plan.tp_all_reduce_bytes == 33554432.0);
  CHECK(plan.pipeline_send_bytes == 0.0);  // pp = 1

  // Data parallel, ZeRO 0: each rank all-reduces its shard N / (tp x pp) x 2 = 7e9 / 8 x 2 =
  // 1.75e9 bytes after the backward pass.
  CHECK(plan.dp_shard_bytes == 1.75e9);
  CHECK(plan.dp_collectives == std::vector<DataParallelCollective>{
                                   {CollectiveOp::ALL_REDUCE, StepPhase::AFTER_BACKWARD, 1.75e9}});

  // Memory per device. Model states: 16 x 7e9 / 8 = 1.4e10 bytes. Activations (Korthikanti):
  // s b h (34 + 5 a s / h) / tp = 4096 x 1 x 4096 x (34 + 5 x 32 x 4096 / 4096) / 8 =
  // 16,777,216 x 194 / 8 = 406,847,488 bytes a layer; min(m, pp) = 1 micro-batch in flight of
  // 32 layers: 13,019,119,616 bytes. Total 27,019,119,616 bytes (25.2 GiB) < 80 GB.
  CHECK(plan.memory.model_states == exactly(1.4e10));
  CHECK(plan.memory.activations == exactly(13019119616.0));
  CHECK(plan.memory.total() == exactly(27019119616.0));

  // Checkpoint: 14 x 7e9 = 9.8e10 bytes; without ZeRO replica 0's 8 ranks (0..7) each write
  // 14 x 7e9 / 8 = 1.225e10 bytes, the others nothing; every rank reads 1.225e10 at a restart.
  CHECK(plan.checkpoint_bytes == 9.8e10);
  for (int r = 0; r < 64; ++r) {
    CHECK(plan.checkpoint_write_bytes[r] == exactly(r < 8 ? 1.225e10 : 0.0));
    CHECK(plan.checkpoint_read_bytes[r] == exactly(1.225e10));
  }
  const auto& writes = plan.checkpoint_write_bytes;
  CHECK(std::accumulate(writes.begin(), writes.end(), 0.0) == exactly(9.8e10));
  // Restart: 5 s + 0.005 s x 64 ranks = 5.32 s.
  CHECK(plan.restart_init_seconds == exactly(5.32));
}

TEST_CASE("Recomputation shrinks the activations by Korthikanti's factors", "[collective_plan]") {
  // b = 1 sequence, L / pp = 32 layers, one micro-batch in flight, tp = 8:
  // per layer s b h x factor / tp = 4096 x 1 x 4096 x factor / 8 = 2,097,152 x factor.
  Scenario s = seven_b();
  s.collective.workload.recompute = failsim::sim::Recompute::SELECTIVE;  // factor 34
  CHECK(plan_of(s).memory.activations == exactly(32.0 * 2097152.0 * 34.0));
  s.collective.workload.recompute = failsim::sim::Recompute::FULL;  // factor 2
  CHECK(plan_of(s).memory.activations == exactly(32.0 * 2097152.0 * 2.0));
  // Full recomputation runs the forward pass twice: 8 N + 16 L h s per token, 4/3 of the flops.
  Scenario none = seven_b();
  CHECK(plan_of(s).step_flops == exactly(plan_of(none).step_flops * 4.0 / 3.0));
}

TEST_CASE("ZeRO stages shard the 7B's states and change its collectives", "[collective_plan]") {
  Scenario s = seven_b();
  // psi = N / (tp x pp) = 875,000,000 parameters a rank; its shard psi x 2 bytes = 1.75e9.
  const double shard = 1.75e9;
  using Op = CollectiveOp;
  using Phase = StepPhase;

  SECTION("1: optimizer state") {
    s.collective.layout.zero_stage = 1;
    const CollectivePlan plan = plan_of(s);
    // (4 + 12 / 8) psi = 5.5 x 875e6 = 4.8125e9 bytes.
    CHECK(plan.memory.model_states == exactly(4.8125e9));
    CHECK(plan.dp_collectives ==
          std::vector<DataParallelCollective>{{Op::ALL_REDUCE, Phase::AFTER_BACKWARD, shard}});
    // Every rank writes 12 psi / 8 = 1.3125e9 of optimizer state; replica 0's ranks 2 psi =
    // 1.75e9 of weights more: 3.0625e9. 64 x 1.3125e9 + 8 x 1.75e9 = 8.4e10 + 1.4e10 = 9.8e10.
    for (int r = 0; r < 64; ++r) {
      CHECK(plan.checkpoint_write_bytes[r] == exactly(r < 8 ? 3.0625e9 : 1.3125e9));
      CHECK(plan.checkpoint_read_bytes[r] == exactly(3.0625e9));
    }
    const auto& writes = plan.checkpoint_write_bytes;
    CHECK(std::accumulate(writes.begin(), writes.end(), 0.0) == exactly(9.8e10));
  }
  SECTION("2: and gradients") {
    s.collective.layout.zero_stage = 2;
    const CollectivePlan plan = plan_of(s);
    // (2 + 14 / 8) psi = 3.75 x 875e6 = 3.28125e9 bytes.
    CHECK(plan.memory.model_states == exactly(3.28125e9));
    CHECK(plan.dp_collectives ==
          std::vector<DataParallelCollective>{{Op::REDUCE_SCATTER, Phase::AFTER_BACKWARD, shard},
                                              {Op::ALL_GATHER, Phase::AFTER_BACKWARD, shard}});
  }
  SECTION("3: and parameters") {
    s.collective.layout.zero_stage = 3;
    const CollectivePlan plan = plan_of(s);
    // 16 psi / 8 = 1.75e9 bytes.
    CHECK(plan.memory.model_states == exactly(1.75e9));
    CHECK(plan.dp_collectives ==
          std::vector<DataParallelCollective>{{Op::ALL_GATHER, Phase::FORWARD, shard},
                                              {Op::ALL_GATHER, Phase::BACKWARD, shard},
                                              {Op::REDUCE_SCATTER, Phase::AFTER_BACKWARD, shard}});
    // Every rank writes and reads 14 psi / 8 = 1.53125e9 bytes; 64 of them: 9.8e10.
    for (int r = 0; r < 64; ++r) {
      CHECK(plan.checkpoint_write_bytes[r] == exactly(1.53125e9));
      CHECK(plan.checkpoint_read_bytes[r] == exactly(1.53125e9));
    }
  }
}

TEST_CASE("A 4-stage 1F1B pipeline of 8 micro-batches", "[collective_plan]") {
  // The 7B on 4 nodes: dp 1 x tp 8 x pp 4, a global batch of 8 sequences (32,768 tokens) in 8
  // micro-batches of b = 1. Stage p of the chain sits on node p.
  Scenario s = seven_b();
  s.collective.platform.nodes = 4;
  s.collective.layout.dp = 1;
  s.collective.layout.pp = 4;
  s.collective.layout.micro_batches = 8;
  s.collective.workload.transformer->global_batch_tokens = 32768.0;
  const CollectivePlan plan = plan_of(s);
  CHECK(plan.pipelines.size() == 8);
  CHECK(plan.pipelines[0] == std::vector<int>{0, 8, 16, 24});
  CHECK(plan.pipelines[7] == std::vector<int>{7, 15, 23, 31});
  CHECK(plan.dp_groups.size() == 32);  // dp = 1: groups of one rank, no collective
  CHECK(plan.dp_collectives.empty());
  // Bubble: (pp - 1) / (m + pp - 1) = 3 / 11.
  CHECK(plan.bubble_fraction == exactly(3.0 / 11.0));
  CHECK(failsim::sim::pipeline_bubble_fraction(4, 8) == exactly(3.0 / 11.0));
  // Flops: 48,442,450,944 x 32,768 = 1,587,362,232,532,992; per rank and micro-batch / (32 x 8)
  // / 5e14 = 0.012401267441664 s; 1F1B: (8 + 4 - 1) x that = 0.136413941858304 s.
  CHECK(plan.step_flops == exactly(1587362232532992.0));
  CHECK(plan.micro_batch_seconds == exactly(0.012401267441664));
  CHECK(plan.compute_seconds == exactly(0.136413941858304));
  // Pipeline sends: b s h x 2 = 4096 x 4096 x 2 = 33,554,432 bytes each way per micro-batch.
  CHECK(plan.pipeline_send_bytes == 33554432.0);
  // Tensor parallel: 4 x 32 / 4 = 32 all-reduces per micro-batch of each stage.
  CHECK(plan.tp_all_reduces_per_micro_batch == 32);
  // Memory: 16 x 7e9 / 32 = 3.5e9 of states; stage 0 holds min(8, 4) = 4 micro-batches of its
  // 8 layers at 406,847,488 bytes: 13,019,119,616.
  CHECK(plan.memory.model_states == exactly(3.5e9));
  CHECK(plan.memory.activations == exactly(13019119616.0));
}

TEST_CASE("A real small model without a transformer", "[collective_plan]") {
  // Softmax on 784 inputs x 10 classes: 7,850 parameters, 47,100 flops a sample (fwd + bwd),
  // 60,000 training samples; dp 4 on one node of 4, batch 32 per replica in 2 micro-batches.
  Scenario s = seven_b();
  s.collective.workload.transformer.reset();
  s.collective.workload.real_math = true;
  s.collective.platform.nodes = 1;
  s.collective.platform.node.accelerators = 4;
  s.collective.layout = {};
  s.collective.layout.dp = 4;
  s.collective.layout.micro_batches = 2;
  s.collective.layout.zero_stage = 1;
  const RealModelSize real{7850.0, 47100.0, 60000};
  const CollectivePlan plan = plan_collective(s, real, "bad.json");
  CHECK_FALSE(plan.transformer);
  CHECK(plan.tokens_per_step == 0.0);
  CHECK(plan.samples_per_step == 128.0);      // 4 x 32
  CHECK(plan.micro_batch_samples == 16.0);    // 32 / 2
  CHECK(plan.step_flops == 47100.0 * 128.0);  // 6,028,800
  // 6,028,800 / (4 ranks x 2) / 5e14 = 1.5072e-9 s.
  CHECK(plan.micro_batch_seconds == exactly(1.5072e-9));
  CHECK(plan.dp_shard_bytes == 15700.0);  // 7850 x 2
  // ZeRO 1: (4 + 12 / 4) x 7850 = 54,950 bytes; no activations without a transformer.
  CHECK(plan.memory.model_states == exactly(54950.0));
  CHECK(plan.memory.activations == 0.0);
  CHECK(plan.checkpoint_bytes == 14.0 * 7850.0);
}

TEST_CASE("Ring and hierarchical collectives' reference times", "[collective_plan]") {
  using namespace failsim::sim;
  // 8 ranks, 1 GB, 10 us, 100 GB/s: 2 x 7 x 1e-5 + 2 x 7/8 x 1e9 / 1e11 = 1.4e-4 + 0.0175.
  CHECK(ring_all_reduce_seconds(8, 1e9, 1e-5, 1e11) == exactly(0.01764));
  // Half of it: 7e-5 + 0.00875.
  CHECK(ring_reduce_scatter_seconds(8, 1e9, 1e-5, 1e11) == exactly(0.00882));
  CHECK(ring_all_gather_seconds(8, 1e9, 1e-5, 1e11) == exactly(0.00882));
  CHECK(ring_all_reduce_seconds(1, 1e9, 1e-5, 1e11) == 0.0);
  // The 7B's 1.75e9-byte shard over 8 nodes x 8: inside a node (1 us, 450 GB/s) a
  // reduce-scatter and an all-gather of 7 x 1e-6 + 7/8 x 1.75e9 / 4.5e11 =
  // 7e-6 + 0.00340277... each; across nodes 8 rings of 1.75e9 / 8 = 2.1875e8 bytes at 50 GB/s
  // each: 2 x 7 x 5e-6 + 2 x 7/8 x 2.1875e8 / 5e10 = 7e-5 + 0.00765625.
  // Together 2 x (7e-6 + 0.0034027777...) + 7e-5 + 0.00765625 = 0.0145458055555...
  const double inside = 7e-6 + 7.0 / 8.0 * 1.75e9 / 4.5e11;
  const double across = 7e-5 + 0.00765625;
  CHECK(hierarchical_all_reduce_seconds(8, 8, 1.75e9, 1e-6, 4.5e11, 5e-6, 5e10) ==
        exactly(2 * inside + across));
  CHECK(hierarchical_all_reduce_seconds(8, 8, 1.75e9, 1e-6, 4.5e11, 5e-6, 5e10) ==
        exactly(0.014545805555555555));
  // One node: the inter-node part vanishes; one rank a node: a plain ring across nodes.
  CHECK(hierarchical_all_reduce_seconds(8, 1, 1e9, 1e-6, 4.5e11, 5e-6, 5e10) ==
        exactly(2 * ring_reduce_scatter_seconds(8, 1e9, 1e-6, 4.5e11)));
  CHECK(hierarchical_all_reduce_seconds(1, 8, 1e9, 1e-6, 4.5e11, 5e-6, 5e10) ==
        exactly(ring_all_reduce_seconds(8, 1e9, 5e-6, 5e10)));
  CHECK(pipeline_compute_seconds(4, 8, 0.5) == 5.5);  // (8 + 3) x 0.5
  CHECK(pipeline_bubble_fraction(1, 8) == 0.0);
}

TEST_CASE("Layouts that do not fit are refused, naming the field to change", "[collective_plan]") {
  Scenario s = seven_b();
  SECTION("ranks other than the accelerators") {
    s.collective.layout.dp = 4;
    CHECK(refusal(s) ==
          "bad.json: /layout/dp: expected dp x tp x pp equal to the job's accelerators "
          "(platform.nodes 8 x platform.node.accelerators 8 = 64), found dp 4 x tp 8 x pp 1 = "
          "32 ranks");
  }
  SECTION("tensor parallel across nodes, not asked for") {
    s.collective.layout.dp = 4;
    s.collective.layout.tp = 16;
    s.collective.layout.micro_batches = 256;  // 1024 sequences / (4 x 256) = 1
    CHECK(refusal(s) ==
          "bad.json: /layout/tp: expected tensor-parallel groups inside a node (tp dividing the "
          "node's 8 accelerators), or layout.tp_across_nodes true, found 16 (group 0, ranks 0 "
          "to 15, spans nodes 0 to 1)");
    s.collective.layout.tp_across_nodes = true;
    const CollectivePlan plan = plan_of(s);
    CHECK_FALSE(plan.tp_inside_nodes);
  }
  SECTION("a tensor-parallel group straddling two nodes though smaller than one") {
    // 8 nodes x 6 accelerators = 48 = dp 12 x tp 4: group 1 (ranks 4..7) spans nodes 0 and 1.
    s.collective.platform.node.accelerators = 6;
    s.collective.layout.dp = 12;
    s.collective.layout.tp = 4;
    s.collective.layout.micro_batches = 1;
    s.collective.workload.transformer->global_batch_tokens = 4096.0 * 12;
    CHECK(refusal(s) ==
          "bad.json: /layout/tp: expected tensor-parallel groups inside a node (tp dividing the "
          "node's 6 accelerators), or layout.tp_across_nodes true, found 4 (group 1, ranks 4 to "
          "7, spans nodes 0 to 1)");
  }
  SECTION("layers not divisible by the stages") {
    // 8 nodes x 8 = dp 2 x tp 8 x pp 4 would fit; the transformer has 30 layers.
    s.collective.layout.dp = 2;
    s.collective.layout.pp = 4;
    s.collective.layout.micro_batches = 8;
    s.collective.workload.transformer->layers = 30;
    CHECK(refusal(s) ==
          "bad.json: /layout/pp: expected a divisor of the transformer's 30 layers "
          "(workload.transformer.layers), found 4");
  }
  SECTION("heads not divisible by the tensor-parallel ranks") {
    // 8 nodes x 8 = dp 16 x tp 4; 4096 / 128 = 32 heads by default, 30 when written.
    s.collective.layout.dp = 16;
    s.collective.layout.tp = 4;
    s.collective.layout.micro_batches = 64;  // 1024 sequences / (16 x 64) = 1
    s.collective.workload.transformer->heads = 30;
    CHECK(refusal(s) ==
          "bad.json: /layout/tp: expected a divisor of the transformer's 30 attention heads "
          "(workload.transformer.heads), found 4");
    s.collective.workload.transformer->heads = 0;
    s.collective.workload.transformer->hidden = 4096 + 128 * 2;  // 34 heads by default
    CHECK(refusal(s) ==
          "bad.json: /layout/tp: expected a divisor of the transformer's 34 attention heads "
          "(workload.transformer.heads: hidden / 128), found 4");
  }
  SECTION("a global batch that is not whole sequences per micro-batch") {
    s.collective.workload.transformer->global_batch_tokens = 4e6;
    CHECK(refusal(s) ==
          "bad.json: /workload/transformer/global_batch_tokens: expected a multiple of sequence "
          "4096 x dp 8 x micro_batches 128 = 4194304 tokens (a micro-batch is whole sequences), "
          "found 4000000");
  }
  SECTION("a global batch smaller than one sequence per micro-batch") {
    s.collective.layout.micro_batches = 256;
    CHECK(refusal(s) ==
          "bad.json: /workload/transformer/global_batch_tokens: expected a multiple of sequence "
          "4096 x dp 8 x micro_batches 256 = 8388608 tokens (a micro-batch is whole sequences), "
          "found 4194304");
  }
  SECTION("device memory exceeded by activations") {
    // m = 16: b = 8 sequences, activations 8 x 13,019,119,616 = 104,152,956,928 bytes (97 GiB)
    // beside 1.4e10 (13 GiB) of states: 110 GiB > 80 GB (74.5 GiB).
    s.collective.layout.micro_batches = 16;
    CHECK(refusal(s) ==
          "bad.json: /layout/micro_batches: expected a layout whose memory per accelerator fits "
          "platform.node.device_memory 74.5 GiB (estimated 110 GiB: model states 13 GiB of "
          "7e+09 parameters / (tp 8 x pp 1) at ZeRO stage 0, activations 97 GiB of 1 "
          "micro-batch(es) of 8 sequence(s) in flight), found 16");
  }
  SECTION("device memory exceeded by model states") {
    // 16 GB of memory: 1.4e10 of states (13 GiB) + 13,019,119,616 of activations (12.1 GiB).
    s.collective.platform.node.device_memory = 16e9;
    CHECK(refusal(s) ==
          "bad.json: /layout/zero_stage: expected a layout whose memory per accelerator fits "
          "platform.node.device_memory 14.9 GiB (estimated 25.2 GiB: model states 13 GiB of "
          "7e+09 parameters / (tp 8 x pp 1) at ZeRO stage 0, activations 12.1 GiB of 1 "
          "micro-batch(es) of 1 sequence(s) in flight), found 0");
    // ZeRO 3 leaves 1.75e9 + 13,019,119,616 = 14.8e9 bytes: it fits.
    s.collective.layout.zero_stage = 3;
    CHECK(plan_of(s).memory.total() == exactly(1.75e9 + 13019119616.0));
  }
  SECTION("fewer bytes a parameter in memory than its weight and gradient") {
    s.collective.workload.memory_bytes_per_parameter = 3.0;
    CHECK(refusal(s) ==
          "bad.json: /workload/memory_bytes_per_parameter: expected at least the weights' and "
          "gradients' 2 x workload.precision_bytes = 4, found 3");
  }
  SECTION("fewer bytes a parameter in a checkpoint than its weight") {
    s.collective.workload.checkpoint_bytes_per_parameter = 1.0;
    CHECK(refusal(s) ==
          "bad.json: /workload/checkpoint_bytes_per_parameter: expected at least the weights' "
          "workload.precision_bytes = 2, found 1");
  }
}

TEST_CASE("Workloads without a transformer are refused what needs one", "[collective_plan]") {
  Scenario s = seven_b();
  s.collective.workload.transformer.reset();
  const RealModelSize real{7850.0, 47100.0, 60000};
  SECTION("time only") {
    CHECK(refusal(s) ==
          "bad.json: /workload/transformer: expected a transformer to pose as when the workload "
          "is time only (workload.math \"none\"), found none");
  }
  s.collective.workload.real_math = true;
  SECTION("tensor parallel") {
    CHECK(refusal(s, real) ==
          "bad.json: /layout/tp: expected 1 without a transformer to pose as "
          "(workload.transformer: its layers, hidden size and sequence make the activations' "
          "bytes), found 8");
  }
  s.collective.layout.dp = 64;
  s.collective.layout.tp = 1;
  SECTION("micro-batches that are not whole samples") {
    s.collective.layout.micro_batches = 5;
    CHECK(refusal(s, real) ==
          "bad.json: /layout/micro_batches: expected a divisor of optimizer.batch_size (32 "
          "samples per replica and step), found 5");
  }
  SECTION("a real batch larger than the training set's share of a replica") {
    // 60,000 / 64 = 937 samples per replica at most.
    s.collective.layout.micro_batches = 2;
    s.optimizer.batch_size = 938;
    CHECK(refusal(s, real) ==
          "bad.json: /optimizer/batch_size: expected at most the training set's 60000 samples / "
          "dp 64 replicas = 937 (a step draws dp x batch_size samples), found 938");
    s.optimizer.batch_size = 936;  // even, and fits
    CHECK(plan_collective(s, real, "bad.json").samples_per_step == 64.0 * 936);
  }
  SECTION("real math needs the real model's sizes") {
    CHECK_THROWS_AS(plan_collective(s, std::nullopt, "bad.json"), std::invalid_argument);
  }
}
