// `failsim run --branch`: scenarios that differ only in their failures at a time share one
// simulation up to the failure that tells them apart (sim/ps/branching.hpp). End-to-end on the real
// binary: every member's result directory must equal that of its own run, byte for byte.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "reproducible.hpp"
#include "sim_harness.hpp"

using failsim::testing::read_file;
using failsim::testing::TempDir;
namespace fs = std::filesystem;

namespace {
int run_cli(const std::string& args, const TempDir& dir, std::string* err = nullptr) {
  const std::string err_file = dir.path() + "/stderr.txt";
  const std::string command = "cd '" + dir.path() + "' && '" FAILSIM_BINARY "' " + args +
                              " >/dev/null 2>'" + err_file + "'";
  const int raw = std::system(command.c_str());
  if (err != nullptr) *err = read_file(err_file);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

nlohmann::json server_kill(const std::string& at, const std::string& target = "server",
                           int index = -1) {
  nlohmann::json e{{"target", target}, {"at", at}, {"down_for", 0}};
  if (index >= 0) e["index"] = index;
  return e;
}

/// The checkpoint example (softmax, 2 workers, 6 s) under another name and failure list.
void write_variant(const TempDir& dir, const std::string& name, const nlohmann::json& events,
                   const std::function<void(nlohmann::json&)>& edit = {}) {
  auto s = nlohmann::json::parse(
      read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/server-kill-checkpoint.json"));
  s.erase("$schema");
  s["name"] = name;
  s["failures"]["events"] = events;
  if (edit) edit(s);
  std::ofstream(dir.path() + "/" + name + ".json") << s.dump(1);
}

/// result.json without its provenance and wall-clock timings, which no two processes share.
nlohmann::json result_without_timing(const std::string& directory) {
  return failsim::testing::reproducible_part(
      nlohmann::json::parse(read_file(directory + "/result.json")));
}
}  // namespace

TEST_CASE("failsim run --branch gives every scenario the results of its own run", "[branching]") {
  TempDir dir;
  // A: kill at 2 s. B: and again at 4 s. C: at 2.05 s, between two evaluations (the others then
  // wake there for nothing). D: no failure. E: A plus a worker kill at 4 s, where B kills the
  // server. F: B's failures listed the other way round (so "event 0" is the 4 s one). G: A
  // under another name (never told apart: split when the run is over).
  write_variant(dir, "A", nlohmann::json::array({server_kill("2s")}));
  write_variant(dir, "B", nlohmann::json::array({server_kill("2s"), server_kill("4s")}));
  write_variant(dir, "C", nlohmann::json::array({server_kill("2.05s")}));
  write_variant(dir, "D", nlohmann::json::array());
  write_variant(dir, "E",
                nlohmann::json::array({server_kill("2s"), server_kill("4s", "worker", 1)}));
  write_variant(dir, "F", nlohmann::json::array({server_kill("4s"), server_kill("2s")}));
  write_variant(dir, "G", nlohmann::json::array({server_kill("2s")}));
  const std::vector<std::string> names{"A", "B", "C", "D", "E", "F", "G"};
  for (const auto& n : names) {
    REQUIRE(run_cli("run " + n + ".json -q -o alone/" + n, dir) == 0);
  }
  std::string branches;
  for (std::size_t i = 1; i < names.size(); ++i) {
    branches += " --branch " + names[i] + ".json=together/" + names[i];
  }
  REQUIRE(run_cli("run A.json -q -o together/A" + branches, dir) == 0);

  for (const auto& n : names) {
    INFO(n);
    const std::string alone = dir.path() + "/alone/" + n, together = dir.path() + "/together/" + n;
    CHECK(read_file(alone + "/timeseries.csv") == read_file(together + "/timeseries.csv"));
    CHECK(read_file(alone + "/events.csv") == read_file(together + "/events.csv"));
    CHECK(result_without_timing(alone) == result_without_timing(together));
  }
  // The family really differs: the second kill rolls B back, the worker kill stops E's worker.
  CHECK(read_file(dir.path() + "/alone/A/events.csv") !=
        read_file(dir.path() + "/alone/B/events.csv"));
  CHECK(read_file(dir.path() + "/alone/B/events.csv") !=
        read_file(dir.path() + "/alone/E/events.csv"));
}

TEST_CASE("failsim run --branch runs sync and async members together until they act differently",
          "[branching]") {
  TempDir dir;
  // One worker: sync and async never act differently (a pull always follows the update of the
  // push before it), so S1/A1 and their 2-kill siblings S2/A2 are one simulation to 4 s and two
  // after it. Two workers: the first round tells S and A apart at once.
  const auto one_worker = [](const std::string& mode) {
    return [mode](nlohmann::json& s) {
      s["cluster"]["workers"]["count"] = 1;
      s["consistency"]["mode"] = mode;
    };
  };
  const auto two_workers = [](const std::string& mode) {
    return [mode](nlohmann::json& s) { s["consistency"]["mode"] = mode; };
  };
  write_variant(dir, "S1", nlohmann::json::array({server_kill("2s")}), one_worker("sync"));
  write_variant(dir, "A1", nlohmann::json::array({server_kill("2s")}), one_worker("async"));
  write_variant(dir, "S2", nlohmann::json::array({server_kill("2s"), server_kill("4s")}),
                one_worker("sync"));
  write_variant(dir, "A2", nlohmann::json::array({server_kill("2s"), server_kill("4s")}),
                one_worker("async"));
  write_variant(dir, "S", nlohmann::json::array({server_kill("2s")}), two_workers("sync"));
  write_variant(dir, "A", nlohmann::json::array({server_kill("2s")}), two_workers("async"));
  for (const std::string n : {"S1", "A1", "S2", "A2", "S", "A"}) {
    REQUIRE(run_cli("run " + n + ".json -q -o alone/" + n, dir) == 0);
  }
  REQUIRE(run_cli("run S1.json -q -o together/S1 --branch A1.json=together/A1 --branch "
                  "S2.json=together/S2 --branch A2.json=together/A2",
                  dir) == 0);
  REQUIRE(run_cli("run S.json -q -o together/S --branch A.json=together/A", dir) == 0);
  for (const std::string n : {"S1", "A1", "S2", "A2", "S", "A"}) {
    INFO(n);
    const std::string alone = dir.path() + "/alone/" + n, together = dir.path() + "/together/" + n;
    CHECK(read_file(alone + "/timeseries.csv") == read_file(together + "/timeseries.csv"));
    CHECK(read_file(alone + "/events.csv") == read_file(together + "/events.csv"));
    CHECK(result_without_timing(alone) == result_without_timing(together));
    CHECK(result_without_timing(together)["scenario"]["consistency"]["mode"] ==
          (n[0] == 'S' ? "sync" : "async"));
  }
  // With two workers the modes really differ; with one they give the same simulation.
  CHECK(read_file(dir.path() + "/alone/S/timeseries.csv") !=
        read_file(dir.path() + "/alone/A/timeseries.csv"));
  CHECK(read_file(dir.path() + "/alone/S1/timeseries.csv") ==
        read_file(dir.path() + "/alone/A1/timeseries.csv"));
}

TEST_CASE("failsim run --branch refuses what it cannot share, exit 2, nothing written",
          "[branching]") {
  TempDir dir;
  write_variant(dir, "A", nlohmann::json::array({server_kill("2s")}));
  write_variant(dir, "lr", nlohmann::json::array({server_kill("2s")}),
                [](nlohmann::json& s) { s["optimizer"]["learning_rate"] = 0.1; });
  write_variant(dir, "update",
                nlohmann::json::array(
                    {server_kill("2s"), nlohmann::json{{"target", "server"}, {"at_update", 10}}}));
  std::string err;

  CHECK(run_cli("run A.json -q -o out/A --branch lr.json=out/lr", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("lr.json: /optimizer/learning_rate: expected the same value "
                                  "as in A.json") &&
                      Catch::Contains("found 0.1"));

  write_variant(dir, "ssp", nlohmann::json::array({server_kill("2s")}), [](nlohmann::json& s) {
    s["consistency"] = {{"mode", "ssp"}, {"bound", 2}};
  });
  CHECK(run_cli("run A.json -q -o out/A --branch ssp.json=out/ssp", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("ssp.json: /consistency/") &&
                      Catch::Contains("consistency mode sync against async"));

  CHECK(run_cli("run A.json -q -o out/A --branch update.json=out/u", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("update.json: /failures/events: expected the same failures "
                                  "after an update (`at_update`) as in A.json"));

  CHECK(run_cli("run A.json -q -o out/A --branch A.json=out/A/", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("expected a result directory of its own for each scenario"));

  CHECK(run_cli("run A.json -q -o out/A --branch =out/x", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("--branch: expected FILE or FILE=DIR, found =out/x"));

  CHECK(run_cli("run A.json -q -o out/A --branch missing.json", dir, &err) == 2);
  CHECK_THAT(err, Catch::Contains("missing.json"));

  CHECK_FALSE(fs::exists(dir.path() + "/out"));
}
