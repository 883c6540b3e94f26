// The resolve step (sim/scenario/resolve.hpp): what a scenario means for its job, worked out by
// hand on small cases, and the catalogue of scenarios that parse but cannot run. Each of those
// is refused by resolve() with one message, and `failsim validate` and `failsim run` refuse it
// with the same message and exit status 2, the run before simulating or writing anything.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "input_error_of.hpp"
#include "sim/scenario/resolve.hpp"
#include "temp_dir.hpp"

using failsim::sim::parse_scenario;
using failsim::sim::resolve;
using failsim::testing::error_of;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// 2 workers, 1000 training and 200 test samples of 32 dimensions in 10 classes.
const char* const BASE = R"({
  "name": "base",
  "data": { "kind": "synthetic", "train_size": 1000, "test_size": 200 },
  "model": { "kind": "softmax" },
  "cluster": {
    "workers": { "count": 2, "speed": "1Gf" },
    "servers": { "speed": "2Gf" }
  },
  "consistency": { "mode": "async" },
  "stop": { "time": "10s" }
})";

struct Unrunnable {
  std::string what;
  std::string patch;  ///< merged into BASE (RFC 7386); @EMPTY@ is an empty directory
  std::string json_path;
  std::vector<std::string> message_parts;
};

std::vector<Unrunnable> catalogue() {
  return {
      {"batch larger than a worker's share of the data",
       R"({"optimizer": {"batch_size": 501}})",
       "/optimizer/batch_size",
       {"expected at most the smallest worker shard (1000 training samples / 2 workers = 500), "
        "found 501"}},
      {"fewer training samples than workers",
       R"({"data": {"train_size": 1}})",
       "/data/train_size",
       {"expected at least one training sample per worker (2 workers), found 1"}},
      {"fewer Fashion-MNIST training samples than workers",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null,
                    "train_limit": 1}})",
       "/data/train_limit",
       {"expected at least one training sample per worker (2 workers), found 1"}},
      {"test subset larger than the test set",
       R"({"evaluation": {"test_subset": 201}})",
       "/evaluation/test_subset",
       {"expected at most the 200 test samples of the data set (0 = all), found 201"}},
      {"test subset larger than the whole Fashion-MNIST test set (no limit written)",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null},
           "evaluation": {"test_subset": 10001}})",
       "/evaluation/test_subset",
       {"expected at most the 10000 test samples of the data set (0 = all), found 10001"}},
      {"a data directory without the IDX files",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null,
                    "dir": "@EMPTY@"}})",
       "/data/dir",
       {"expected a directory of Fashion-MNIST IDX files that load, found ",
        "train-images-idx3-ubyte.gz: cannot open IDX file"}},
      // Softmax on 32 inputs and 10 classes: 330 parameters.
      {"more shards than parameters",
       R"({"cluster": {"servers": {"shards": 331}}})",
       "/cluster/servers/shards",
       {"expected at most the model's 330 parameters, found 331"}},
      // 1,320 bytes on 1 Mbps without latency: 1320 / (0.97 x 125,000) = 10.9 ms.
      {"request timeout shorter than twice a parameter message",
       R"({"cluster": {"network": {"bandwidth": "1Mbps", "latency": 0}},
           "failures": {"request_timeout": "20ms"}})",
       "/failures/request_timeout",
       {"expected more than twice the time one parameter message takes on the network "
        "(0.010886",
        "for 1320 bytes), found 0.02"}},
  };
}

json patched(const Unrunnable& c, const std::string& empty_dir) {
  json doc = json::parse(BASE);
  std::string patch = c.patch;
  const std::string mark = "@EMPTY@";
  if (const auto at = patch.find(mark); at != std::string::npos)
    patch.replace(at, mark.size(), empty_dir);
  doc.merge_patch(json::parse(patch));
  return doc;
}

}  // namespace

TEST_CASE("resolve: the job of a small scenario, by hand", "[resolve]") {
  json doc = json::parse(BASE);
  doc["cluster"]["servers"]["shards"] = 2;
  doc["timing"] = {{"flops_per_sample", 1e6}};
  const auto job = resolve(parse_scenario(doc, "base.json"), "base.json");
  CHECK(job.train.samples == 1000);
  CHECK(job.test.samples == 200);
  CHECK(job.train.width == 32);
  CHECK(job.train.num_classes == 10);
  // Softmax regression: a 10 x 32 weight matrix (rows of 32) and 10 biases. The balanced cut at
  // 165 is 5 floats from the tensor boundary at 160 (within 10% of 165): the cut is there.
  CHECK(job.num_params == 330);
  REQUIRE(job.shards.size() == 2);
  CHECK(job.shards[0] == failsim::models::ShardRange{0, 160});
  CHECK(job.shards[1] == failsim::models::ShardRange{160, 170});
  CHECK(job.time.param_bytes == 1320.0);
  CHECK(job.time.gradient_flops == 1e6 * 32);  // the default batch of 32
  CHECK(job.time.update_flops == 2.0 * 330);
}

TEST_CASE("resolve: Fashion-MNIST from its headers, limits applied", "[resolve]") {
  json doc = json::parse(BASE);
  doc["data"] = {{"kind", "fashion-mnist"}, {"test_limit", 500}};
  const auto job = resolve(parse_scenario(doc, "f.json"), "f.json");
  CHECK(job.train.samples == 60000);
  CHECK(job.test.samples == 500);
  CHECK(job.train.height == 28);
  CHECK(job.train.width == 28);
  CHECK(job.num_params == 28 * 28 * 10 + 10);
}

TEST_CASE("the catalogue of scenarios that parse but cannot run: resolve refuses each",
          "[resolve]") {
  TempDir dir;
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  for (const Unrunnable& c : catalogue()) {
    INFO(c.what);
    const json doc = patched(c, empty);
    const auto scenario = parse_scenario(doc, "bad.json");  // the scenario itself is valid
    const failsim::input::InputError e = error_of([&] { resolve(scenario, "bad.json"); });
    CHECK(e.file() == "bad.json");
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
  }
}

TEST_CASE("validate refuses what run refuses, with the same message, and run writes nothing",
          "[resolve][cli]") {
  TempDir dir;
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  for (const Unrunnable& c : catalogue()) {
    INFO(c.what);
    const std::string file = dir.file("bad.json");
    write_text(file, patched(c, empty).dump(2));
    const auto validated = run_cli("validate '" + file + "'", dir);
    CHECK(validated.status == 2);
    CHECK_THAT(validated.err, Catch::Contains(file + ": " + c.json_path + ": "));
    for (const std::string& part : c.message_parts)
      CHECK_THAT(validated.err, Catch::Contains(part));
    const std::string out = dir.file("out");
    const auto ran = run_cli("run '" + file + "' -q -o '" + out + "'", dir);
    CHECK(ran.status == 2);
    for (const std::string& part : c.message_parts) CHECK_THAT(ran.err, Catch::Contains(part));
    CHECK_FALSE(fs::exists(out));
  }
}
