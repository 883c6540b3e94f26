// The mapping of Daly's checkpoint model onto failsim that docs/validation.md rests on, checked
// on the validation scenario itself (scenarios/validation/daly-a.json) with scheduled failures
// instead of random ones: a blocking checkpoint costs delta = 1 s, a failure loses exactly the
// work since the last checkpoint and costs R = 2 s of restart, and a failure while the storage
// writes the checkpoint loses no work (where Daly's model loses the segment). One forked child
// per simulation (sim_harness.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "sim_harness.hpp"
#include "sweep/plan.hpp"

using failsim::testing::events_of;
using failsim::testing::run_isolated;
using nlohmann::json;

namespace {
// daly-a.json: 2 s per update (20 Mflop at 10 Mflop/s), a 1.9 MB state written at 1.9 MB/s and
// read at 1 MB/s, detection 100 ms, no restart delay. Three checkpoints of 12 updates.
json validation_scenario() {
  json s = json::parse(
      failsim::testing::read_file(FAILSIM_SOURCE_DIR "/scenarios/validation/daly-a.json"));
  s["failures"]["stochastic"] = json::array();
  s["recovery"]["checkpoint"]["every_updates"] = 12;
  s["stop"]["version"] = 36;
  return s;
}

double end_time(const failsim::testing::IsolatedRun& run) {
  return run.result["summary"]["end_time"].get<double>();
}

// 1.9 MB over a 1 Tbps link under SimGrid's LV08 model (97% of the bandwidth, no latency here):
// the state message, a parameter message and a gradient message each take this long.
constexpr double STATE_TRANSFER = 1.9e6 / (0.97 * 1.25e11);
constexpr double DELTA = 1.0 + STATE_TRANSFER;  // disk write 1.9 MB at 1.9 MB/s, plus the transfer
constexpr double R = 0.1 + 1.9 + STATE_TRANSFER;  // detection, disk read 1.9 MB at 1 MB/s, transfer
}  // namespace

TEST_CASE("Daly mapping: delta, the work lost and R in the validation scenario", "[validation]") {
  const json base = validation_scenario();
  const auto free_run = run_isolated(base.dump());
  REQUIRE(free_run.result["summary"]["stop_reason"] == "version");
  const auto blocked = events_of(free_run, "checkpoint_blocked");
  REQUIRE(blocked.size() == 3);  // versions 12, 24, 36: the last one ends the run
  for (const auto& b : blocked) {
    CHECK(b["details"]["seconds"].get<double>() == Approx(DELTA).margin(1e-6));
  }
  // The failure-free time: 36 updates of 2 s (plus 33 us of messages) and three checkpoints.
  CHECK(end_time(free_run) == Approx(36 * 2.0 + 3 * DELTA).margin(36 * 5e-5));
  const double first_checkpoint = blocked[0]["time"].get<double>();  // about 25.0004 s

  SECTION("a failure in the middle of a segment loses the work since the checkpoint, then R") {
    json s = base;
    const double failure = first_checkpoint + 9.0;  // four updates after version 12
    s["failures"]["events"] = {{{"target", "server"}, {"at", failure}}};
    const auto run = run_isolated(s.dump());
    const auto loaded = events_of(run, "checkpoint_loaded");
    REQUIRE(loaded.size() == 1);
    CHECK(loaded[0]["details"]["version"] == 12);
    CHECK(loaded[0]["details"]["updates_lost"] == 4);
    CHECK(loaded[0]["time"].get<double>() == Approx(failure + R).margin(1e-6));
    // Nothing else changes: the run is late by the 9 s of lost work and the restart.
    CHECK(end_time(run) == Approx(end_time(free_run) + 9.0 + R).margin(1e-4));
  }

  SECTION("a failure while the storage writes the checkpoint loses no work") {
    json s = base;
    const double failure = first_checkpoint - 0.5;  // half-way through the disk write
    s["failures"]["events"] = {{{"target", "server"}, {"at", failure}}};
    const auto run = run_isolated(s.dump());
    const auto written = events_of(run, "checkpoint_written");
    REQUIRE(!written.empty());
    CHECK(written[0]["details"]["version"] == 12);
    CHECK(written[0]["time"].get<double>() == Approx(first_checkpoint).margin(1e-6));
    // The new server (up 100 ms after the failure) waits for the write, then reads for 1.9 s.
    const auto loaded = events_of(run, "checkpoint_loaded");
    REQUIRE(loaded.size() == 1);
    CHECK(loaded[0]["details"]["version"] == 12);
    CHECK(loaded[0]["details"]["updates_lost"] == 0);
    CHECK(loaded[0]["time"].get<double>() == Approx(first_checkpoint + R - 0.1).margin(1e-6));
    CHECK(end_time(run) == Approx(end_time(free_run) + R - 0.1).margin(1e-4));
  }

  SECTION("a failure during detection kills nothing; one during the read restarts it") {
    json s = base;
    const double failure = first_checkpoint + 9.0;
    s["failures"]["events"] = {{{"target", "server"}, {"at", failure}},
                               {{"target", "server"}, {"at", failure + 0.05}},
                               {{"target", "server"}, {"at", failure + 1.0}}};
    const auto run = run_isolated(s.dump());
    CHECK(events_of(run, "failure_skipped").size() == 1);  // no server until the detection
    const auto failures = events_of(run, "failure");
    REQUIRE(failures.size() == 2);
    CHECK(failures[1]["details"]["process"] == "server-1");  // the server reading the checkpoint
    // The storage finishes the dead server's read before it serves the next one.
    const auto loaded = events_of(run, "checkpoint_loaded");
    REQUIRE(loaded.size() == 1);
    CHECK(loaded[0]["subject"] == "server-2");
    CHECK(loaded[0]["time"].get<double>() ==
          Approx(failure + 0.1 + 2 * (R - 0.1) - STATE_TRANSFER).margin(1e-5));
  }
}

TEST_CASE("the validation sweeps are what docs/validation.md models", "[validation]") {
  // Daly's published cases scaled to delta = 1 s: M / delta = 288, 72, 3; R = 2 s; T_s = 20 M.
  const struct {
    const char* name;
    double M;
    double c;
    int N;
  } settings[] = {{"daly-a", 288, 2.0, 2880}, {"daly-b", 72, 1.0, 1440}, {"daly-c", 3, 0.15, 400}};
  for (const auto& setting : settings) {
    INFO(setting.name);
    const auto plan = failsim::sweep::expand_sweep(failsim::sweep::load_sweep(
        std::string(FAILSIM_SOURCE_DIR "/scenarios/validation/") + setting.name + ".sweep.json"));
    CHECK(plan.paths == std::vector<std::string>{"/recovery/checkpoint/every_updates"});
    REQUIRE(plan.points.size() == 11);
    CHECK(plan.runs.size() == 11 * 40);
    for (const auto& point : plan.points) {
      const json& s = point.scenario;
      CHECK(s["cluster"]["workers"]["count"] == 1);
      CHECK(s["consistency"]["mode"] == "async");
      const json& f = s["failures"];
      REQUIRE(f["stochastic"].size() == 1);
      CHECK(f["stochastic"][0]["target"] == "server");
      CHECK(f["stochastic"][0]["lifetime"] ==
            json({{"distribution", "exponential"}, {"mean", setting.M}}));
      CHECK(f["stochastic"][0]["repair"] == json({{"distribution", "fixed"}, {"value", 0.0}}));
      CHECK(f["events"].empty());
      CHECK(s["recovery"]["checkpoint"]["blocking"] == true);
      CHECK(s["stop"]["version"] == setting.N);
      // c: the gradient's flops over the worker's speed.
      const double flops =
          s["timing"]["flops_per_sample"].get<double>() * s["optimizer"]["batch_size"].get<int>();
      CHECK(flops / s["cluster"]["workers"]["speed"].get<double>() == Approx(setting.c));
      // delta = 1 s of disk write, R = 100 ms of detection and 1.9 s of disk read.
      const double bytes = s["timing"]["param_bytes"].get<double>();
      CHECK(bytes / s["cluster"]["storage"]["disk_write"].get<double>() == Approx(1.0));
      CHECK(f["detection_timeout"] == 0.1);
      CHECK(f["restart_delay"] == 0.0);
      CHECK(bytes / s["cluster"]["storage"]["disk_read"].get<double>() == Approx(1.9));
    }
  }
}
