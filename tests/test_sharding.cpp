// Sharded parameter servers (docs/strategies.md, "Sharded servers"): the partition of the flat
// parameter vector (engine-free, cuts worked out by hand below), and sharded simulations whose
// outcome can be worked out by hand (each in its own child process, sim_harness.hpp).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "models/cnn.hpp"
#include "models/mlp.hpp"
#include "models/softmax_regression.hpp"
#include "sim/ps/sharding.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"

using failsim::sim::partition;
using failsim::sim::ShardRange;
using failsim::testing::accuracy_at;
using failsim::testing::accuracy_of;
using failsim::testing::events_of;
using failsim::testing::run_isolated;
using failsim::testing::sgd_by_hand;
using nlohmann::json;
using Ranges = std::vector<ShardRange>;

TEST_CASE("partition of the CNN: cuts inside fc1.weight at a row of 1568 floats", "[sharding]") {
  // conv1.weight [0, 144) conv1.bias [144, 160) conv2.weight [160, 4768) conv2.bias
  // [4768, 4800) fc1.weight [4800, 807616) rows of 1568, fc1.bias [807616, 808128) fc2.weight
  // [808128, 813248) rows of 512, fc2.bias [813248, 813258): 813,258 floats.
  const failsim::models::Cnn cnn(0.25f, 1, 28, 28, 10);
  const auto tensors = cnn.tensors();
  REQUIRE(tensors.size() == 8);
  CHECK(tensors[4].offset == 4800);
  CHECK(tensors[4].row == 1568);
  CHECK(cnn.num_params() == 813258);
  CHECK(partition(tensors, 1) == Ranges{{0, 813258}});
  // S = 2: c = 406629, 401829 floats into fc1.weight (256.27 rows): the nearest row boundary is
  // 4800 + 256 x 1568 = 406208; the nearest tensor boundary (807616) is 400987 away, far beyond
  // 10% of a share.
  CHECK(partition(tensors, 2) == Ranges{{0, 406208}, {406208, 407050}});
  // S = 3: c = 271086 -> 4800 + 170 x 1568 = 271360; c = 542172 -> 4800 + 343 x 1568 = 542624.
  CHECK(partition(tensors, 3) == Ranges{{0, 271360}, {271360, 271264}, {542624, 270634}});
  // S = 4: c = 203315 (203314.5 rounded) -> 4800 + 127 x 1568 = 203936; c = 406629 -> 406208;
  // c = 609944 -> 4800 + 386 x 1568 = 610048.
  CHECK(partition(tensors, 4) ==
        Ranges{{0, 203936}, {203936, 202272}, {406208, 203840}, {610048, 203210}});
}

TEST_CASE("partition of an MLP: a cut snaps to a layer boundary within 10% of a share",
          "[sharding]") {
  // layer0.weight [0, 2048) rows of 32, layer0.bias [2048, 2112), layer1.weight [2112, 2752)
  // rows of 64, layer1.bias [2752, 2762): 2,762 floats.
  const failsim::models::Mlp mlp(32, {64}, 10);
  const auto tensors = mlp.tensors();
  REQUIRE(tensors.size() == 4);
  CHECK(partition(tensors, 1) == Ranges{{0, 2762}});
  // S = 2: c = 1381; 2048 is 667 away (> 138.1): row 43 x 32 = 1376.
  CHECK(partition(tensors, 2) == Ranges{{0, 1376}, {1376, 1386}});
  // S = 3: c = 921 -> 29 x 32 = 928; c = 1841 -> 2048 is 207 away (> 92.07): 58 x 32 = 1856.
  CHECK(partition(tensors, 3) == Ranges{{0, 928}, {928, 928}, {1856, 906}});
  // S = 4: c = 691 -> 22 x 32 = 704; c = 1381 -> 1376; c = 2072 is 24 from layer0.bias's start
  // 2048 (<= 69.05): the cut snaps there.
  CHECK(partition(tensors, 4) == Ranges{{0, 704}, {704, 672}, {1376, 672}, {2048, 714}});
}

TEST_CASE("partition: as many shards as parameters gives one float each", "[sharding]") {
  const failsim::models::SoftmaxRegression softmax(8, 4);  // weight [0, 32) rows of 8, bias 4
  const auto tensors = softmax.tensors();
  // S = 2: c = 18; 32 is 14 away (> 1.8): row 2 x 8 = 16.
  CHECK(partition(tensors, 2) == Ranges{{0, 16}, {16, 20}});
  const Ranges each = partition(tensors, 36);
  REQUIRE(each.size() == 36);
  for (std::size_t k = 0; k < each.size(); ++k) CHECK(each[k] == ShardRange{k, 1});
  CHECK_THROWS_AS(partition(tensors, 37), std::invalid_argument);
  CHECK_THROWS_AS(partition(tensors, 0), std::invalid_argument);
}

// ---- Sharded simulations -------------------------------------------------------------------
// Softmax regression on 8 inputs and 4 classes: 36 parameters, split by S = 2 into shard 0 =
// weight rows 0-1 [0, 16) and shard 1 = the other rows and the bias [16, 36).

namespace {
json base_scenario() {
  json s = failsim::testing::small_scenario("sharded");
  s["cluster"]["servers"]["shards"] = 2;
  return s;
}

std::int64_t sum(const json& g) {
  return g["applied"].get<std::int64_t>() + g["dropped"].get<std::int64_t>() +
         g["lost"].get<std::int64_t>() + g["pending_at_end"].get<std::int64_t>();
}
}  // namespace

TEST_CASE("one worker without failures: two shards train exactly the parameters of one server",
          "[sharding]") {
  // Each shard applies its slice of the same gradient, computed at the same (whole) parameters:
  // elementwise, that is one server's SGD step. stop.updates counts every shard's updates.
  json one = base_scenario();
  one["cluster"]["servers"].erase("shards");
  one["stop"] = {{"updates", 40}};
  json two = base_scenario();
  two["stop"] = {{"updates", 80}};
  const auto a = run_isolated(one.dump());
  const auto b = run_isolated(two.dump());
  REQUIRE(a.final_params.size() == 36);
  CHECK(b.final_params == a.final_params);
  const auto by_hand = sgd_by_hand(one.dump(), 40);
  CHECK(a.final_params == std::vector<float>(by_hand.begin(), by_hand.end()));
  const json shards = b.result["summary"]["shards"];
  REQUIRE(shards.size() == 2);
  CHECK(shards[0] == json{{"offset", 0}, {"params", 16}, {"updates", 40}});
  CHECK(shards[1] == json{{"offset", 16}, {"params", 20}, {"updates", 40}});
  // Gradients count in shard slices: 40 gradients are 80 slices, each applied.
  const json g = b.result["summary"]["gradients"];
  CHECK(g["computed"] == 80);
  CHECK(g["applied"] == 80);
  CHECK(!a.result["summary"].contains("shards"));
}

TEST_CASE("two sync workers: two shards train exactly the parameters of one server", "[sharding]") {
  json one = base_scenario();
  one["cluster"]["servers"].erase("shards");
  one["cluster"]["workers"]["count"] = 2;
  one["consistency"] = {{"mode", "sync"}};
  one["stop"] = {{"updates", 30}};
  json two = one;
  two["cluster"]["servers"]["shards"] = 2;
  two["stop"] = {{"updates", 60}};
  const auto a = run_isolated(one.dump());
  const auto b = run_isolated(two.dump());
  CHECK(b.final_params == a.final_params);  // a sum of two gradients does not depend on order
  CHECK(b.result["summary"]["gradients"]["applied"] == 2 * 60);
}

TEST_CASE(
    "checkpoint every 10 updates with 2 shards: killing shard 1 after its update 25 "
    "rolls back shard 1 only",
    "[sharding]") {
  json s = base_scenario();
  s["recovery"] = {{"strategy", "checkpoint"}, {"checkpoint", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"shard", 1}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());

  const auto failure = events_of(run, "failure").at(0);
  CHECK(failure["subject"] == "server-1");  // shard 1's host
  CHECK(failure["details"]["process"] == "shard-1.server-0");
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "shard-1.server-1");
  CHECK(loaded[0]["details"]["version"] == 20);  // floor(25 / 10) x 10
  CHECK(loaded[0]["details"]["updates_lost"] == 5);
  CHECK(events_of(run, "restart", "shard-0").empty());  // shard 0 is untouched
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(run.result["summary"]["gradients"]["rolled_back"] == 5);  // one slice per update

  // Shard 0 stopped at version 25 (the worker needs every slice to compute); right after the
  // load the observer evaluates shard 0 at version 25 with shard 1 at version 20, exactly.
  const double failed = failure["time"].get<double>();
  const auto p25 = sgd_by_hand(s.dump(), 25);
  auto mixed = sgd_by_hand(s.dump(), 20);
  std::copy(p25.begin(), p25.begin() + 16, mixed.begin());
  const auto accuracy = accuracy_at(run, failed, 25 + 20);
  REQUIRE(accuracy);
  CHECK(*accuracy == accuracy_of(s.dump(), mixed));
  CHECK(sum(run.result["summary"]["gradients"]) ==
        run.result["summary"]["gradients"]["computed"].get<std::int64_t>());
}

TEST_CASE("chain with 2 shards of 2 hosts: killing shard 1's head promotes shard 1's replica",
          "[sharding]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;  // per shard: server-0 and -1 for shard 0, -2 and -3
  s["recovery"] = {{"strategy", "chain"}, {"chain", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"shard", 1}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  CHECK(events_of(run, "failure").at(0)["subject"] == "server-2");
  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["subject"] == "shard-1.server-1");
  CHECK(promoted[0]["details"]["host"] == "server-3");
  CHECK(promoted[0]["details"]["version"] == 20);
  CHECK(promoted[0]["details"]["updates_lost"] == 5);
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  const double failed = events_of(run, "failure").at(0)["time"].get<double>();
  CHECK(promoted[0]["time"].get<double>() == Approx(failed + 0.1));  // at detection
  // Shard 0's chain replicated on its own all along and lost nothing.
  CHECK(events_of(run, "replicated", "shard-0.server-0").size() >= 2);
  CHECK(events_of(run, "promoted", "shard-0").empty());
}

TEST_CASE(
    "stateless with 2 shards: shard 0's outage piles up shard 0's slices while shard 1 "
    "applies its own",
    "[sharding]") {
  json s = base_scenario();
  s["cluster"]["workers"]["count"] = 2;
  s["recovery"] = {{"strategy", "stateless"},
                   {"stateless", {{"rule", "paper"}, {"paper_threshold", 50}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"shard", 0}, {"at", "1s"}}};
  const auto run = run_isolated(s.dump());
  const auto restart = events_of(run, "restart").at(0);
  CHECK(restart["subject"] == "shard-0.server-1");
  const auto applied = events_of(run, "pending_applied");
  REQUIRE(applied.size() == 1);
  CHECK(applied[0]["subject"] == "shard-0.server-1");
  // Workers never stop (they pull the stores): 2 workers x 10 ms per gradient over the 300 ms
  // outage = 60 slices of shard 0 pile up, as without shards.
  const int pending = applied[0]["details"]["count"].get<int>();
  CHECK(pending == restart["details"]["pending"].get<int>());
  CHECK(pending == Approx(60).margin(3));
  CHECK(run.result["summary"]["hosts"][2]["recovery_wait_seconds"] == 0.0);  // never idle
  // Shard 1 applied every slice as it came: its updates outnumber shard 0's by the pile less
  // the one update that applied it.
  const json shards = run.result["summary"]["shards"];
  CHECK(shards[1]["updates"].get<int>() > shards[0]["updates"].get<int>() + pending / 2);
  CHECK(sum(run.result["summary"]["gradients"]) ==
        run.result["summary"]["gradients"]["computed"].get<std::int64_t>());
}

TEST_CASE("a shard index the run does not have is refused", "[sharding]") {
  json s = base_scenario();
  s["failures"]["events"] = {{{"target", "replica"}, {"shard", 2}, {"index", 0}, {"at", "1s"}}};
  s["recovery"] = {{"strategy", "chain"}};
  s["cluster"]["servers"]["count"] = 2;
  try {
    failsim::sim::parse_scenario_text(s.dump(), "bad.json");
    FAIL("no error");
  } catch (const failsim::input::InputError& e) {
    CHECK(std::string(e.what()) ==
          "bad.json: /failures/events/0/shard: expected a shard index in [0, 1] "
          "(cluster.servers.shards is 2), found 2");
  }
}

TEST_CASE("more shards than parameters is refused when the model is known", "[sharding]") {
  json s = base_scenario();
  s["cluster"]["servers"]["shards"] = 37;
  CHECK_THROWS_WITH(run_isolated(s.dump()),
                    Catch::Contains("/cluster/servers/shards: expected at most the model's 36 "
                                    "parameters, found 37"));
}

TEST_CASE("request_timeout is checked against the largest shard's message", "[sharding]") {
  // param_bytes 1 MB on 100 Gbps without latency: the whole vector takes
  // 1e6 / (0.97 x 12.5e9) = 82.5 us, shard 1 (20 of 36 floats, 555,556 bytes) 45.8 us. A timeout
  // of 120 us is more than twice shard 1's but not twice the whole vector's.
  json s = base_scenario();
  s["timing"]["param_bytes"] = 1e6;
  s["failures"]["request_timeout"] = "120us";
  s["stop"] = {{"time", "200ms"}};
  CHECK_NOTHROW(run_isolated(s.dump()));
  json one = s;
  one["cluster"]["servers"].erase("shards");
  CHECK_THROWS_WITH(run_isolated(one.dump()),
                    Catch::Contains("/failures/request_timeout: expected more than twice the time "
                                    "one parameter message takes on the network") &&
                        Catch::Contains("for 1000000 bytes), found 0.00012"));
  // Elastic resume may shrink the job to one shard: the whole vector's message counts.
  json elastic = s;
  elastic["recovery"] = {{"strategy", "checkpoint"},
                         {"checkpoint", {{"every_updates", 10}, {"elastic", {{"patience", 0}}}}}};
  CHECK_THROWS_WITH(run_isolated(elastic.dump()), Catch::Contains("for 1000000 bytes)"));
  s["failures"]["request_timeout"] = "90us";
  CHECK_THROWS_WITH(run_isolated(s.dump()), Catch::Contains("for 555555.5555555556 bytes)"));
}

TEST_CASE("multi-level with 2 shards: a crash of shard 1 restores shard 1's memory snapshot",
          "[sharding]") {
  // As in test_failures.cpp: memory every 5 updates, local disk every 10, remote every 20; one
  // worker, so each shard's update n comes from the n-th gradient. Shard 1 dies after its update
  // 27: its memory holds version 25. Shard 0 has its own levels on its own host (server-0).
  json s = base_scenario();
  s["recovery"] = {{"strategy", "checkpoint"},
                   {"checkpoint",
                    {{"levels",
                      {{{"kind", "memory"}, {"every_updates", 5}},
                       {{"kind", "local-disk"}, {"every_updates", 10}},
                       {{"kind", "remote"}, {"every_updates", 20}}}}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"shard", 1}, {"at_update", 27}}};
  const auto run = run_isolated(s.dump());
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "shard-1.server-1");
  CHECK(loaded[0]["details"]["level"] == "memory");
  CHECK(loaded[0]["details"]["version"] == 25);
  CHECK(loaded[0]["details"]["updates_lost"] == 2);
  CHECK(run.result["summary"]["updates_rolled_back"] == 2);
  // Each shard persists its own slice under its own name, from its own host.
  CHECK(!events_of(run, "checkpoint_written", "shard-0.server-0:local-disk").empty());
  CHECK(!events_of(run, "checkpoint_written", "shard-1.server-1:local-disk").empty());
  CHECK(!events_of(run, "checkpoint_written", "shard-1.storage").empty());
}

TEST_CASE("stateless_chain with 2 shards and K = 1: shard 0's head dies and nothing is lost",
          "[sharding]") {
  json s = base_scenario();
  s["cluster"]["servers"]["count"] = 2;  // shard 0: server-0 and -1; shard 1: server-2 and -3
  s["recovery"] = {{"strategy", "stateless_chain"}, {"chain", {{"every_updates", 1}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"shard", 0}, {"at_update", 25}}};
  const auto run = run_isolated(s.dump());
  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["subject"] == "shard-0.server-1");
  CHECK(promoted[0]["details"]["host"] == "server-1");
  CHECK(promoted[0]["details"]["version"] == 25);
  CHECK(promoted[0]["details"]["updates_lost"] == 0);
  CHECK(run.result["summary"]["updates_rolled_back"] == 0);
  // Workers kept computing from the stores: shard 0's promoted head applied the pile at once.
  const auto applied = events_of(run, "pending_applied");
  REQUIRE(applied.size() == 1);
  CHECK(applied[0]["subject"] == "shard-0.server-1");
  CHECK(run.result["summary"]["hosts"][4]["recovery_wait_seconds"] == 0.0);  // worker-0
}

TEST_CASE("worker failures with 3 shards keep the slice accounting exact", "[sharding]") {
  // worker-failures.json: sync workers killed at random and one for good; with shards a worker
  // dies while pulling or pushing slices to several servers at once.
  json s = json::parse(
      failsim::testing::read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/worker-failures.json"));
  s["cluster"]["servers"]["shards"] = 3;
  s.erase("output");
  const auto run = run_isolated(s.dump());  // run() checks computed = applied + ... itself
  const json g = run.result["summary"]["gradients"];
  CHECK(run.result["summary"]["status"] == "completed");
  CHECK(g["computed"].get<std::int64_t>() % 3 == 0);
  CHECK(g["lost"].get<std::int64_t>() > 0);
  CHECK(sum(g) == g["computed"].get<std::int64_t>());
}
