// Simulation tests: small scenarios whose outcome can be worked out by hand. Each simulation
// runs in its own child process (sim_harness.hpp).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "models/optimizer.hpp"
#include "reproducible.hpp"
#include "sim/engine/optimizer_config.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"

using failsim::testing::run_isolated;
using nlohmann::json;

namespace {
// CM02 without cross traffic: a transfer of b bytes over a route takes exactly
// (sum of latencies) + b / (smallest bandwidth), so times can be computed by hand.
const std::vector<std::string> EXACT_NETWORK{"--cfg=network/model:CM02",
                                             "--cfg=network/crosstraffic:0"};

json base_scenario() {
  return json::parse(R"({
    "name": "test",
    "seed": 3,
    "data": {"kind": "synthetic", "num_classes": 4, "dim": 8, "train_size": 2000, "test_size": 400},
    "model": {"kind": "softmax"},
    "optimizer": {"learning_rate": 0.05, "batch_size": 10},
    "cluster": {"workers": {"count": 1, "speed": "1Gf"}, "servers": {"speed": "1Gf"},
                "network": {"bandwidth": "10Gbps", "latency": "10us"}},
    "consistency": {"mode": "async"},
    "evaluation": {"interval": "1s"},
    "stop": {"updates": 20}
  })");
}

double summary_number(const failsim::testing::IsolatedRun& run, const char* key) {
  return run.result["summary"][key].get<double>();
}
}  // namespace

TEST_CASE("one sync worker: N updates take what compute and transfers give by hand",
          "[simulation]") {
  json s = base_scenario();
  s["consistency"] = {{"mode", "sync"}};
  s["cluster"]["workers"]["speed"] = 1e9;                             // flop/s
  s["cluster"]["servers"]["speed"] = 1e7;                             // flop/s
  s["cluster"]["network"] = {{"bandwidth", 1e8}, {"latency", 1e-3}};  // bytes/s, s per link
  s["timing"] = {{"flops_per_sample", 1e6}, {"param_bytes", 1e6}};
  s["stop"] = {{"updates", 5}};
  const auto run = run_isolated(s.dump(), EXACT_NETWORK);

  // Each route crosses two links (worker's and server's): latency 2 ms.
  const double pull = 2e-3 + 64 / 1e8;         // a pull request (64 bytes)
  const double transfer = 2e-3 + 1e6 / 1e8;    // parameters or a gradient: 12 ms
  const double compute = 1e6 * 10 / 1e9;       // 10 samples: 10 ms
  const double apply = 2.0 * (1e6 / 4) / 1e7;  // 2 flops per parameter on the server: 50 ms
  // The next pull travels while the server applies (50 ms > 2 ms), so it costs nothing extra.
  const double expected = pull + 5 * (transfer + compute + transfer + apply);
  CHECK(summary_number(run, "end_time") == Approx(expected).epsilon(1e-9));
  CHECK(run.result["summary"]["updates"] == 5);
  CHECK(run.result["summary"]["stop_reason"] == "updates");
  const auto& worker = run.result["summary"]["hosts"][1];
  CHECK(worker["host"] == "worker-0");
  CHECK(worker["busy_seconds"].get<double>() == Approx(5 * compute));
}

TEST_CASE("a server that evaluates in its loop spends that time every N updates", "[simulation]") {
  // The sync test's timings, async (one worker: the same protocol), with an evaluation of 3e5
  // flops (30 ms on the server's 1e7 flop/s) after every second update: after updates 2 and 4.
  json s = base_scenario();
  s["cluster"]["workers"]["speed"] = 1e9;
  s["cluster"]["servers"]["speed"] = 1e7;
  s["cluster"]["network"] = {{"bandwidth", 1e8}, {"latency", 1e-3}};
  s["timing"] = {{"flops_per_sample", 1e6},
                 {"param_bytes", 1e6},
                 {"server_evaluation", {{"every_updates", 2}, {"flops", 3e5}}}};
  s["stop"] = {{"updates", 5}};
  const auto run = run_isolated(s.dump(), EXACT_NETWORK);

  const double pull = 2e-3 + 64 / 1e8, transfer = 2e-3 + 1e6 / 1e8, compute = 1e6 * 10 / 1e9;
  const double apply = 2.0 * (1e6 / 4) / 1e7, evaluate = 3e5 / 1e7;
  // The worker's next pull waits in the mailbox while the server evaluates.
  CHECK(summary_number(run, "end_time") ==
        Approx(pull + 5 * (transfer + compute + transfer + apply) + 2 * evaluate).epsilon(1e-9));
  const auto& server = run.result["summary"]["hosts"][0];
  CHECK(server["host"] == "server-0");
  CHECK(server["busy_seconds"].get<double>() == Approx(5 * apply + 2 * evaluate));
  CHECK(run.result["scenario"]["timing"]["server_evaluation"] ==
        json{{"every_updates", 2}, {"flops", 3e5}});

  // Without it, the same run is 60 ms shorter.
  s["timing"].erase("server_evaluation");
  const auto plain = run_isolated(s.dump(), EXACT_NETWORK);
  CHECK(summary_number(plain, "end_time") ==
        Approx(pull + 5 * (transfer + compute + transfer + apply)).epsilon(1e-9));
}

namespace {
// The same updates applied by hand in models/, with the simulator's own data streams: `updates`
// of them, and when `skipped` > 0, that many batches of the stream passed over after update
// `resumed_from` (a server rolled back to its checkpoint of that version while the worker's
// stream went on), with the optimiser's state kept or, when `keep_state` is false, a fresh one.
std::vector<float> by_hand(const json& s, int updates, int resumed_from = 0, int skipped = 0,
                           bool keep_state = true) {
  const failsim::sim::Scenario scenario = failsim::sim::parse_scenario_text(s.dump(), "hand.json");
  failsim::sim::TrainingMath math(scenario);
  auto snapshot = std::make_shared<failsim::sim::Snapshot>(*math.initial_snapshot());
  failsim::models::Optimizer optimizer =
      failsim::sim::make_optimizer(scenario.optimizer, snapshot->params.size());
  auto stream = math.batch_stream(0);
  failsim::models::FloatBuffer grad(snapshot->params.size());
  for (int k = 0; k < updates; ++k) {
    if (k == resumed_from) {
      for (int i = 0; i < skipped; ++i) static_cast<void>(stream.next());
      if (!keep_state) optimizer.reset();
    }
    math.gradient(*snapshot, stream.next(), math.dropout_seed(0, k), grad);
    optimizer.step(snapshot->params, grad);
    ++snapshot->version;
  }
  return {snapshot->params.begin(), snapshot->params.end()};
}
}  // namespace

TEST_CASE("the simulator does not change the math: final parameters equal updates by hand",
          "[simulation]") {
  const char* mode = GENERATE("sync", "async");
  // SGD with momentum and decay, and AdamW with every piece of its schedule within the run.
  const json optimizers[] = {
      {{"learning_rate", 0.05}, {"momentum", 0.9}, {"weight_decay", 1e-4}, {"batch_size", 16}},
      {{"kind", "adamw"},
       {"learning_rate", 0.01},
       {"warmup_steps", 5},
       {"decay_steps", 30},
       {"clip_norm", 0.5},
       {"batch_size", 16}}};
  const json& optimizer = optimizers[GENERATE(0, 1)];
  json s = base_scenario();
  s["model"] = {{"kind", "mlp"}, {"hidden", {16}}};
  s["optimizer"] = optimizer;
  s["consistency"] = {{"mode", mode}};
  s["stop"] = {{"updates", 40}};  // more than one pass over the shard: reshuffling included
  s["data"]["train_size"] = 300;
  const auto run = run_isolated(s.dump());
  REQUIRE(run.result["summary"]["updates"] == 40);
  const auto expected = by_hand(s, 40);
  REQUIRE(run.final_params.size() == expected.size());
  CHECK(run.final_params == expected);
}

TEST_CASE("a server restored from its checkpoint resumes AdamW from the checkpoint's state",
          "[simulation]") {
  // One worker; a checkpoint every 10 updates; the server dies after update 25 and its
  // replacement loads checkpoint 20: the parameters, both moments and the count of steps (the
  // bias corrections and the warm-up and decay go on from step 21). The worker's stream went on:
  // the rolled-back updates' batches and the lost gradients' are not drawn again. By hand: 20
  // steps, those batches passed over, 20 more steps from the checkpoint's state.
  json s = base_scenario();
  s["optimizer"] = {{"kind", "adamw"},   {"learning_rate", 0.02}, {"warmup_steps", 10},
                    {"decay_steps", 35}, {"clip_norm", 0.5},      {"batch_size", 10}};
  s["timing"] = {{"flops_per_sample", 1e6}, {"param_bytes", 8}};
  s["failures"] = {{"detection_timeout", "100ms"},
                   {"restart_delay", "200ms"},
                   {"request_timeout", "50ms"},
                   {"events", {{{"target", "server"}, {"at_update", 25}}}}};
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["stop"] = {{"version", 40}, {"time", "10s"}};
  const auto run = run_isolated(s.dump());
  REQUIRE(run.result["summary"]["final"]["version"] == 40);
  REQUIRE(events_of(run, "checkpoint_loaded").at(0)["details"]["version"] == 20);
  const json& gradients = run.result["summary"]["gradients"];
  const int skipped = gradients["rolled_back"].get<int>() + gradients["lost"].get<int>();
  CHECK(gradients["rolled_back"] == 5);
  REQUIRE(run.final_params == by_hand(s, 40, 20, skipped));
  // A replacement with a fresh AdamW would not give these parameters: the restored moments
  // matter (the comparison can fail).
  CHECK(run.final_params != by_hand(s, 40, 20, skipped, false));
}

TEST_CASE("async staleness follows the worker speeds", "[simulation]") {
  // Compute-bound: the fast worker (3 Gf) finishes three gradients per gradient of the slow
  // one (1 Gf). So each slow gradient is 3 updates stale, and of every three fast gradients
  // one is 1 stale (the slow one landed during it) and two are fresh.
  json s = base_scenario();
  s["cluster"]["workers"] = {{"count", 2}, {"speeds", {"1Gf", "3Gf"}}};
  s["cluster"]["network"] = {{"bandwidth", "100Gbps"}, {"latency", 0}};
  s["timing"] = {{"flops_per_sample", 1e6}, {"param_bytes", 8}};
  s["stop"] = {{"updates", 400}};
  const auto run = run_isolated(s.dump());
  const auto& staleness = run.result["summary"]["staleness"];
  const auto& histogram = staleness["histogram"];
  const double applied = run.result["summary"]["gradients"]["applied"].get<double>();
  CHECK(staleness["max"] == 3);
  CHECK(histogram["3"].get<double>() / applied == Approx(0.25).margin(0.01));
  CHECK(histogram["0"].get<double>() / applied == Approx(0.5).margin(0.01));
  CHECK(histogram["1"].get<double>() / applied == Approx(0.25).margin(0.01));
  CHECK(staleness["mean"].get<double>() == Approx(1.0).margin(0.02));
}

TEST_CASE("SSP never lets a worker run more than its bound ahead", "[simulation]") {
  json s = base_scenario();
  s["cluster"]["workers"] = {{"count", 3}, {"speeds", {"1Gf", "10Gf", "10Gf"}}};
  s["cluster"]["network"] = {{"bandwidth", "100Gbps"}, {"latency", 0}};
  s["timing"] = {{"flops_per_sample", 1e6}, {"param_bytes", 8}};
  s["stop"] = {{"updates", 300}};
  s["consistency"] = {{"mode", "ssp"}, {"bound", 2}};
  const auto bounded = run_isolated(s.dump());
  CHECK(bounded.result["summary"]["max_clock_lead"] == 2);  // reached, never exceeded
  // The fast workers wait for the slow one: their gradients are at most (2 + 1) x 2 stale.
  CHECK(bounded.result["summary"]["staleness"]["max"].get<int>() <= 6);

  s["consistency"] = {{"mode", "async"}};
  const auto free = run_isolated(s.dump());
  CHECK(free.result["summary"]["max_clock_lead"].is_null());
  CHECK(free.result["summary"]["staleness"]["max"].get<int>() >=
        15);  // ~20 fast updates per slow one
}

TEST_CASE("sync waits for the slowest worker", "[simulation]") {
  json s = base_scenario();
  s["consistency"] = {{"mode", "sync"}};
  s["cluster"]["workers"] = {{"count", 2}, {"speeds", {"1Gf", "4Gf"}}};
  s["cluster"]["network"] = {{"bandwidth", "100Gbps"}, {"latency", 0}};
  s["timing"] = {{"flops_per_sample", 1e6}, {"param_bytes", 8}};
  s["stop"] = {{"updates", 50}};
  const auto run = run_isolated(s.dump());
  // One round = the slow worker's 10 ms gradient (plus negligible transfers and update).
  CHECK(summary_number(run, "end_time") == Approx(50 * 0.01).epsilon(1e-3));
  CHECK(run.result["summary"]["gradients"]["applied"] == 100);
  CHECK(run.result["summary"]["staleness"]["max"] == 0);
  const auto& hosts = run.result["summary"]["hosts"];
  CHECK(hosts[1]["utilisation"].get<double>() == Approx(1.0).epsilon(1e-3));
  CHECK(hosts[2]["utilisation"].get<double>() == Approx(0.25).epsilon(1e-3));
}

TEST_CASE("same scenario and seed give byte-identical results", "[simulation][determinism]") {
  json s = base_scenario();
  s["model"] = {{"kind", "mlp"}, {"hidden", {8}}};
  s["cluster"]["workers"] = {{"count", 3}, {"speeds", {"1Gf", "2Gf", "3Gf"}}};
  s["evaluation"] = {{"interval", "5ms"}};
  s["stop"] = {{"time", "0.2s"}};
  auto a = run_isolated(s.dump());
  auto b = run_isolated(s.dump());
  CHECK(a.timeseries == b.timeseries);
  CHECK(a.events == b.events);
  CHECK(a.final_params == b.final_params);
  CHECK(failsim::testing::reproducible_part(a.result).dump() ==
        failsim::testing::reproducible_part(b.result).dump());

  s["seed"] = 4;
  const auto c = run_isolated(s.dump());
  CHECK(c.final_params != a.final_params);
}
