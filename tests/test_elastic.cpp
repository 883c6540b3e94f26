// Elastic resume (docs/strategies.md, "Elastic resume"; sim/ps/job.hpp): a checkpoint job that
// loses a server host for longer than its patience restarts on the server hosts that are up,
// re-sharding the checkpoints, and grows back when the host returns. Simulations whose outcome
// can be worked out by hand, each in its own child process (sim_harness.hpp).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"

using failsim::testing::accuracy_at;
using failsim::testing::accuracy_of;
using failsim::testing::events_of;
using failsim::testing::run_isolated;
using failsim::testing::sgd_by_hand;
using nlohmann::json;

namespace {
// Softmax regression on 8 inputs and 4 classes: 36 parameters; S = 2 splits them into shard 0
// = [0, 16) and shard 1 = [16, 36) (test_sharding.cpp). One async worker: each shard's update n
// comes from the worker's n-th gradient, 10 ms each; transfers take next to no time.
json base_scenario() {
  json s = failsim::testing::small_scenario("elastic");
  s["cluster"]["servers"]["shards"] = 2;
  s["recovery"] = json::parse(R"({"strategy": "checkpoint",
      "checkpoint": {"every_updates": 10, "elastic": {"patience": "500ms"}}})");
  return s;
}

}  // namespace

TEST_CASE(
    "elastic: shard 1's host lost for good after update 25 -> the job restarts with one shard "
    "made of shard 0 at 25 and shard 1's checkpoint 20",
    "[elastic]") {
  json s = base_scenario();
  s["failures"]["events"] = {
      {{"target", "server"}, {"shard", 1}, {"at_update", 25}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();

  // At detection the job resizes: shard 0's live server writes its state (version 25), shard 1
  // rolls back to its checkpoint of version 20.
  const auto resize = events_of(run, "resize");
  REQUIRE(resize.size() == 1);
  CHECK(resize[0]["time"].get<double>() == Approx(failed + 0.1));
  CHECK(resize[0]["details"]["reason"] == "host lost for good");
  const auto rolled = events_of(run, "rolled_back");
  REQUIRE(rolled.size() == 1);
  CHECK(rolled[0]["subject"] == "shard-1.storage");
  CHECK(rolled[0]["details"]["version"] == 20);
  CHECK(rolled[0]["details"]["updates_lost"] == 5);
  const auto drained = events_of(run, "checkpoint_written", "shard-0.storage");
  REQUIRE(!drained.empty());
  CHECK(drained.back()["details"]["version"] == 25);
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);

  // After the restart delay one shard runs on server-0, the only server host up; its version 0
  // is the fewest updates of what it is made of (20) and its server loads it from the storage.
  const auto resized = events_of(run, "resized");
  REQUIRE(resized.size() == 1);
  CHECK(resized[0]["time"].get<double>() == Approx(failed + 0.1 + 0.2).margin(1e-3));
  CHECK(resized[0]["details"] == json{{"generation", 1}, {"hosts", {"server-0"}}, {"shards", 1}});
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "gen-1.server-0");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(events_of(run, "restart", "shard-1").empty());  // nobody waits for the lost host

  // Right after the load the observer evaluates exactly shard 0 at 25 beside shard 1 at 20.
  const auto p25 = sgd_by_hand(s.dump(), 25);
  auto mixed = sgd_by_hand(s.dump(), 20);
  std::copy(p25.begin(), p25.begin() + 16, mixed.begin());
  const auto accuracy = accuracy_at(run, failed, 20);
  REQUIRE(accuracy);
  CHECK(*accuracy == accuracy_of(s.dump(), mixed));

  // Training resumed in the new generation, and the outage runs from the failure to it.
  const auto resumed = events_of(run, "training_resumed", "gen-1.");
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0]["details"]["after_resize"] == true);
  CHECK(resumed[0]["details"]["stalled_since"].get<double>() == failed);
  CHECK(run.result["summary"]["updates"].get<int>() > 2 * 25 + 100);
  CHECK(!run.result["summary"].contains("shards"));  // one shard at the end
}

TEST_CASE(
    "elastic: a host down longer than the patience shrinks the job, and its return grows it "
    "back to two shards from the one shard's state",
    "[elastic]") {
  json s = base_scenario();
  s["optimizer"]["momentum"] = 0.9;  // the optimiser state is re-sharded with the parameters
  s["failures"]["events"] = {
      {{"target", "server"}, {"shard", 1}, {"at_update", 25}, {"down_for", "1s"}}};
  const auto run = run_isolated(s.dump());
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  const auto resize = events_of(run, "resize");
  REQUIRE(resize.size() == 2);
  CHECK(resize[0]["details"]["reason"] == "host down longer than the patience");
  CHECK(resize[1]["time"].get<double>() == Approx(failed + 1.0));  // host_up
  CHECK(resize[1]["details"] == json{{"reason", "a server host is back"}, {"shards", 1}});
  const auto resized = events_of(run, "resized");
  REQUIRE(resized.size() == 2);
  CHECK(resized[1]["details"] ==
        json{{"generation", 2}, {"hosts", {"server-0", "server-1"}}, {"shards", 2}});

  // Growing, the one shard stopped and wrote its state: both new shards start from it, at its
  // version, and nothing more is rolled back.
  const auto written = events_of(run, "checkpoint_written", "gen-1.storage");
  REQUIRE(!written.empty());
  const auto v = written.back()["details"]["version"].get<int>();
  const auto loaded = events_of(run, "checkpoint_loaded", "gen-2.");
  REQUIRE(loaded.size() == 2);
  for (const auto& l : loaded) {
    CHECK(l["details"]["version"] == v);
    CHECK(l["details"]["updates_lost"] == 0);
  }
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(run.result["summary"]["shards"].size() == 2);
  CHECK(run.result["summary"]["shards"][0]["params"] == 16);
  // The worker waited through both restarts: from the failure to the first resize's end, and
  // through the second (at least the two restart delays).
  CHECK(run.result["summary"]["hosts"][2]["recovery_wait_seconds"].get<double>() >= 0.3 + 0.2);
}

TEST_CASE("elastic: a host back within the patience is waited for as without elastic",
          "[elastic]") {
  json s = base_scenario();
  s["failures"]["events"] = {
      {{"target", "server"}, {"shard", 1}, {"at_update", 25}, {"down_for", "300ms"}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "resize").empty());
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "shard-1.server-1");
  CHECK(loaded[0]["details"]["version"] == 20);
}

TEST_CASE(
    "elastic with one shard: the job waits for a server host, then restarts on it exactly as a "
    "plain checkpoint restart, momentum included",
    "[elastic]") {
  // Shard 0 (the only one) dies after update 25 with its host down 1 s. Elastic: the job
  // resizes at detection, finds no server host up and waits; when the host is back it restarts
  // the job there from checkpoint 20. Without elastic the server restarts there from checkpoint
  // 20 too. One worker: the same gradients follow, so 60 updates give the same parameters.
  json elastic = base_scenario();
  elastic["cluster"]["servers"].erase("shards");
  // SGD's velocity, or AdamW's moments and steps, restored on both paths.
  const json optimizers[] = {
      {{"momentum", 0.9}},
      {{"kind", "adamw"}, {"learning_rate", 0.01}, {"warmup_steps", 10}, {"decay_steps", 50}}};
  elastic["optimizer"].merge_patch(optimizers[GENERATE(0, 1)]);
  elastic["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}, {"down_for", "1s"}}};
  elastic["stop"] = {{"time", "3s"}, {"updates", 60}};
  json plain = elastic;
  plain["recovery"]["checkpoint"].erase("elastic");
  const auto a = run_isolated(elastic.dump());
  const auto b = run_isolated(plain.dump());
  const auto none = events_of(a, "no_replacement");
  REQUIRE(none.size() == 1);
  CHECK(none[0]["details"]["reason"] == "no server host is up");
  CHECK(events_of(a, "resized").size() == 1);
  CHECK(events_of(a, "checkpoint_loaded", "gen-1.server-0").at(0)["details"]["version"] == 20);
  CHECK(a.result["summary"]["updates_rolled_back"] == 5);  // rolled back once, not per resize
  REQUIRE(a.final_params.size() == 36);
  CHECK(a.final_params == b.final_params);
  // The job restart costs the restart delay after the host is back; the plain restart overlaps
  // it with the outage.
  const double back = events_of(a, "host_up").at(0)["time"].get<double>();
  CHECK(events_of(a, "resized").at(0)["time"].get<double>() == Approx(back + 0.2).margin(1e-3));
  CHECK(events_of(b, "restart").at(0)["time"].get<double>() == Approx(back));
}

TEST_CASE("elastic with one shard whose host is lost for good: the job never resumes",
          "[elastic]") {
  // Nothing to resize onto: training stops as with a plain checkpoint, and, no generation
  // resuming from the checkpoint, nothing counts as rolled back (as a plain restart never
  // loads).
  json s = base_scenario();
  s["cluster"]["servers"].erase("shards");
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "resize").size() == 1);
  CHECK(events_of(run, "no_replacement").at(0)["details"]["reason"] == "no server host is up");
  CHECK(events_of(run, "resized").empty());
  CHECK(events_of(run, "rolled_back").empty());
  CHECK(run.result["summary"]["updates_rolled_back"] == 0);
  CHECK(run.result["summary"]["updates"] == 25);
}

TEST_CASE("elastic: an evaluation at the instant a new generation starts sees whole parameters",
          "[elastic]") {
  // The host is back at 2.8 s and, the restart delay of 1.2 s later, the new generation starts
  // at 4.0 s, an evaluation instant the observer began waiting for after the resize did.
  // Starting it makes SimGrid calls during which the observer runs: it must see either the old
  // generation or the new one, never an empty one (a zero vector, version 0, accuracy 0.25 by
  // chance), nor a loading server's placeholder.
  json s = base_scenario();
  s["cluster"]["servers"].erase("shards");
  s["failures"]["restart_delay"] = "1200ms";
  s["failures"]["events"] = {{{"target", "server"}, {"at", "800ms"}, {"down_for", "2s"}}};
  s["stop"] = {{"time", "5s"}};
  const auto run = run_isolated(s.dump());
  REQUIRE(events_of(run, "resized").at(0)["time"].get<double>() == Approx(4.0));
  std::istringstream rows(run.timeseries);
  std::string line;
  std::getline(rows, line);
  int after_start = 0;
  while (std::getline(rows, line)) {
    const double time = std::stod(line.substr(0, line.find(',')));
    const long version = std::stol(line.substr(line.find(',') + 1));
    if (time > 0) {
      CHECK(version > 0);
      ++after_start;
    }
  }
  CHECK(after_start >= 3);
}

TEST_CASE("elastic: a worker restarted during a resize starts again with the new shards",
          "[elastic]") {
  // worker-0 crashes at 500 ms and is restarted at 800 ms (detection 100 ms, restart 200 ms);
  // shard 1's host is lost at 650 ms, so the job stops at 750 ms and starts one shard at 950 ms.
  // The process started at 800 ms knows two shards: the new generation has one, and would get
  // half a parameter vector for a whole one. The job stops it and starts it again.
  json s = base_scenario();
  s["failures"]["events"] = {
      {{"target", "worker"}, {"index", 0}, {"at", "500ms"}, {"down_for", 0}},
      {{"target", "server"}, {"shard", 1}, {"at", "650ms"}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  REQUIRE(events_of(run, "restart", "worker-0").size() == 1);
  CHECK(events_of(run, "restart", "worker-0")[0]["time"].get<double>() == Approx(0.8));
  REQUIRE(events_of(run, "resized").size() == 1);
  CHECK(events_of(run, "resized")[0]["time"].get<double>() == Approx(0.95).margin(1e-3));
  CHECK(run.result["summary"]["status"] == "completed");
  // It trained on after the resize, on whole parameters.
  INFO(run.timeseries);
  CHECK(run.result["summary"]["updates"].get<int>() > 2 * 50 + 150);
  CHECK(run.result["summary"]["final"]["test_accuracy"].get<double>() > 0.6);
}

TEST_CASE("elastic with sync workers: both restart with the job and rounds go on", "[elastic]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["consistency"] = {{"mode", "sync"}};
  s["failures"]["events"] = {
      {{"target", "server"}, {"shard", 0}, {"at_update", 25}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  REQUIRE(events_of(run, "resized").size() == 1);
  CHECK(events_of(run, "resized")[0]["details"]["hosts"] == json{"server-1"});
  // Sync rounds: shard 0 rolled back to 20, shard 1 stopped at 25: version 0 is 20.
  CHECK(events_of(run, "checkpoint_loaded").at(0)["details"]["version"] == 20);
  CHECK(run.result["summary"]["status"] == "completed");
  // Rounds of two gradients went on after the resize (roughly 2.6 s of 10 ms rounds).
  CHECK(run.result["summary"]["updates"].get<int>() > 2 * 25 + 100);
}

TEST_CASE("elastic under random server and worker failures: every run completes, counts exact",
          "[elastic]") {
  // elastic-resume.json (3 shards, 2 workers) with server hosts failing every 1.5 s and workers
  // every 3 s on average: resizes overlap failures, restarts and each other. run() itself checks
  // computed = applied + dropped + lost + pending; a worker left on old shards stops training.
  json s = json::parse(
      failsim::testing::read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/elastic-resume.json"));
  s.erase("output");
  s["failures"]["events"] = json::array();
  s["failures"]["stochastic"] = json::parse(R"([
    {"target": "server", "lifetime": {"distribution": "exponential", "mean": "1.5s"},
     "repair": {"distribution": "exponential", "mean": "1s"}},
    {"target": "worker", "lifetime": {"distribution": "exponential", "mean": "3s"},
     "repair": {"distribution": "exponential", "mean": "1s"}}])");
  s["stop"]["time"] = "20s";
  for (const std::string mode : {"async", "sync"}) {
    for (int seed : {5, 7}) {
      json run_scenario = s;
      run_scenario["seed"] = seed;
      run_scenario["consistency"] = {{"mode", mode}};
      if (mode == "sync") run_scenario["optimizer"]["momentum"] = 0.9;
      INFO(mode << " seed " << seed);
      const auto run = run_isolated(run_scenario.dump());
      CHECK(run.result["summary"]["status"] == "completed");
      CHECK(events_of(run, "resized").size() >= 3);
      CHECK(run.result["summary"]["final"]["test_accuracy"].get<double>() > 0.6);
    }
  }
}

TEST_CASE("elastic is refused with multi-level checkpoints and read with a time", "[elastic]") {
  json s = base_scenario();
  s["recovery"]["checkpoint"] = {{"levels", {{{"kind", "remote"}, {"every_updates", 10}}}},
                                 {"elastic", {{"patience", "1s"}}}};
  CHECK_THROWS_WITH(failsim::sim::parse_scenario_text(s.dump(), "bad.json"),
                    "bad.json: /recovery/checkpoint/elastic: expected no 'elastic' here (elastic "
                    "resume re-shards "
                    "single-level checkpoints only), found {\"patience\":\"1s\"}");
  s = base_scenario();
  s["recovery"]["checkpoint"]["elastic"] = {{"patience", "3GB"}};
  CHECK_THROWS_WITH(failsim::sim::parse_scenario_text(s.dump(), "bad.json"),
                    Catch::StartsWith("bad.json: /recovery/checkpoint/elastic/patience: expected"));
  s["recovery"]["checkpoint"]["elastic"] = json::object();
  CHECK_THROWS_WITH(failsim::sim::parse_scenario_text(s.dump(), "bad.json"),
                    Catch::StartsWith("bad.json: /recovery/checkpoint/elastic/patience: expected"));
  s["recovery"]["checkpoint"]["elastic"] = {{"patience", "1s"}, {"min_shards", 1}};
  CHECK_THROWS_WITH(failsim::sim::parse_scenario_text(s.dump(), "bad.json"),
                    Catch::Contains("min_shards"));
  s["recovery"]["checkpoint"]["elastic"] = {{"patience", "2s"}};
  CHECK(failsim::sim::parse_scenario_text(s.dump(), "ok.json").recovery.elastic_patience() == 2.0);
}
