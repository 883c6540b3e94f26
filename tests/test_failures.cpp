// Failures and recovery on small scenarios whose outcome can be worked out by hand. Each
// simulation runs in its own child process (sim_harness.hpp); every run also checks its own
// gradient accounting (computed = applied + dropped + lost + pending) and fails otherwise.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "sim/ps/recovery/strategies.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"

using failsim::testing::accuracy_of;
using failsim::testing::events_of;
using failsim::testing::run_isolated;
using failsim::testing::sgd_by_hand;
using nlohmann::json;

namespace {
json base_scenario() { return failsim::testing::small_scenario("failures"); }

const json& gradients(const failsim::testing::IsolatedRun& run) {
  return run.result["summary"]["gradients"];
}

struct Row {
  double time;
  long version;
  double accuracy;
  long gradients_computed;
};
std::vector<Row> timeseries(const failsim::testing::IsolatedRun& run) {
  std::vector<Row> rows;
  std::istringstream in(run.timeseries);
  std::string line;
  std::getline(in, line);
  REQUIRE(line ==
          "time,version,test_accuracy,test_loss,test_perplexity,train_loss,test_samples,"
          "gradients_computed,gradients_applied,tokens");
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    // A classifier's tokens are empty: the last field, which getline does not return.
    REQUIRE(fields.size() == 9);
    rows.push_back(
        {std::stod(fields[0]), std::stol(fields[1]), std::stod(fields[2]), std::stol(fields[7])});
  }
  return rows;
}

/// Gradients computed in the evaluation interval (t0, t1] of the time series.
long computed_between(const std::vector<Row>& rows, double t0, double t1) {
  long first = -1, last = -1;
  for (const Row& r : rows) {
    if (r.time <= t0) first = r.gradients_computed;
    if (r.time <= t1) last = r.gradients_computed;
  }
  REQUIRE(first >= 0);
  return last - first;
}

}  // namespace

TEST_CASE("every parameter-server strategy of strategies.def is in each of its lists",
          "[failures]") {
  // The two tables are made from one list; each place that names the strategies must name
  // exactly those, in that order: the scenario's table (the reader's choices and its
  // did-you-mean), the engine's factories, the schema's enum, docs/strategies.md's sections.
  std::vector<std::string> def;
#define FAILSIM_PS_STRATEGY(name, make) def.emplace_back(#name);
#include "sim/ps/recovery/strategies.def"
#undef FAILSIM_PS_STRATEGY
  REQUIRE(def.size() >= 5);
  std::vector<std::string> scenario;
  for (const auto& s : failsim::sim::recovery_strategies()) scenario.emplace_back(s.name);
  CHECK(scenario == def);
  std::vector<std::string> factories;
  for (const auto& f : failsim::sim::STRATEGY_FACTORIES) {
    factories.emplace_back(f.name);
    CHECK(f.make != nullptr);
  }
  CHECK(factories == def);

  const std::filesystem::path source = FAILSIM_SOURCE_DIR;
  std::ifstream schema_file(source / "scenarios" / "schema.json");
  const json schema = json::parse(schema_file);
  std::vector<std::string> schema_enum;
  for (const auto& name :
       schema.at("properties").at("recovery").at("properties").at("strategy").at("enum"))
    schema_enum.push_back(name.get<std::string>());
  CHECK(schema_enum == def);

  std::ifstream docs_file(source / "docs" / "strategies.md");
  std::vector<std::string> docs;
  for (std::string line; std::getline(docs_file, line);) {
    if (line.rfind("## `", 0) == 0 && line.back() == '`')
      docs.push_back(line.substr(4, line.size() - 5));
  }
  CHECK(docs == def);

  // The reader refuses a name outside the list, listing the list.
  std::string expected = "expected one of ";
  for (std::size_t i = 0; i < def.size(); ++i) expected += (i ? ", \"" : "\"") + def[i] + "\"";
  json bad = base_scenario();
  bad["recovery"] = {{"strategy", "no_such_strategy"}};
  CHECK_THROWS_WITH(failsim::sim::parse_scenario(bad, "bad.json"),
                    Catch::Matchers::Contains(expected));
}

TEST_CASE("a scheduled failure the run does not reach is recorded, not silently absent",
          "[failures]") {
  // 3 s, one worker at 1 Gf on 1e7 flops per batch: about 300 updates. An event at 5 s (allowed
  // by after_stop "record") and one at update 100,000 (no stop.updates to compare with) are
  // both beyond the run's end; the one at update 10 is injected.
  json s = base_scenario();
  s["failures"]["after_stop"] = "record";
  s["failures"]["events"] = {{{"target", "worker"}, {"index", 0}, {"at_update", 10}},
                             {{"target", "server"}, {"at", "5s"}},
                             {{"target", "worker"}, {"index", 0}, {"at_update", 100000}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "failure").size() == 1);
  const auto missed = events_of(run, "failure_not_injected");
  REQUIRE(missed.size() == 2);
  CHECK(missed[0]["subject"] == "server");
  CHECK(missed[0]["details"] ==
        json{{"event", 1}, {"at", 5.0}, {"reason", "the run stopped first"}});
  CHECK(missed[1]["subject"] == "worker");
  CHECK(missed[1]["details"]["event"] == 2);
  CHECK(missed[1]["details"]["at_update"] == 100000);
  for (const auto& e : missed) CHECK(e["time"] == run.result["summary"]["end_time"]);
}

TEST_CASE("checkpoint every 10 updates, server killed after update 25: resumes from version 20",
          "[failures]") {
  json s = base_scenario();
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());

  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 5);
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(gradients(run)["rolled_back"] == 5);  // one worker: one gradient per update
  // Outage: detection 100 ms + restart 200 ms after the failure, then the load.
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(loaded[0]["time"].get<double>() == Approx(failed + 0.3).margin(1e-3));
  // Training resumes with the restarted server's first update: one gradient cycle (10 ms of
  // computation plus two messages) after the load, and the event says since when it stood.
  const auto resumed = events_of(run, "training_resumed");
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0]["subject"] == "server-1");
  CHECK(resumed[0]["details"]["stalled_since"].get<double>() == failed);
  const double resumed_at = resumed[0]["time"].get<double>();
  CHECK(resumed_at > loaded[0]["time"].get<double>());
  CHECK(resumed_at < loaded[0]["time"].get<double>() + 0.02);
  CHECK(resumed[0]["details"]["stalled_for"].get<double>() == Approx(resumed_at - failed));

  // The evaluation right after recovery is version 20's parameters, exactly.
  const auto rows = timeseries(run);
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const Row& r) { return r.time > failed && r.version == 20; });
  REQUIRE(it != rows.end());
  CHECK(it->accuracy == accuracy_of(s.dump(), sgd_by_hand(s.dump(), 20)));
}

TEST_CASE("a rollback of sync updates undoes every gradient they held", "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["consistency"] = {{"mode", "sync"}};
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(gradients(run)["rolled_back"] == 10);  // 5 rounds of 2 workers
  CHECK(gradients(run)["applied"].get<int>() == 2 * run.result["summary"]["updates"].get<int>());
}

TEST_CASE("a replacement killed while loading the checkpoint loses nothing more", "[failures]") {
  json s = base_scenario();
  // A 1 MB state read at 1 MB/s: the load takes 1 s, long enough to be struck.
  s["timing"]["param_bytes"] = "1MB";
  s["cluster"]["storage"] = {{"disk_read", "1MBps"}};
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  // Killed after update 25 (about 0.3 s), restarted 300 ms later, killed again at 1 s while it
  // reads the checkpoint, restarted at 1.3 s: the third server loads version 20.
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}},
                             {{"target", "server"}, {"at", "1s"}}};
  const auto run = run_isolated(s.dump());

  const auto failures = events_of(run, "failure");
  REQUIRE(failures.size() == 2);
  CHECK(failures[1]["details"]["process"] == "server-1");
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "server-2");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 5);
  // Only the first server held updates to lose: 25 - 20, counted once.
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(gradients(run)["rolled_back"] == 5);
}

TEST_CASE("stop.version counts useful updates: the rolled-back ones are done again", "[failures]") {
  json s = base_scenario();
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  s["stop"] = {{"time", "3s"}, {"version", 30}};
  const auto run = run_isolated(s.dump());
  CHECK(run.result["summary"]["stop_reason"] == "version");
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(run.result["summary"]["updates"] == 35);  // 25, then 21 to 30 again from version 20
  CHECK(run.result["summary"]["final"]["version"] == 30);
  CHECK(run.result["summary"]["end_time"].get<double>() < 3.0);
}

TEST_CASE(
    "a checkpoint holds the optimizer's state: plain SGD 1x, momentum 2x, AdamW 3x the "
    "parameters' bytes",
    "[failures]") {
  // A 1 MB parameter state written at 1 MB/s, blocking: the server stalls for the write, 1 s per
  // MB (the transfer to the storage host at 100 Gb/s adds 0.08 ms per MB).
  const json optimizers[] = {{{"learning_rate", 0.05}},
                             {{"learning_rate", 0.05}, {"momentum", 0.9}},
                             {{"kind", "adamw"}, {"learning_rate", 0.01}}};
  const int which = GENERATE(0, 1, 2);
  json s = base_scenario();
  s["optimizer"] = optimizers[which];
  s["optimizer"]["batch_size"] = 10;
  s["timing"]["param_bytes"] = "1MB";
  s["cluster"]["storage"] = {{"disk_write", "1MBps"}};
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["stop"] = {{"version", 10}};
  const auto run = run_isolated(s.dump());
  const auto blocked = events_of(run, "checkpoint_blocked");
  REQUIRE(blocked.size() == 1);
  CHECK(blocked[0]["details"]["seconds"].get<double>() == Approx(1.0 + which).margin(1e-3));
}

TEST_CASE("stop.version: a checkpoint of that version written while its server died ends the run",
          "[failures]") {
  json s = base_scenario();
  // A 1 MB state written at 1 MB/s: each blocking checkpoint takes 1 s. An update takes about
  // 10.7 ms (10 ms of gradient, two 1 MB transfers, 0.5 ms to apply), so update 20 is applied
  // near 1.21 s and its checkpoint is on the disk until about 2.21 s.
  s["timing"]["param_bytes"] = "1MB";
  s["cluster"]["storage"] = {{"disk_write", "1MBps"}};
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at", "1.7s"}}};
  s["stop"] = {{"time", "3s"}, {"version", 20}};
  const auto run = run_isolated(s.dump());
  // The storage finishes the write (the server's death does not stop it); the replacement,
  // restarted at 1.7 + 0.1 + 0.2 s, asks for the latest checkpoint, which the storage answers
  // once the write is done: it reads version 20 (1 MB at 500 MB/s, 2 ms) and sends it. The run
  // ends there, without a 21st update.
  const auto written = events_of(run, "checkpoint_written");
  REQUIRE(written.size() == 2);
  CHECK(written[1]["details"]["version"] == 20);
  CHECK(events_of(run, "restart").at(0)["time"].get<double>() == Approx(2.0));
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 0);
  CHECK(loaded[0]["time"].get<double>() ==
        Approx(written[1]["time"].get<double>() + 0.002).margin(2e-4));
  CHECK(run.result["summary"]["stop_reason"] == "version");
  CHECK(run.result["summary"]["end_time"] == loaded[0]["time"]);
  CHECK(run.result["summary"]["updates"] == 20);
}

TEST_CASE("checkpointing: the outage idles the workers, training then goes on", "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["recovery"] = {{"strategy", "checkpoint"},
                   {"checkpoint", {{"every_updates", 50}, {"blocking", false}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at", "1s"}, {"down_for", "1s"}}};
  s["evaluation"]["interval"] = "100ms";
  const auto run = run_isolated(s.dump());
  // The host is back at 2 s, later than detection + restart (1.3 s): the restart waits for it.
  CHECK(events_of(run, "restart").at(0)["time"].get<double>() == Approx(2.0));
  const auto& worker = run.result["summary"]["hosts"][1];
  CHECK(worker["recovery_wait_seconds"].get<double>() == Approx(1.0).margin(0.06));
  CHECK(run.result["summary"]["hosts"][0]["down_seconds"] == 1.0);
  CHECK(gradients(run)["lost"].get<int>() <= 2);  // at most one in flight per worker
  CHECK(run.result["summary"]["updates"].get<int>() > 300);
  // The time series shows the stall: no gradient computed while the server is down, except the
  // one each worker had in hand when it died.
  const auto rows = timeseries(run);
  CHECK(computed_between(rows, 1.15, 1.95) == 0);
  CHECK(computed_between(rows, 0.15, 0.95) > 100);
}

TEST_CASE("chain replication: K = 1 loses no update, K = 10 rolls back at most 9", "[failures]") {
  for (const int k : {1, 10}) {
    json s = base_scenario();
    s["cluster"]["servers"]["count"] = 3;
    s["recovery"] = {{"strategy", "chain"}, {"chain", {{"every_updates", k}}}};
    s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
    const auto run = run_isolated(s.dump());
    const auto promoted = events_of(run, "promoted");
    REQUIRE(promoted.size() == 1);
    const int lost = promoted[0]["details"]["updates_lost"].get<int>();
    INFO("K = " << k);
    if (k == 1) {
      CHECK(lost == 0);
      CHECK(promoted[0]["details"]["version"] == 25);
    } else {
      CHECK(lost == 5);  // replicated at 20
      CHECK(lost <= 9);
    }
    // Promotion happens at detection, without the restart delay; the replacement joins later.
    const double failed = events_of(run, "failure").at(0)["time"].get<double>();
    CHECK(promoted[0]["time"].get<double>() == Approx(failed + 0.1));
    CHECK(events_of(run, "replica_joined").at(0)["time"].get<double>() >= failed + 0.3);
  }
}

TEST_CASE("stateless: everything computed during the outage is applied at once on return",
          "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["recovery"] = {{"strategy", "stateless"},
                   {"stateless", {{"rule", "paper"}, {"paper_threshold", 50}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at", "1s"}}};
  s["evaluation"]["interval"] = "100ms";
  const auto run = run_isolated(s.dump());
  const auto restart = events_of(run, "restart").at(0);
  const auto applied = events_of(run, "pending_applied").at(0);
  // Workers never stop: 2 workers x 10 ms per gradient over the 300 ms outage = 60 gradients.
  const int pending = applied["details"]["count"].get<int>();
  CHECK(pending == restart["details"]["pending"].get<int>());
  CHECK(pending == Approx(60).margin(3));
  CHECK(applied["details"]["applied"] == pending);
  // The study's rule: more than 50 pending -> learning rate 0.001 for the summed step.
  CHECK(applied["details"]["learning_rate"].get<double>() == Approx(0.001));
  // The pile is the first update since the kill: training resumes exactly then.
  const auto resumed = events_of(run, "training_resumed");
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0]["time"] == applied["time"]);
  CHECK(resumed[0]["details"]["stalled_since"] == events_of(run, "failure").at(0)["time"]);
  CHECK(run.result["summary"]["peak_pending_gradients"].get<int>() >= pending);
  CHECK(run.result["summary"]["hosts"][1]["recovery_wait_seconds"] == 0.0);  // never idle
  // ... and the time series counts them as they are computed, not when they are applied.
  const auto rows = timeseries(run);
  CHECK(computed_between(rows, 1.05, 1.25) == Approx(40).margin(3));  // 2 workers x 200 ms
}

TEST_CASE("stateless with few pending keeps the base learning rate", "[failures]") {
  json s = base_scenario();
  s["recovery"] = {{"strategy", "stateless"},
                   {"stateless", {{"rule", "paper"}, {"paper_threshold", 50}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at", "1s"}}};
  s["timing"]["flops_per_sample"] = 1e7;  // 100 ms per gradient: ~3 pending after 300 ms
  const auto run = run_isolated(s.dump());
  const auto applied = events_of(run, "pending_applied").at(0);
  CHECK(applied["details"]["count"].get<int>() <= 50);
  CHECK(applied["details"]["learning_rate"].get<double>() == Approx(0.05));
}

TEST_CASE(
    "stateless_chain: workers compute through the outage and the promoted replica applies the pile",
    "[failures]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 3;
  s["recovery"] = {{"strategy", "stateless_chain"},
                   {"chain", {{"every_updates", 10}}},
                   {"stateless", {{"rule", "paper"}, {"paper_threshold", 50}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  // One worker, 10 ms per gradient, messages of 8 B with no latency: one gradient per update,
  // update n at n x 10 ms. Versions 10 and 20 are replicated down the chain and published to
  // the store. The head dies right after update 25 (0.25 s) and is detected at 0.35 s.
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(failed == Approx(0.25).margin(1e-5));
  // Replica-0 holds version 20 and is promoted at detection, without the restart delay: the
  // head's updates 21 to 25 (one gradient each) are rolled back.
  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["time"].get<double>() == Approx(failed + 0.1));
  CHECK(promoted[0]["details"]["version"] == 20);
  CHECK(promoted[0]["details"]["updates_lost"] == 5);
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(gradients(run)["rolled_back"] == 5);
  // Meanwhile the worker kept pulling version 20 from the store and pushing: the gradients
  // completed at 0.26 ... 0.34 s (9; the 10th lands a hair after the promotion and is the next
  // update). The new head applies them at once as one update, by the paper rule with 9 <= 50:
  // the base learning rate 0.05.
  const auto applied = events_of(run, "pending_applied");
  REQUIRE(applied.size() == 1);
  CHECK(applied[0]["subject"] == "server-1");
  CHECK(applied[0]["details"]["count"] == promoted[0]["details"]["pending"]);
  CHECK(applied[0]["details"]["count"] == 9);
  CHECK(applied[0]["details"]["applied"] == 9);
  CHECK(applied[0]["details"]["learning_rate"].get<double>() == Approx(0.05));
  CHECK(run.result["summary"]["peak_pending_gradients"] == 9);
  // The worker never waits: 3 s at 10 ms per gradient, less the one in hand at the end. Nothing
  // is lost, and every gradient computed is applied: the 9 of the pile in one update, so 299
  // gradients in 291 updates, of which 5 rolled back.
  CHECK(run.result["summary"]["hosts"][3]["recovery_wait_seconds"] == 0.0);
  CHECK(gradients(run)["computed"] == 299);
  CHECK(gradients(run)["applied"] == 299);
  CHECK(gradients(run)["lost"] == 0);
  CHECK(run.result["summary"]["updates"] == 291);
  CHECK(run.result["summary"]["final"]["version"] == 286);
  // The observer sees version 20 right at the promotion, then version 21 with the pile in it.
  const auto rows = timeseries(run);
  const auto at_promotion = std::find_if(
      rows.begin(), rows.end(), [&](const Row& r) { return r.time > failed && r.version == 20; });
  REQUIRE(at_promotion != rows.end());
  REQUIRE(at_promotion + 1 != rows.end());
  CHECK((at_promotion + 1)->version == 21);
  // The replacement joins at the tail on the old head's host after the restart delay.
  CHECK(events_of(run, "replica_joined").at(0)["time"].get<double>() ==
        Approx(failed + 0.3).margin(1e-5));

  // The same run under "chain": the worker idles until the promotion and 10 fewer gradients
  // are computed.
  s["recovery"] = {{"strategy", "chain"}, {"chain", {{"every_updates", 10}}}};
  const auto chain = run_isolated(s.dump());
  CHECK(chain.result["summary"]["hosts"][3]["recovery_wait_seconds"].get<double>() ==
        Approx(0.1).margin(1e-5));
  CHECK(gradients(chain)["computed"] == 289);
}

TEST_CASE("stateless_chain with K = 1 loses no update and its workers read every version",
          "[failures]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 3;
  s["recovery"] = {{"strategy", "stateless_chain"}, {"chain", {{"every_updates", 1}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  // Every update is acknowledged by the chain and published before the head asks for more:
  // replica-0 holds version 25 when the head dies after it, and nothing is rolled back.
  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["details"]["version"] == 25);
  CHECK(promoted[0]["details"]["updates_lost"] == 0);
  CHECK(run.result["summary"]["updates_rolled_back"] == 0);
  CHECK(gradients(run)["rolled_back"] == 0);
  CHECK(events_of(run, "pending_applied").at(0)["details"]["count"] == 9);
  CHECK(run.result["summary"]["final"]["version"] == run.result["summary"]["updates"]);
  // Staleness: in normal running the worker pulls right after its push, while the update it
  // caused is still being replicated and published, so it computes from the version before:
  // staleness 1. The pile is computed from version 25 and applied to it: 0. The worst is the
  // gradient pulled right after the outage's 10th push, still from version 25, and applied
  // after update 26 (the pile) and 27 (that 10th gradient): 2. With K = 10 it reaches 10.
  CHECK(run.result["summary"]["staleness"]["max"] == 2);
}

TEST_CASE("stateless_chain: with the whole chain dead a new head starts from the store",
          "[failures]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;
  s["recovery"] = {{"strategy", "stateless_chain"},
                   {"chain", {{"every_updates", 10}}},
                   {"stateless", {{"rule", "paper"}, {"paper_threshold", 50}}}};
  // The only replica's host is lost for good after update 12 (0.12 s), detected at 0.22 s.
  // Then the head dies after update 25.
  s["failures"]["events"] = {
      {{"target", "replica"}, {"index", 1}, {"at_update", 12}, {"down_for", "forever"}},
      {{"target", "server"}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  // Version 10 was acknowledged and published. Version 20 (0.2 s) goes to the dead replica,
  // still in the chain: the send times out after 50 ms, so version 20 is never published and
  // the store keeps version 10. The head resumes at 0.25 s: update 21 is the 4 gradients that
  // piled up meanwhile (0.21 ... 0.24 s), updates 22 to 25 one each (0.25 ... 0.28 s). It dies
  // after update 25 at 0.28 s, with 28 gradients applied.
  const auto incomplete = events_of(run, "replication_incomplete");
  REQUIRE(incomplete.size() == 1);
  CHECK(incomplete[0]["details"]["version"] == 20);
  CHECK(incomplete[0]["time"].get<double>() == Approx(0.25).margin(1e-5));
  const double failed = events_of(run, "failure").at(1)["time"].get<double>();
  CHECK(failed == Approx(0.28).margin(1e-5));
  // At detection no replica is left: the store's version 10 is the newest copy. Updates 11 to
  // 25 are rolled back: 15 updates holding 28 - 10 = 18 gradients.
  const auto no_replica = events_of(run, "no_replica");
  REQUIRE(no_replica.size() == 1);
  CHECK(no_replica[0]["time"].get<double>() == Approx(failed + 0.1));
  CHECK(no_replica[0]["details"]["version"] == 10);
  CHECK(events_of(run, "promoted").empty());
  CHECK(run.result["summary"]["updates_rolled_back"] == 15);
  CHECK(gradients(run)["rolled_back"] == 18);
  // The stateless recovery: the old head's host is the first replacement due (0.58 s, detection
  // + restart delay); instead of joining as a replica it runs the new head, which reads version
  // 10 from the store and applies the 29 gradients computed since the failure at the base rate
  // (29 <= 50).
  const auto restart = events_of(run, "restart");
  REQUIRE(restart.size() == 1);
  CHECK(restart[0]["time"].get<double>() == Approx(failed + 0.3));
  CHECK(restart[0]["details"]["host"] == "server-0");
  const auto applied = events_of(run, "pending_applied");
  REQUIRE(applied.size() == 1);
  CHECK(applied[0]["details"]["count"] == restart[0]["details"]["pending"]);
  CHECK(applied[0]["details"]["count"] == 29);
  CHECK(applied[0]["details"]["learning_rate"].get<double>() == Approx(0.05));
  CHECK(run.result["summary"]["hosts"][2]["recovery_wait_seconds"] == 0.0);
  CHECK(gradients(run)["computed"] == 299);
  CHECK(gradients(run)["applied"] == 299);
  CHECK(run.result["summary"]["final"]["version"] ==
        run.result["summary"]["updates"].get<int>() - 15);
}

TEST_CASE("stateless_chain: a replica's host runs the new head when the old one is lost for good",
          "[failures]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;
  s["recovery"] = {{"strategy", "stateless_chain"}, {"chain", {{"every_updates", 10}}}};
  // The replica's process crashes at 0.2 s (its host stays up), just as the head sends it
  // version 20: the head waits for the acknowledgement, and its host is lost for good at
  // 0.25 s, before the 50 ms request timeout, with version 20 never published (the store keeps
  // version 10).
  s["failures"]["events"] = {{{"target", "replica"}, {"index", 1}, {"at", "200ms"}},
                             {{"target", "server"}, {"at", "250ms"}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "replication_incomplete").empty());  // the head died waiting
  // Detected at 0.35 s with no live replica (the replica's failure was detected at 0.3 s):
  // versions 11 to 20, one gradient each, are rolled back; 14 gradients (0.21 ... 0.34 s) wait
  // in the store.
  const auto no_replica = events_of(run, "no_replica");
  REQUIRE(no_replica.size() == 1);
  CHECK(no_replica[0]["time"].get<double>() == Approx(0.35));
  CHECK(no_replica[0]["details"]["version"] == 10);
  CHECK(no_replica[0]["details"]["pending"] == 14);
  CHECK(run.result["summary"]["updates_rolled_back"] == 10);
  CHECK(gradients(run)["rolled_back"] == 10);
  // The old head's host never comes back; the replica's replacement comes due at 0.3 + 0.2 s
  // and, with no live copy to join, runs the new head from the store's version 10. It applies
  // the 29 gradients of 0.21 ... 0.49 s as one update.
  const auto restart = events_of(run, "restart");
  REQUIRE(restart.size() == 1);
  CHECK(restart[0]["time"].get<double>() == Approx(0.5));
  CHECK(restart[0]["details"]["host"] == "server-1");
  CHECK(events_of(run, "pending_applied").at(0)["details"]["count"] == 29);
  CHECK(events_of(run, "no_replacement").empty());
  CHECK(gradients(run)["computed"] == 299);
  CHECK(gradients(run)["applied"] == 299);
  CHECK(run.result["summary"]["final"]["version"] ==
        run.result["summary"]["updates"].get<int>() - 10);
}

TEST_CASE("a replacement due at the instant of a promotion joins from the promoted replica",
          "[failures]") {
  // Durations exact in binary, so that two events fall on the same instant: replica position 1
  // dies at 0.25 s, is detected at 0.375 s and its replacement comes due at 0.625 s, the instant
  // the head (killed at 0.5 s) is detected and replica-1 promoted. Under stateless_chain the
  // promotion used to take replica-1 out of the chain (killing its process lets other actors
  // run) before the new head existed: the joiner then found no live node and recorded
  // no_replacement. Under chain, clearing the coordinator's primary lets the joiner run before
  // the promotion starts; it is checked the same way.
  for (const char* strategy : {"chain", "stateless_chain"}) {
    INFO(strategy);
    json s = base_scenario();
    s["cluster"]["servers"]["count"] = 3;
    s["recovery"] = {{"strategy", strategy}, {"chain", {{"every_updates", 10}}}};
    s["failures"]["detection_timeout"] = "125ms";
    s["failures"]["restart_delay"] = "250ms";
    s["failures"]["events"] = {{{"target", "replica"}, {"index", 1}, {"at", "250ms"}},
                               {{"target", "server"}, {"at", "500ms"}}};
    const auto run = run_isolated(s.dump());
    const auto promoted = events_of(run, "promoted");
    REQUIRE(promoted.size() == 1);
    CHECK(promoted[0]["time"] == 0.625);
    CHECK(events_of(run, "no_replacement").empty());
    const auto joined = events_of(run, "replica_joined");
    REQUIRE(joined.size() == 2);  // replica-0's host at 0.625 s, the old head's at 0.875 s
    CHECK(joined[0]["details"]["host"] == "server-1");
    CHECK(joined[0]["details"]["version"] == promoted[0]["details"]["version"]);
    CHECK(joined[0]["time"].get<double>() == Approx(0.625).margin(1e-3));
  }
}

TEST_CASE("a worker failure under the stateless strategies leaves their server alone",
          "[failures]") {
  // The detection of a worker's failure tells the primary server the membership changed. A
  // stateless server's mailbox receives only the store's answers: that message, read as one,
  // crashed the run (segmentation fault) before these strategies ignored it.
  for (const char* strategy : {"stateless", "stateless_chain"}) {
    INFO(strategy);
    json s = base_scenario();
    s["cluster"]["workers"]["count"] = 2;
    s["cluster"]["servers"]["count"] = std::string(strategy) == "stateless" ? 1 : 2;
    s["recovery"] = {{"strategy", strategy}};
    s["failures"]["events"] = {
        {{"target", "worker"}, {"index", 0}, {"at", "1s"}, {"down_for", "500ms"}}};
    const auto run = run_isolated(s.dump());
    CHECK(run.result["summary"]["status"] == "completed");
    CHECK(events_of(run, "detected").size() == 1);
    CHECK(gradients(run)["applied"].get<int>() > 400);
  }
}

TEST_CASE("a worker killed in sync mode does not stall the others", "[failures]") {
  json s = base_scenario();
  s["consistency"] = {{"mode", "sync"}};
  s["cluster"]["workers"]["count"] = 2;
  s["failures"]["events"] = {
      {{"target", "worker"}, {"index", 1}, {"at", "1s"}, {"down_for", "1s"}}};
  const auto run = run_isolated(s.dump());
  CHECK(run.result["summary"]["status"] == "completed");
  const double restart = events_of(run, "restart").at(0)["time"].get<double>();
  CHECK(restart == Approx(2.0));  // the host is back at 2 s, after detection + restart delay
  // Rounds: 10 ms each. With 2 workers for ~1 s, 1 worker for ~0.9 s (the 100 ms until
  // detection stall), then 2 workers again for ~1 s: updates keep coming throughout.
  const auto rows = timeseries(run);
  REQUIRE(rows.size() >= 3);
  CHECK(rows[2].version - rows[1].version > 80);  // between 1 s and 2 s, one live worker
  CHECK(run.result["summary"]["updates"].get<int>() > 250);
  CHECK(run.result["summary"]["hosts"][2]["down_seconds"] == 1.0);
}

TEST_CASE("stochastic failures happen at the rate the MTBF implies", "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 4;
  s["timing"]["flops_per_sample"] = 1e7;
  s["evaluation"] = {{"interval", "100s"}, {"final_full_test", false}};
  s["failures"]["restart_delay"] = 0;
  s["failures"]["stochastic"] = {{{"target", "worker"},
                                  {"lifetime", {{"distribution", "exponential"}, {"mean", "2s"}}},
                                  {"repair", {{"distribution", "fixed"}, {"value", "0.5s"}}}}};
  s["stop"] = {{"time", "500s"}};
  const auto run = run_isolated(s.dump());
  // Each worker fails once per (2 s up + 0.5 s down) on average: 4 x 500 / 2.5 = 800.
  const auto failures = events_of(run, "failure").size();
  CHECK(static_cast<double>(failures) ==
        Approx(800).margin(4 * std::sqrt(800.0 * 0.64)));  // 4 sigma
}

TEST_CASE("a worker's link fails: that worker waits, the others go on, nobody is restarted",
          "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["failures"]["events"] = {
      {{"target", "worker_link"}, {"index", 1}, {"at", "1s"}, {"down_for", "500ms"}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "link_failure").at(0)["subject"] == "worker-1-link");
  CHECK(events_of(run, "link_up").at(0)["time"].get<double>() == Approx(1.5));
  CHECK(events_of(run, "detected").empty());  // no process died
  CHECK(events_of(run, "restart").empty());
  const auto& hosts = run.result["summary"]["hosts"];
  CHECK(hosts[1]["recovery_wait_seconds"] == 0.0);
  // Worker 1 waits out the outage, in request-timeout steps (50 ms).
  CHECK(hosts[2]["recovery_wait_seconds"].get<double>() == Approx(0.5).margin(0.06));
  CHECK(gradients(run)["lost"].get<int>() <= 1);
}

TEST_CASE("the server's link fails: every worker waits until it is back", "[failures]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["failures"]["events"] = {{{"target", "server_link"}, {"at", "1s"}, {"down_for", "500ms"}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "link_failure").at(0)["subject"] == "server-0-link");
  CHECK(events_of(run, "detected").empty());
  const auto& hosts = run.result["summary"]["hosts"];
  for (int h : {1, 2})
    CHECK(hosts[h]["recovery_wait_seconds"].get<double>() == Approx(0.5).margin(0.06));
  CHECK(run.result["summary"]["status"] == "completed");
  CHECK(run.result["summary"]["updates"].get<int>() > 300);
}

TEST_CASE("a push that completes at the instant its server dies is counted lost", "[failures]") {
  // The chain example with its head killed at 0.5 s: a worker's push completes at the kill's
  // instant, and the worker counts it delivered only after kill() counted the dead head's
  // unapplied gradients. Before the fix that gradient was in no count, and the run aborted on
  // its own accounting check ("computed 2330 != applied 2328 + dropped 0 + lost 1 + pending 0").
  const json s = json::parse(
      failsim::testing::read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/chain-kill.json"));
  json edited = s;
  edited["failures"]["events"][0]["at"] = "0.5s";
  const auto run = run_isolated(edited.dump());  // run() checks the accounting itself
  CHECK(run.result["summary"]["status"] == "completed");
  CHECK(gradients(run)["computed"] == 2330);
  CHECK(gradients(run)["applied"] == 2328);
  CHECK(gradients(run)["lost"] == 2);
}

// Multi-level checkpoints (docs/strategies.md). With the base scenario's 8-byte state every
// copy, write and read is (almost) free, so only the choice of level matters: one worker, one
// gradient per update, 10 ms per update. The levels below snapshot to memory every 5 updates,
// write to the server host's disk every 10 and to the storage host every 20 (or 50). The server
// dies right after update 27: memory then holds version 25, the local disk 20, remote 20 (or
// nothing).
namespace {
json multilevel(bool memory, int remote_every) {
  json levels = json::array();
  if (memory) levels.push_back({{"kind", "memory"}, {"every_updates", 5}});
  levels.push_back({{"kind", "local-disk"}, {"every_updates", 10}});
  levels.push_back({{"kind", "remote"}, {"every_updates", remote_every}});
  return {{"strategy", "checkpoint"}, {"checkpoint", {{"levels", levels}}}};
}
}  // namespace

TEST_CASE("multi-level: a process crash restores the memory snapshot of version 25",
          "[failures][multilevel]") {
  json s = base_scenario();
  s["recovery"] = multilevel(true, 20);
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 27}}};
  const auto run = run_isolated(s.dump());
  // The host stayed up: its memory (and the agents holding it) survived the server process.
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "memory");
  CHECK(loaded[0]["details"]["version"] == 25);
  CHECK(loaded[0]["details"]["updates_lost"] == 2);
  CHECK(run.result["summary"]["updates_rolled_back"] == 2);
  CHECK(gradients(run)["rolled_back"] == 2);
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(loaded[0]["time"].get<double>() == Approx(failed + 0.3).margin(1e-3));
  // Snapshots at 5, 10, 15, 20, 25 before the crash; persisted copies of 10 and 20 locally and
  // 20 remotely.
  std::vector<long> before;
  for (const auto& e : events_of(run, "checkpoint_snapshot")) {
    if (e["time"].get<double>() < failed) before.push_back(e["details"]["version"].get<long>());
  }
  CHECK(before == std::vector<long>{5, 10, 15, 20, 25});
  const auto rows = timeseries(run);
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const Row& r) { return r.time > failed && r.version == 25; });
  REQUIRE(it != rows.end());
  CHECK(it->accuracy == accuracy_of(s.dump(), sgd_by_hand(s.dump(), 25)));
}

TEST_CASE("multi-level: without a memory level a process crash restores the local disk",
          "[failures][multilevel]") {
  json s = base_scenario();
  s["recovery"] = multilevel(false, 50);
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 27}}};
  const auto run = run_isolated(s.dump());
  // Local disk: version 20; remote: nothing yet (every 50).
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "local-disk");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 7);
  CHECK(run.result["summary"]["updates_rolled_back"] == 7);
  const auto written = events_of(run, "checkpoint_written");
  REQUIRE(written.size() >= 2);
  CHECK(written[0]["subject"] == "server-0:local-disk");
  CHECK(written[1]["details"]["version"] == 20);
}

TEST_CASE("multi-level: a host failure loses the memory level and restores the local disk",
          "[failures][multilevel]") {
  json s = base_scenario();
  s["recovery"] = multilevel(true, 50);
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 27}, {"down_for", "1s"}}};
  const auto run = run_isolated(s.dump());
  // Memory held version 25 but went down with the host; its disk kept 20; remote has nothing.
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "local-disk");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 7);
  CHECK(gradients(run)["rolled_back"] == 7);
  // The restart waits for the host (back 1 s after the failure, later than 0.1 + 0.2 s).
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(events_of(run, "restart").at(0)["time"].get<double>() == Approx(failed + 1.0));
  CHECK(loaded[0]["time"].get<double>() == Approx(failed + 1.0).margin(1e-3));
}

TEST_CASE("multi-level: a host lost for good restarts on a spare host from the remote copy",
          "[failures][multilevel]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;  // server-1 is the spare
  s["recovery"] = multilevel(true, 20);
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 27}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  // server-0's memory (25) and disk (20) are gone with it; the storage host has 20.
  const auto restart = events_of(run, "restart");
  REQUIRE(restart.size() == 1);
  CHECK(restart[0]["details"]["host"] == "server-1");
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(restart[0]["time"].get<double>() == Approx(failed + 0.3));
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "remote");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 7);
  CHECK(run.result["summary"]["updates_rolled_back"] == 7);
  // Training goes on on server-1: its snapshots and local writes appear after the restart.
  const auto written = events_of(run, "checkpoint_written");
  CHECK(std::any_of(written.begin(), written.end(),
                    [](const json& e) { return e["subject"] == "server-1:local-disk"; }));
  CHECK(run.result["summary"]["updates"].get<int>() > 200);
}

TEST_CASE("multi-level: the server blocks only for the memory copy while a slow write goes on",
          "[failures][multilevel]") {
  json s = base_scenario();
  // A 1 MB state: a snapshot at 100 MB/s takes 10 ms; the storage writes it at 1 MB/s (1 s).
  s["timing"]["param_bytes"] = "1MB";
  s["cluster"]["storage"] = {{"disk_write", "1MBps"}};
  s["recovery"] = {{"strategy", "checkpoint"},
                   {"checkpoint",
                    {{"memory_bandwidth", "100MBps"},
                     {"levels", {{{"kind", "remote"}, {"every_updates", 10}}}}}}};
  const auto run = run_isolated(s.dump());
  const auto snapshots = events_of(run, "checkpoint_snapshot");
  REQUIRE(snapshots.size() > 10);
  for (const auto& e : snapshots) CHECK(e["details"]["seconds"].get<double>() == Approx(0.01));
  // An update takes about 10.7 ms, so a snapshot comes every ~117 ms (10 updates + the copy):
  // over 3 s about 250 updates, where a blocking 1 s write every 10 updates would allow ~30.
  CHECK(run.result["summary"]["updates"].get<int>() > 200);
  // The first write (version 10) ends about 1 s after its snapshot; the snapshots taken meanwhile
  // replace one another while waiting, and the newest of them is the next one written.
  const auto written = events_of(run, "checkpoint_written");
  REQUIRE(written.size() >= 2);
  CHECK(written[0]["details"]["version"] == 10);
  CHECK(written[0]["time"].get<double>() ==
        Approx(snapshots[0]["time"].get<double>() + 1.0).margin(5e-3));
  long newest_before = 0;
  for (const auto& e : snapshots) {
    if (e["time"].get<double>() <= written[0]["time"].get<double>())
      newest_before = e["details"]["version"].get<long>();
  }
  CHECK(written[1]["details"]["version"] == newest_before);
  CHECK(newest_before >= 80);
  CHECK(events_of(run, "checkpoint_superseded").size() >= 7);
}

// The peer level: copies in other hosts' memory (as in Gemini). Memory every 5, a copy in
// worker-0's memory every 10, remote every 20; two server hosts (server-1 the spare). The
// server's host is lost for good right after update 35: memory (35) goes with it, worker-0
// keeps 30, the storage host 20.
namespace {
json with_peers() {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;
  s["recovery"] = {{"strategy", "checkpoint"},
                   {"checkpoint",
                    {{"levels",
                      {{{"kind", "memory"}, {"every_updates", 5}},
                       {{"kind", "peer"}, {"every_updates", 10}, {"copies", 1}},
                       {{"kind", "remote"}, {"every_updates", 20}}}}}}};
  return s;
}
}  // namespace

TEST_CASE("multi-level peer: a host lost for good is restored from a surviving peer's memory",
          "[failures][multilevel]") {
  json s = with_peers();
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 35}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "peer");
  CHECK(loaded[0]["details"]["peer"] == "worker-0");
  CHECK(loaded[0]["details"]["version"] == 30);
  CHECK(loaded[0]["details"]["updates_lost"] == 5);
  CHECK(events_of(run, "restart").at(0)["details"]["host"] == "server-1");
  const auto written = events_of(run, "checkpoint_written");
  CHECK(std::any_of(written.begin(), written.end(),
                    [](const json& e) { return e["subject"] == "worker-0:peer"; }));
}

TEST_CASE("multi-level peer: with the peer lost too the remote copy is restored",
          "[failures][multilevel]") {
  json s = with_peers();
  s["cluster"]["workers"]["count"] = 2;
  // A correlated failure: worker-0's host (the peer) and the server's host, both for good.
  s["failures"]["events"] = {
      {{"target", "worker"}, {"index", 0}, {"at_update", 35}, {"down_for", "forever"}},
      {{"target", "server"}, {"at_update", 35}, {"down_for", "forever"}}};
  const auto run = run_isolated(s.dump());
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["details"]["level"] == "remote");
  CHECK(loaded[0]["details"]["version"] == 20);
  CHECK(loaded[0]["details"]["updates_lost"] == 15);
  CHECK(run.result["summary"]["updates_rolled_back"] == 15);
}
