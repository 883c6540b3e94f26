// End-to-end: the real failsim binary on real files, checking exit codes and outputs.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_line.hpp"
#include "cli_harness.hpp"
#include "reproducible.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim_harness.hpp"
#include "skip.hpp"

using failsim::testing::read_file;
using failsim::testing::reproducible_part;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;

TEST_CASE("failsim validate accepts every example and paper and comparison scenario", "[cli]") {
  TempDir dir;
  int checked = 0;
  for (const char* folder : {"/scenarios/examples", "/scenarios/paper", "/scenarios/comparison"}) {
    for (const auto& entry : fs::directory_iterator(FAILSIM_SOURCE_DIR + std::string(folder))) {
      if (entry.path().extension() != ".json") continue;
      const auto r = run_cli("validate '" + entry.path().string() + "'", dir);
      INFO(entry.path() << ": " << r.err);
      CHECK(r.status == 0);
      ++checked;
    }
  }
  CHECK(checked >= 26);  // 9 examples, 11 paper and 6 comparison scenarios at least
}

namespace {

/// Every field of summary.collective as docs/result-format.md names it ("collective.time",
/// "collective.time.productive", ...): objects and their members.
std::set<std::string> collective_paths(const nlohmann::json& object, const std::string& prefix) {
  std::set<std::string> paths;
  for (const auto& [key, value] : object.items()) {
    const std::string path = prefix + "." + key;
    paths.insert(path);
    if (value.is_object()) paths.merge(collective_paths(value, path));
  }
  return paths;
}

/// The first cells of docs/result-format.md's rows that start with `collective.`.
std::set<std::string> documented_collective_fields() {
  std::set<std::string> fields;
  std::istringstream lines(read_file(FAILSIM_SOURCE_DIR "/docs/result-format.md"));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| `collective.")) continue;
    fields.insert(line.substr(3, line.find('`', 3) - 3));
  }
  return fields;
}

}  // namespace

TEST_CASE("every collective example validates, and runs 40 simulated minutes", "[cli]") {
  // docs/cluster.md's examples, each cut short so the suite stays fast (seconds in all): a
  // failure scheduled after the short stop is recorded as not injected.
  TempDir dir;
  int checked = 0;
  std::vector<fs::path> examples;
  for (const char* folder : {"/scenarios/cluster", "/scenarios/cluster/operations"}) {
    for (const auto& entry : fs::directory_iterator(FAILSIM_SOURCE_DIR + std::string(folder)))
      if (entry.path().extension() == ".json") examples.push_back(entry.path());
  }
  for (const fs::path& path : examples) {
    const fs::directory_entry entry(path);
    const std::string file = entry.path().string();
    INFO(file);
    const auto validated = run_cli("validate '" + file + "'", dir);
    INFO(validated.err);
    CHECK(validated.status == 0);
    const auto scenario = nlohmann::json::parse(read_file(file));
    std::string settings = " --set /stop/time=40min";
    if (scenario.contains("failures")) settings += " --set /failures/after_stop=record";
    const std::string out = dir.file(entry.path().stem().string());
    const auto ran =
        run_cli("run '" + file + "' -q --threads 1" + settings + " -o '" + out + "'", dir);
    INFO(ran.err);
    REQUIRE(ran.status == 0);
    const auto result = nlohmann::json::parse(read_file(out + "/result.json"));
    CHECK(result["summary"]["end_time"] == 2400.0);
    const nlohmann::json& collective = result["summary"]["collective"];
    CHECK(collective["steps"]["kept"].get<double>() > 0.0);
    // docs/result-format.md lists exactly the fields the writer writes.
    CHECK(collective_paths(collective, "collective") == documented_collective_fields());
    double sum = 0.0;
    for (const auto& [cause, seconds] : collective["time"].items()) sum += seconds.get<double>();
    CHECK(sum == Approx(2400.0).epsilon(1e-9));
    ++checked;
  }
  CHECK(checked >= 3);
}

TEST_CASE("failsim run --branch refuses a collective scenario on either side, writing nothing",
          "[cli]") {
  TempDir dir;
  const std::string collective = "scenarios/cluster/zero3-stragglers.json";
  const std::string ps = "scenarios/examples/quickstart.json";
  const std::string message =
      collective +
      ": /protocol: expected \"parameter-server\" with --branch (branches share one "
      "parameter-server simulation; a collective scenario runs alone), found \"collective\"\n";
  for (const auto& [scenario, branch] : {std::pair{collective, ps}, std::pair{ps, collective}}) {
    INFO(scenario << " --branch " << branch);
    const auto r = run_cli("run " + scenario + " -q -o '" + dir.file("a") + "' --branch " + branch +
                               "='" + dir.file("b") + "'",
                           dir);
    CHECK(r.status == 2);
    CHECK(r.err == "failsim run: " + message);
    CHECK_FALSE(fs::exists(dir.file("a")));
    CHECK_FALSE(fs::exists(dir.file("b")));
  }
}

TEST_CASE("docs/cluster.md's quick start is the shipped scenario, and it prints what it says",
          "[cli][docs]") {
  const std::string docs = read_file(FAILSIM_SOURCE_DIR "/docs/cluster.md");
  const auto section = docs.find("## Quick start\n");
  REQUIRE(section != std::string::npos);
  // Its first block is the file byte for byte; its second, the run's first two lines.
  const auto block = [&](std::size_t from) {
    const auto open = docs.find("```", from);
    const auto start = docs.find('\n', open) + 1;
    const auto close = docs.find("\n```", start);
    return std::make_pair(docs.substr(start, close - start + 1), close + 4);
  };
  const auto [scenario, after] = block(section);
  const std::string file = "scenarios/cluster/quickstart.json";
  CHECK(scenario == read_file(FAILSIM_SOURCE_DIR "/" + file));
  CHECK(std::count(scenario.begin(), scenario.end(), '\n') <= 22);
  const std::string shown = block(after).first;
  TempDir dir;
  const auto r = run_cli("run " + file + " --threads 1 -o '" + dir.file("out") + "'", dir);
  REQUIRE(r.status == 0);
  CHECK(shown.substr(0, shown.find('\n') + 1) == "$ failsim run " + file + "\n");
  const auto lines = r.out.substr(0, r.out.find('\n', r.out.find('\n') + 1) + 1);
  CHECK(shown.substr(shown.find('\n') + 1) == lines);
}

TEST_CASE("failsim validate checks a sweep file as a sweep, every point", "[cli]") {
  TempDir dir;
  const auto good = run_cli("validate scenarios/sweeps/quickstart.json", dir);
  CHECK(good.status == 0);
  CHECK(good.out == "scenarios/sweeps/quickstart.json: ok (a sweep: 18 runs of 6 points)\n");
  const std::string bad = dir.file("bad-sweep.json");
  write_text(bad, R"({"name": "bad", "scenarios": [")" FAILSIM_SOURCE_DIR
                  R"(/scenarios/examples/quickstart.json"],
    "vary": [{"path": "/optimizer/batch_size", "values": [32, 3000]}]})");
  const auto refused = run_cli("validate '" + bad + "'", dir);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains(bad + ": /vary/0: expected values that make a valid "
                                                "scenario of every point, found point 1"));
}

TEST_CASE("failsim validate reads each file once, a sweep file as a scenario file", "[cli]") {
  TempDir dir;
  if (std::system("strace -V >/dev/null 2>&1") != 0) FAILSIM_SKIP("strace is not installed");
  // strace(1) lists every file the command (and its SimGrid probe, -f) opens.
  const auto opens = [&](const std::string& file) {
    const std::string trace = dir.file("trace.txt");
    const auto r = failsim::testing::run_shell("strace -f -qq -e trace=open,openat -o '" + trace +
                                                   "' '" FAILSIM_BINARY "' validate " + file,
                                               dir);
    REQUIRE(r.status == 0);
    std::istringstream lines(failsim::testing::read_text(trace));
    int count = 0;
    for (std::string line; std::getline(lines, line);)
      count += line.find("\"" + file + "\"") != std::string::npos;
    return count;
  };
  CHECK(opens("scenarios/examples/quickstart.json") == 1);
  CHECK(opens("scenarios/sweeps/quickstart.json") == 1);
}

TEST_CASE("failsim validate names file and path and expectation and found value with exit 2",
          "[cli]") {
  TempDir dir;
  const std::string bad = dir.path() + "/bad.json";
  std::string text = read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/quickstart.json");
  text.replace(text.find("\"learning_rate\""), 15, "\"lerning_rate\"");
  write_text(bad, text);
  const auto r = run_cli("validate '" + bad + "'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.json: /optimizer/lerning_rate") &&
                        Catch::Contains("did you mean 'learning_rate'"));
}

TEST_CASE("failsim run writes a complete, deterministic result directory", "[cli]") {
  TempDir dir;
  const auto a =
      run_cli("run scenarios/examples/quickstart.json -q -o '" + dir.path() + "/a'", dir);
  const auto b =
      run_cli("run scenarios/examples/quickstart.json -q -o '" + dir.path() + "/b'", dir);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.out.empty());  // -q
  for (const char* file : {"timeseries.csv", "events.csv"}) {
    CHECK(read_file(dir.path() + "/a/" + file) == read_file(dir.path() + "/b/" + file));
  }
  auto ja = nlohmann::json::parse(read_file(dir.path() + "/a/result.json"));
  auto jb = nlohmann::json::parse(read_file(dir.path() + "/b/result.json"));
  CHECK(ja["summary"]["status"] == "completed");
  CHECK(ja["summary"]["final"]["test_accuracy"].get<double>() > 0.5);
  CHECK(ja["scenario"]["optimizer"]["momentum"] == 0.0);  // defaults resolved
  CHECK(reproducible_part(ja).dump() == reproducible_part(jb).dump());
  // No temporary file is left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir.path() + "/a")) ++files;
  CHECK(files == 3);
}

TEST_CASE("result.json records its build, command line and the hash of its scenario",
          "[cli][provenance]") {
  TempDir dir;
  const std::string out = dir.path() + "/a";
  const auto a =
      run_cli("run scenarios/examples/quickstart.json -q --seed 3 -o '" + out + "'", dir);
  REQUIRE(a.status == 0);
  const auto result = nlohmann::json::parse(read_file(out + "/result.json"));
  REQUIRE(result.contains("provenance"));
  const auto& p = result.at("provenance");
  // argv exactly, and where it ran (scenario paths are relative to it).
  CHECK(p.at("command_line") ==
        nlohmann::json({FAILSIM_BINARY, "run", "scenarios/examples/quickstart.json", "-q", "--seed",
                        "3", "-o", out}));
  CHECK(p.at("working_directory") == fs::canonical(FAILSIM_SOURCE_DIR).string());

  const auto version = run_cli("--version", dir);
  CHECK(version.out == "failsim " + p.at("failsim").at("version").get<std::string>() + "\n");
  // The commit this binary was built from: this checkout's HEAD or one of its ancestors (a
  // commit made since the build), never another; "unknown" only outside a git work tree.
  const std::string commit = p.at("failsim").at("commit").get<std::string>();
  const auto head = failsim::testing::run_shell("git rev-parse --show-toplevel", dir);
  if (head.status == 0 &&
      fs::equivalent(head.out.substr(0, head.out.find('\n')), FAILSIM_SOURCE_DIR)) {
    CHECK(std::regex_match(commit, std::regex("[0-9a-f]{40}")));
    CHECK(failsim::testing::run_shell("git merge-base --is-ancestor " + commit + " HEAD", dir)
              .status == 0);
    CHECK(p.at("failsim").at("source_modified").is_boolean());
  } else {
    CHECK(commit == "unknown");
    CHECK(p.at("failsim").at("source_modified").is_null());
  }
  const auto& libraries = p.at("libraries");
  CHECK_THAT(libraries.at("simgrid").get<std::string>(), Catch::StartsWith("3."));
  for (const char* library : {"simgrid", "eigen", "nlohmann_json", "fmt"}) {
    INFO(library);
    CHECK(std::regex_match(libraries.at(library).get<std::string>(),
                           std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
  }
  CHECK(std::regex_match(p.at("compiler").get<std::string>(),
                         std::regex("(GCC|Clang) [0-9]+\\.[0-9]+\\.[0-9]+")));
  // The allocator that ran: the binary links tcmalloc unless built with FAILSIM_TCMALLOC off.
#ifdef FAILSIM_TCMALLOC_LINKED
  CHECK(std::regex_match(libraries.at("allocator").get<std::string>(),
                         std::regex("tcmalloc [0-9]+\\.[0-9]+.*")));
#else
  CHECK(libraries.at("allocator") == "libc");
#endif

  // The hash: SHA-256 of the scenario object as compact JSON, as sha256sum and the Python
  // recipe of docs/result-format.md compute it.
  write_text(dir.path() + "/scenario.json", result.at("scenario").dump());
  const auto sum = failsim::testing::run_shell("sha256sum '" + dir.path() + "/scenario.json'", dir);
  REQUIRE(sum.status == 0);
  CHECK(result.at("scenario_sha256") == sum.out.substr(0, 64));
  const auto python = failsim::testing::run_shell(
      "/usr/bin/python3 -c 'import hashlib, json, sys; r = json.load(open(sys.argv[1])); "
      "print(hashlib.sha256(json.dumps(r[\"scenario\"], separators=(\",\", \":\"), "
      "sort_keys=True, ensure_ascii=False).encode()).hexdigest())' '" +
          out + "/result.json'",
      dir);
  CHECK(python.out == result.at("scenario_sha256").get<std::string>() + "\n");
  // Another seed is another scenario.
  const auto b =
      run_cli("run scenarios/examples/quickstart.json -q --seed 4 -o '" + dir.path() + "/b'", dir);
  REQUIRE(b.status == 0);
  CHECK(nlohmann::json::parse(read_file(dir.path() + "/b/result.json")).at("scenario_sha256") !=
        result.at("scenario_sha256"));
}

TEST_CASE("scripts/compare-results.sh: one binary twice is identical, another result differs",
          "[cli][provenance]") {
  // Each binary runs with its own -o: the provenance differs, the results must not.
  TempDir dir;
  const std::string script = "EXAMPLES=quickstart.json bash scripts/compare-results.sh ";
  const auto same = failsim::testing::run_shell(
      script + "'" FAILSIM_BINARY "' '" FAILSIM_BINARY "' '" + dir.path() + "/same'", dir);
  INFO(same.err);
  CHECK(same.status == 0);
  CHECK(same.out == "quickstart: identical\n");
  // A "binary" whose runs have another seed.
  write_text(dir.path() + "/other-seed.sh",
             "#!/bin/sh\nexec '" FAILSIM_BINARY "' \"$@\" --seed 9\n");
  fs::permissions(dir.path() + "/other-seed.sh", fs::perms::owner_all);
  const auto other = failsim::testing::run_shell(
      script + "'" FAILSIM_BINARY "' '" + dir.path() + "/other-seed.sh' '" + dir.path() + "/other'",
      dir);
  CHECK(other.status == 1);
  CHECK_THAT(other.out, Catch::StartsWith("quickstart: differs in ") &&
                            Catch::Contains("timeseries.csv, result.json"));
}

TEST_CASE("cmake/build_info.cmake: the commit of a git top directory, else unknown",
          "[cli][provenance]") {
  TempDir dir;
  const auto generate = [&](const std::string& source) {
    const auto r = failsim::testing::run_shell(
        "cmake -DSOURCE_DIR='" + source + "' -DOUTPUT='" + dir.path() +
            "/build_info.cpp' -DVERSION=9.8.7 -P cmake/build_info.cmake",
        dir);
    REQUIRE(r.status == 0);
    return read_file(dir.path() + "/build_info.cpp");
  };
  // A directory inside the checkout is not its top: a tarball unpacked inside another
  // repository must not report that repository's commit.
  CHECK_THAT(generate(FAILSIM_SOURCE_DIR "/docs"),
             Catch::Contains("BUILD_INFO{\"9.8.7\", \"unknown\", SourceModified::UNKNOWN}"));
  CHECK_THAT(generate(dir.path()), Catch::Contains("\"unknown\", SourceModified::UNKNOWN}"));
  const auto head = failsim::testing::run_shell("git rev-parse HEAD", dir);
  if (head.status == 0) {
    CHECK_THAT(generate(FAILSIM_SOURCE_DIR),
               Catch::Contains("BUILD_INFO{\"9.8.7\", \"" + head.out.substr(0, 40) + "\", "));
  }
}

TEST_CASE("failsim run on bad input exits 2 and writes nothing", "[cli]") {
  TempDir dir;
  const std::string bad = dir.path() + "/bad.json";
  write_text(bad, R"({"name": "x", "data": {"kind": "synthetic"}, "model": {"kind": "softmax"},
                 "cluster": {"workers": {"count": 2, "speed": "10Gbps"}, "servers": {"speed": "1Gf"}},
                 "consistency": {"mode": "async"}, "stop": {"time": "1s"}})");
  const auto r = run_cli("run '" + bad + "' -o '" + dir.path() + "/out'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("/cluster/workers/speed") && Catch::Contains("10Gbps"));
  CHECK_FALSE(fs::exists(dir.path() + "/out"));

  const auto missing =
      run_cli("run '" + dir.path() + "/nope.json' -o '" + dir.path() + "/out'", dir);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("nope.json"));
  CHECK_FALSE(fs::exists(dir.path() + "/out"));
}

TEST_CASE("SimGrid settings and platform files SimGrid rejects are exit 2 with its reason",
          "[cli]") {
  TempDir dir;
  const std::string quick = "run scenarios/examples/quickstart.json -q -o '" + dir.path();
  // A --log= setting is SimGrid's to check (the --cfg= ones are failsim's: the next test).
  auto r = run_cli(quick + "/a' --log=root.thresh:bogus", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("found --log=root.thresh:bogus (Unknown priority name: bogus"));
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/a"));
  // Accepted settings still run.
  CHECK(run_cli(quick + "/b' --cfg=network/model:CM02", dir).status == 0);

  // A platform file with a syntax error, and one naming a link it does not define.
  const std::string xml = read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/lab-platform.xml");
  write_text(dir.path() + "/lab.json",
             read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/platform-lab.json"));
  std::string broken = xml;
  broken.replace(broken.find("<link "), 6, "<lnk ");
  write_text(dir.path() + "/lab-platform.xml", broken);
  r = run_cli("run '" + dir.path() + "/lab.json' -q -o '" + dir.path() + "/c'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("failsim run: " + dir.path() +
                                      "/lab.json: /cluster/platform: expected a platform file "
                                      "SimGrid 3.32 loads, found " +
                                      dir.path() + "/lab-platform.xml (Parse error at " +
                                      dir.path() + "/lab-platform.xml:"));
  std::string unknown = xml;
  unknown.replace(unknown.find("<link_ctn id=\"") + 14, 0, "zz");
  write_text(dir.path() + "/lab-platform.xml", unknown);
  r = run_cli("run '" + dir.path() + "/lab.json' -q -o '" + dir.path() + "/c'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::EndsWith("lab-platform.xml (Link not found: zzps-link)\n"));
  // failsim validate loads the platform too.
  r = run_cli("validate '" + dir.path() + "/lab.json'", dir);
  CHECK(r.status == 2);
  CHECK(r.err == dir.path() +
                     "/lab.json: /cluster/platform: expected a platform file SimGrid 3.32 loads, "
                     "found " +
                     dir.path() + "/lab-platform.xml (Link not found: zzps-link)\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/c"));

  // A host name the platform file does not define: refused by validate as by run.
  write_text(dir.path() + "/lab-platform.xml", xml);
  std::string misnamed = read_file(dir.path() + "/lab.json");
  misnamed.replace(misnamed.find("\"slow-1\""), 8, "\"slow-9\"");
  write_text(dir.path() + "/lab.json", misnamed);
  const std::string message = dir.path() +
                              "/lab.json: /cluster/workers/hosts/2: expected the name of a host "
                              "of " +
                              dir.path() + "/lab-platform.xml, found \"slow-9\"\n";
  r = run_cli("validate '" + dir.path() + "/lab.json'", dir);
  CHECK(r.status == 2);
  CHECK(r.err == message);
  r = run_cli("run '" + dir.path() + "/lab.json' -q -o '" + dir.path() + "/c'", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "failsim run: " + message);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/c"));
}

TEST_CASE("run --cfg takes the SimGrid settings of failsim's table only, each in its range",
          "[cli]") {
  TempDir dir;
  const std::string quick = "run scenarios/examples/quickstart.json -q -o '" + dir.path();
  const std::string keys =
      "failsim run: --cfg: expected KEY:VALUE with KEY one of network/model, "
      "network/crosstraffic, network/TCP-gamma, contexts/stack-size, surf/precision, "
      "maxmin/precision (docs/cli.md, \"SimGrid settings\"), found ";
  const std::vector<std::pair<std::string, std::string>> refused{
      // Keys SimGrid knows, and some it does not: none of failsim's.
      {"contexts/nthreads:64", keys + "contexts/nthreads:64\n"},
      {"contexts/factory:thread", keys + "contexts/factory:thread\n"},
      {"nope:1", keys + "nope:1\n"},
      {"::::", keys + "::::\n"},
      {"network/model",
       "failsim run: --cfg: network/model: expected one of LV08, CM02, SMPI, IB after "
       "'network/model:', found no value\n"},
      {"contexts/stack-sise:300",
       keys + "contexts/stack-sise:300 (did you mean 'contexts/stack-size'?)\n"},
      // Values out of range: a run that would hang (precision 0), or not start.
      {"network/model:Nope",
       "failsim run: --cfg: network/model: expected one of LV08, CM02, SMPI, IB, found Nope\n"},
      {"network/model:cm02",
       "failsim run: --cfg: network/model: expected one of LV08, CM02, SMPI, IB, found cm02 "
       "(did you mean 'CM02'?)\n"},
      {"network/model:Constant",
       "failsim run: --cfg: network/model: expected one of LV08, CM02, SMPI, IB, found "
       "Constant\n"},
      {"network/model:CM02 contexts/nthreads:2",
       "failsim run: --cfg: network/model: expected one of LV08, CM02, SMPI, IB, found CM02 "
       "contexts/nthreads:2\n"},
      {"network/crosstraffic:maybe",
       "failsim run: --cfg: network/crosstraffic: expected one of 0, no, off, false, 1, yes, on, "
       "true, found maybe\n"},
      {"network/TCP-gamma:-1",
       "failsim run: --cfg: network/TCP-gamma: expected a number of bytes in [0, "
       "1000000000000000], found -1\n"},
      {"contexts/stack-size:100000000",
       "failsim run: --cfg: contexts/stack-size: expected a whole number of KiB in [1, 1048576], "
       "found 100000000\n"},
      {"contexts/stack-size:256.5",
       "failsim run: --cfg: contexts/stack-size: expected a whole number of KiB in [1, 1048576], "
       "found 256.5\n"},
      {"surf/precision:0",
       "failsim run: --cfg: surf/precision: expected a number of seconds in [1e-9, 0.001], found "
       "0\n"},
      {"surf/precision:1",
       "failsim run: --cfg: surf/precision: expected a number of seconds in [1e-9, 0.001], found "
       "1\n"},
      {"maxmin/precision:0",
       "failsim run: --cfg: maxmin/precision: expected a number in [1e-8, 0.001], found 0\n"},
      {"maxmin/precision:nan",
       "failsim run: --cfg: maxmin/precision: expected a number in [1e-8, 0.001], found nan\n"},
  };
  for (const auto& [setting, message] : refused) {
    const auto r = run_cli(quick + "/a' '--cfg=" + setting + "'", dir);
    INFO(setting);
    CHECK(r.status == 2);
    CHECK(r.err == message);
  }
  CHECK_FALSE(fs::exists(dir.path() + "/a"));
  // failsim validate refuses them once, before any file.
  const auto v = run_cli(
      "validate scenarios/examples/quickstart.json "
      "scenarios/examples/quickstart.json --cfg=maxmin/precision:0",
      dir);
  CHECK(v.status == 2);
  CHECK(v.err ==
        "failsim validate: --cfg: maxmin/precision: expected a number in [1e-8, 0.001], "
        "found 0\n");
  // Each end of each range runs.
  const std::vector<std::string> taken{"network/model:LV08",    "network/model:SMPI",
                                       "network/model:IB",      "network/crosstraffic:no",
                                       "network/TCP-gamma:0",   "contexts/stack-size:1048576",
                                       "surf/precision:1e-9",   "surf/precision:0.001",
                                       "maxmin/precision:1e-8", "maxmin/precision:1e-3"};
  for (const std::string& setting : taken) {
    INFO(setting);
    CHECK(run_cli(quick + "/b' --cfg=" + setting, dir).status == 0);
  }
}

TEST_CASE("docs/cli.md's table of SimGrid settings is the code's", "[cli][docs]") {
  // The code's: each key and its values in words.
  std::map<std::string, std::string> code;
  for (const failsim::sim::SimgridSetting& s : failsim::sim::simgrid_settings()) {
    code.emplace(std::string(s.key), failsim::sim::describe_values(s));
  }
  // The docs': the rows "| `KEY` | VALUES | effect |" of the section on SimGrid settings.
  const std::string docs = read_file(FAILSIM_SOURCE_DIR "/docs/cli.md");
  const auto section = docs.find("### SimGrid settings: `--cfg=` and `--log=`");
  REQUIRE(section != std::string::npos);
  std::map<std::string, std::string> listed;
  std::istringstream lines(docs.substr(section, docs.find("\n### ", section + 1) - section));
  const std::regex row(R"(^\| `(\w+/[\w-]+)` \| ([^|]+) \|)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) CHECK(listed.emplace(m[1].str(), m[2].str()).second);
  }
  CHECK(code.size() == 6);
  const auto rows = [](const std::map<std::string, std::string>& settings) {
    std::string text;
    for (const auto& [key, values] : settings) text += key + " | " + values + "\n";
    return text;
  };
  CHECK(rows(listed) == rows(code));
}

TEST_CASE("failsim run --seed replaces the scenario's seed and a bad seed is exit 2", "[cli]") {
  TempDir dir;
  const auto run = [&](const std::string& seed, const std::string& out) {
    return run_cli("run scenarios/examples/quickstart.json -q --seed " + seed + " -o '" +
                       dir.path() + "/" + out + "'",
                   dir);
  };
  REQUIRE(run("7", "seven").status == 0);
  const auto result = nlohmann::json::parse(read_file(dir.path() + "/seven/result.json"));
  CHECK(result["scenario"]["seed"] == 7);
  REQUIRE(run("1", "one").status == 0);  // the scenario's own seed
  CHECK(read_file(dir.path() + "/seven/timeseries.csv") !=
        read_file(dir.path() + "/one/timeseries.csv"));
  for (const std::string bad : {"-3", "1e3", "99999999999999999999999"}) {
    const auto r = run(bad, "bad");
    CHECK(r.status == 2);
    CHECK_THAT(r.err,
               Catch::Contains("--seed: expected an integer in [0, 2^64 - 1], found " + bad));
  }
  CHECK_FALSE(fs::exists(dir.path() + "/bad"));
}

TEST_CASE("failsim run --log=failsim.thresh:debug prints the decisions of a run, none without",
          "[cli][log]") {
  TempDir dir;
  const std::string run =
      "run scenarios/examples/server-kill-checkpoint.json -q -o '" + dir.path() + "/";
  const auto quiet = run_cli(run + "quiet'", dir);
  const auto debug = run_cli(run + "debug' --log=failsim.thresh:debug", dir);
  const auto info = run_cli(run + "info' --log=failsim.thresh:info", dir);
  REQUIRE(quiet.status == 0);
  REQUIRE(debug.status == 0);
  REQUIRE(info.status == 0);
  CHECK(quiet.err.empty());
  for (const char* line : {
           // The failure injected and detected, the restart, the roll-back to the checkpoint.
           "2.000000] [failure_injector/INFO] failure of host server-0 (event 0): server-0 "
           "killed, the host stays up\n",
           "2.500000] [failure_injector/INFO] detected the failure of server-0\n",
           "3.500000] [strategy/INFO] restarting server-1 on server-0\n",
           "[strategy/INFO] resumes at version 950 (50 updates lost)\n",
           "6.000000] [run/INFO] stopping (time) after 2248 updates\n",
       }) {
    CHECK_THAT(debug.err, Catch::Contains(line));
    CHECK_THAT(info.err, Catch::Contains(line));
  }
  // The details only at the finer thresholds.
  CHECK_THAT(debug.err, Catch::Contains("[checkpoint_storage/VERBOSE] checkpoint of version 50 "
                                        "written\n") &&
                            Catch::Contains("[worker/VERBOSE] worker-0: "));
  CHECK_THAT(info.err, !Catch::Contains("VERBOSE"));
  // Logging changes no result.
  for (const char* out : {"debug", "info"}) {
    for (const char* file : {"events.csv", "timeseries.csv"}) {
      CHECK(read_file(dir.path() + "/quiet/" + file) ==
            read_file(dir.path() + "/" + out + "/" + file));
    }
    auto a = nlohmann::json::parse(read_file(dir.path() + "/quiet/result.json"));
    auto b = nlohmann::json::parse(read_file(dir.path() + "/" + out + "/result.json"));
    CHECK(reproducible_part(a).dump() == reproducible_part(b).dump());
  }
}

TEST_CASE("docs/cli.md lists the log categories of the code, each in its file, and each logs",
          "[cli][log][docs]") {
  // The code's: every XBT_LOG_NEW_*CATEGORY under sim/, by file.
  std::map<std::string, std::string> code;  // category -> file
  const std::regex declaration(R"(XBT_LOG_NEW_(?:DEFAULT_)?(?:SUB)?CATEGORY\(\s*(\w+))");
  const fs::path root(FAILSIM_SOURCE_DIR);
  for (const auto& entry : fs::recursive_directory_iterator(root / "sim")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = read_file(entry.path().string());
    const std::string file = fs::relative(entry.path(), root).string();
    for (std::sregex_iterator m(text.begin(), text.end(), declaration), end; m != end; ++m) {
      CHECK(code.emplace((*m)[1].str(), file).second);  // one declaration per category
    }
    // A file with a category of its own logs something (style.md: no category that logs
    // nothing).
    if (text.find("XBT_LOG_NEW_DEFAULT_SUBCATEGORY") != std::string::npos) {
      INFO(file);
      CHECK((text.find("FAILSIM_INFO(") != std::string::npos ||
             text.find("FAILSIM_VERBOSE(") != std::string::npos));
    }
  }
  // The docs': the rows of the table in "What --log=failsim.thresh:debug shows".
  const std::string docs = read_file(FAILSIM_SOURCE_DIR "/docs/cli.md");
  const auto section = docs.find("### What `--log=failsim.thresh:debug` shows");
  REQUIRE(section != std::string::npos);
  std::map<std::string, std::string> listed;
  std::istringstream lines(docs.substr(section, docs.find("\n## ", section) - section));
  const std::regex row(R"(^\| `(\w+)` \| `([^`]+)` \|)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) CHECK(listed.emplace(m[1].str(), m[2].str()).second);
  }
  CHECK(code.size() >= 14);
  // As text, so a failure shows the rows that differ.
  const auto rows = [](const std::map<std::string, std::string>& categories) {
    std::string text;
    for (const auto& [name, file] : categories) text += name + " " + file + "\n";
    return text;
  };
  CHECK(rows(listed) == rows(code));
}

TEST_CASE("failsim --version and --help", "[cli]") {
  TempDir dir;
  CHECK(run_cli("--version", dir).out.find("failsim ") == 0);
  for (const char* sub : {"run", "validate", "train"}) {
    const auto r = run_cli(std::string(sub) + " --help", dir);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Usage"));
  }
  CHECK(run_cli("frobnicate", dir).status == 2);
  // A misspelt subcommand is named, with the closest one and the list.
  const auto typo = run_cli("rn scenarios/examples/quickstart.json", dir);
  CHECK(typo.status == 2);
  CHECK_THAT(typo.err, Catch::StartsWith("failsim: expected a subcommand (run, validate, ") &&
                           Catch::Contains("found unknown subcommand 'rn' (did you mean 'run'?)"));
  // Numbers say so in the help.
  const auto help = run_cli("run --help", dir);
  CHECK_THAT(help.out, Catch::Contains("--seed INTEGER") && Catch::Contains("--threads INTEGER"));
}

TEST_CASE("command-line errors name the option, the expectation, the value found and the usage",
          "[cli]") {
  TempDir dir;
  const std::string q = "scenarios/examples/quickstart.json";
  const auto usage = [](const std::string& command, const std::string& words) {
    return "usage: " + command + words + " ('" + command + " --help' explains them)\n";
  };
  const std::string run = usage("failsim run", " SCENARIO [OPTIONS]");
  const std::string fit = usage("failsim trace fit", " TRACE [OPTIONS]");
  const std::string train = usage("failsim train", " [OPTIONS]");
  const std::string top = usage("failsim", " SUBCOMMAND [OPTIONS]");
  const std::string subcommands = "run, validate, train, plot, table, sweep, report, trace, import";
  const std::vector<std::pair<std::string, std::string>> cases{
      // Unknown options, with the closest one when one is close.
      {"run " + q + " --sed 3",
       "failsim run: expected one of its options, found unknown option '--sed' (did you mean "
       "'--seed'?)\n" +
           run},
      {"run " + q + " --frobnicate",
       "failsim run: expected one of its options, found unknown option '--frobnicate'\n" + run},
      {"run " + q + " --thread=4",
       "failsim run: expected one of its options, found unknown option '--thread=4' (did you "
       "mean '--threads'?)\n" +
           run},
      // An option without its value.
      {"run " + q + " -o",
       "failsim run: -o/--output: expected a value after it, found nothing (the command line "
       "ends there)\n" +
           run},
      {"run " + q + " --seed",
       "failsim run: --seed: expected an integer after it, found nothing (the command line "
       "ends there)\n" +
           run},
      // Values of the wrong type, out of range, not one of a set.
      {"trace fit t.json --nodes many",
       "failsim trace fit: --nodes: expected a whole number >= 1, found many\n" + fit},
      {"trace fit t.json --nodes 0",
       "failsim trace fit: --nodes: expected a whole number >= 1, found 0\n" + fit},
      {"trace fit t.json --nodes -1",
       "failsim trace fit: --nodes: expected a whole number >= 1, found -1\n" + fit},
      {"trace fit t.json --nodes 99999999999999999999",
       "failsim trace fit: --nodes: expected a whole number in [1, 18446744073709551615], found "
       "99999999999999999999\n" +
           fit},
      {"train --epochs 1.5",
       "failsim train: --epochs: expected a whole number >= 1, found 1.5\n" + train},
      {"train --epochs 0x10",
       "failsim train: --epochs: expected a whole number >= 1, found 0x10\n" + train},
      {"train --model cnnn",
       "failsim train: --model: expected one of softmax, mlp, cnn, transformer, found cnnn (did "
       "you mean 'cnn'?)\n" +
           train},
      {"train --seed x", "failsim train: --seed: expected a whole number >= 0, found x\n" + train},
      {"train --seed -1",
       "failsim train: --seed: expected a whole number >= 0, found -1\n" + train},
      {"run " + q + " --dry-run=maybe",
       "failsim run: --dry-run: expected no value (a flag), or true or false, found maybe\n" + run},
      // Subcommands: unknown, of a subcommand, none.
      {"runn x.json", "failsim: expected a subcommand (" + subcommands +
                          "), found unknown subcommand 'runn' (did you mean 'run'?)\n" + top},
      {"", "failsim: expected a subcommand (" + subcommands + "), found none\n" + top},
      {"trace fitt t.json",
       "failsim trace: expected a subcommand (fit), found unknown subcommand 'fitt' (did you "
       "mean 'fit'?)\n" +
           usage("failsim trace", " SUBCOMMAND")},
      // Arguments: one too many, a required one missing.
      {"run a.json b.json -q",
       "failsim run: expected 1 argument (SCENARIO) besides the options, found 2 (one more: "
       "'b.json')\n" +
           run},
      {"run",
       "failsim run: SCENARIO: expected scenario file (docs/scenario-format.md), found "
       "none\n" +
           run},
      // Options that exclude each other.
      {"sweep s.json --dry-run --collect",
       "failsim sweep: expected at most one of --dry-run and --collect, found both\n" +
           usage("failsim sweep", " SWEEP [OPTIONS]")},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_cli(args, dir);
    INFO(args);
    CHECK(r.status == 2);
    CHECK(r.err == message);
    CHECK(r.out.empty());
  }
  // Bytes that are not UTF-8 are echoed printable.
  const auto bytes = run_cli("run " + q + " --\xff", dir);
  CHECK(bytes.status == 2);
  CHECK_THAT(bytes.err, Catch::StartsWith("failsim run: expected one of its options, found "
                                          "unknown option '--\\xff'"));
}

TEST_CASE("parse_error_message: options that need others, required options, an unknown form",
          "[cli]") {
  // Forms no failsim subcommand has yet, on an app of this test's own.
  const auto message = [](const std::string& args) {
    CLI::App app{"a test"};
    app.require_subcommand(1);
    CLI::App* sub = app.add_subcommand("demo", "a demo");
    std::string text;
    int count = 0;
    CLI::Option* x = sub->add_option("-x,--ex", text, "an x");
    sub->add_option("--why", text, "a why")->needs(x);
    sub->add_option("--count", count, "a count of things")->required();
    CLI::App* pick = app.add_subcommand("pick", "pick one");
    bool one = false, other = false;
    pick->add_flag("--a", one, "one");
    pick->add_flag("--b", other, "the other");
    pick->require_option(1);
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      return failsim::cli::parse_error_message(app, e);
    }
    return std::string("parsed");
  };
  const std::string demo = "\nusage: failsim demo [OPTIONS] ('failsim demo --help' explains them)";
  CHECK(message("demo --count 2") == "parsed");
  CHECK(message("demo --why 1 --count 2") ==
        "failsim demo: --why: expected -x/--ex with it, found --why alone" + demo);
  CHECK(message("demo -x 1") ==
        "failsim demo: --count: expected a count of things, found none" + demo);
  CHECK(message("demo --count 2.5") ==
        "failsim demo: --count: expected an integer, found 2.5" + demo);
  CHECK(message("pick") ==
        "failsim pick: expected a command line as the usage below, found an error: Exactly 1 "
        "option from [--a,--b] is required\nusage: failsim pick [OPTIONS] ('failsim pick --help' "
        "explains "
        "them)");
}

TEST_CASE("failsim train: impossible input is exit 2 with an expected/found message, no training",
          "[cli]") {
  TempDir dir;
  // Each error names the option, the expectation and the value, as every other input error does.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--model softmax --train-limit 10 --batch 32",
       "failsim train: --batch: expected at most the 10 training samples of --train-limit, "
       "found 32\n"},
      {"--model softmax --train-limit 0",
       "failsim train: --train-limit: expected -1 (every training sample) or an integer >= 1, "
       "found 0\n"},
      {"--model mlp --hidden 16 0 --train-limit 100",
       "failsim train: --hidden: expected layer widths >= 1, found 16 0\n"},
      {"--model transformer",
       "failsim train: --model: expected a model of images (`failsim train` reads Fashion-MNIST "
       "only; a model of text trains in a scenario with data kind \"text\"), found "
       "transformer\n"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_cli("train " + args, dir);
    CHECK(r.status == 2);
    CHECK(r.err == message);
    CHECK(r.out.empty());
  }
  const auto data = run_cli("train --model softmax --data-dir '" + dir.file("none") + "'", dir);
  CHECK(data.status == 2);
  CHECK_THAT(data.err, Catch::StartsWith("failsim train: --data-dir: expected a directory of "
                                         "Fashion-MNIST IDX files that load, found "));
}

TEST_CASE(
    "failsim plot draws every figure of result directories, bad input is exit 2 and no figure",
    "[cli][plot]") {
  TempDir dir;
  // Hand-made result directories: two configurations, two seeds each, one server failure.
  const auto result_dir = [&](const std::string& name, int seed, bool kill) {
    const std::string d = dir.path() + "/results/" + name + "/seed-" + std::to_string(seed);
    fs::create_directories(d);
    const std::string failure = kill ? R"({"time": 2.0, "type": "failure", "subject": "server-0",
                   "details": {"cause": "event 0", "down_for": 1.5, "process": "server-0"}},
                  {"time": 2.5, "type": "detected", "subject": "server-0", "details": {}},
                  {"time": 3.5, "type": "restart", "subject": "server-1", "details": {}},
                  {"time": 3.6, "type": "training_resumed", "subject": "server-1",
                   "details": {"stalled_for": 1.6, "stalled_since": 2.0}},)"
                                     : "";
    write_text(
        d + "/result.json",
        R"({"format": "failsim-result", "format_version": 1,
              "scenario": {"name": ")" +
            name + R"(", "seed": )" + std::to_string(seed) + R"(},
              "summary": {"end_time": 5.0, "hosts": [
                {"host": "server-0", "role": "server", "busy_seconds": 0.5,
                 "recovery_wait_seconds": 0.0, "down_seconds": 1.5, "idle_seconds": 3.0},
                {"host": "worker-0", "role": "worker", "busy_seconds": )" +
            std::to_string(2.0 + 0.1 * seed) + R"(, "recovery_wait_seconds": )" +
            (kill ? "1.5" : "0.0") + R"(, "down_seconds": 0.0, "idle_seconds": 1.0}]},
              "events": [)" +
            failure +
            R"({"time": 5.0, "type": "stop", "subject": "", "details": {"reason": "time"}}]})");
    std::string csv =
        "time,version,test_accuracy,test_loss,train_loss,test_samples,gradients_computed,"
        "gradients_applied\n";
    for (int k = 0; k <= 5; ++k) {
      const bool down = kill && k >= 2 && k < 4;
      csv += std::to_string(k) + "," + std::to_string(10 * k) + "," +
             std::to_string(0.1 + 0.15 * k - (down ? 0.1 : 0.0) + 0.01 * seed) + ",1.0,,100," +
             std::to_string(10 * k) + "," + std::to_string(down ? 20 : 10 * k) + "\n";
    }
    write_text(d + "/timeseries.csv", csv);
    write_text(d + "/events.csv", "time,type,subject,details\n");
  };
  for (int seed : {1, 2}) {
    result_dir("baseline", seed, false);
    result_dir("checkpoint-1kill", seed, true);
  }
  const std::string out = dir.path() + "/figures";
  const auto r = run_cli("plot '" + dir.path() + "/results' -o '" + out +
                             "' --configs checkpoint-1kill,baseline --title 'test figures'",
                         dir);
  INFO(r.err);
  REQUIRE(r.status == 0);  // fails (never skips) when /usr/bin/python3 lacks matplotlib
  for (const char* figure : {"accuracy", "gradients", "utilisation"}) {
    const std::string png = read_file(out + "/" + figure + ".png");
    const std::string svg = read_file(out + "/" + figure + ".svg");
    CHECK(png.rfind("\x89PNG", 0) == 0);
    CHECK(png.size() > 1000);
    CHECK_THAT(svg, Catch::Contains("<svg"));
  }
  int files = 0;  // six figures, no temporary file left behind
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(out)) ++files;
  CHECK(files == 6);

  // Failure windows per configuration: the failing one has its lane (its windows and its
  // recovery events), the baseline none, so the baseline's curve is not shaded by them.
  const std::string accuracy = read_file(out + "/accuracy.svg");
  CHECK_THAT(accuracy, Catch::Contains("id=\"failures-checkpoint-1kill\"") &&
                           Catch::Contains("id=\"detected-checkpoint-1kill\"") &&
                           Catch::Contains("id=\"restart-checkpoint-1kill\"") &&
                           Catch::Contains("id=\"training_resumed-checkpoint-1kill\"") &&
                           Catch::Contains("failure detected") &&
                           Catch::Contains("training resumed"));
  CHECK_THAT(accuracy, !Catch::Contains("failures-baseline"));
  CHECK_THAT(
      read_file(out + "/gradients.svg"),
      Catch::Contains("id=\"failures-checkpoint-1kill\"") && !Catch::Contains("failures-baseline"));

  // A real run of the quickstart scenario plots too. One seed: no band, so the title does not
  // promise one.
  REQUIRE(run_cli("run scenarios/examples/quickstart.json -q -o '" + dir.path() + "/quick'", dir)
              .status == 0);
  const auto quick = run_cli("plot '" + dir.path() + "/quick' -o '" + dir.path() +
                                 "/quick-figures' --figures accuracy,utilisation",
                             dir);
  INFO(quick.err);
  CHECK(quick.status == 0);
  CHECK(fs::file_size(dir.path() + "/quick-figures/accuracy.png") > 1000);
  const std::string one_seed = read_file(dir.path() + "/quick-figures/accuracy.svg");
  CHECK_THAT(one_seed, Catch::Contains("Test accuracy (one seed)") && !Catch::Contains("95%"));
  CHECK_THAT(one_seed, !Catch::Contains("id=\"failures-"));  // no failure, no lane
  // It settles: a zoomed panel below the full one, both with the same y label (the text is a
  // comment in matplotlib's SVG).
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  CHECK_THAT(one_seed, Catch::Contains("zoomed: accuracy"));
  CHECK(count(one_seed, "<!-- test accuracy (fraction correct) -->") == 2);

  // Without -o, the figures go next to the input: DIR/figures.
  const auto beside =
      run_cli("plot '" + dir.path() + "/quick' --figures accuracy --format png", dir);
  INFO(beside.err);
  CHECK(beside.status == 0);
  CHECK(fs::file_size(dir.path() + "/quick/figures/accuracy.png") > 1000);
  fs::remove_all(dir.path() + "/quick/figures");
  const auto two_dirs = run_cli(
      "plot '" + dir.path() + "/quick' '" + dir.path() + "/results' --figures accuracy", dir);
  CHECK(two_dirs.status == 2);
  CHECK_THAT(two_dirs.err, Catch::Contains("-o: expected an output directory with several DIRs") &&
                               Catch::Contains("found 2"));

  // Bad input: one message naming the file and the expectation, exit 2, no figure written.
  const auto no_figures = [&](const std::string& d) { return !fs::exists(d) || fs::is_empty(d); };
  const std::string bad = dir.path() + "/bad-figures";
  const auto none = run_cli("plot '" + dir.path() + "/quick-figures' -o '" + bad + "'", dir);
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::Contains("quick-figures") && Catch::Contains("found none"));
  CHECK(no_figures(bad));

  const std::string seed2 = dir.path() + "/results/baseline/seed-2";
  write_text(seed2 + "/timeseries.csv",
             "time,version,test_accuracy,test_loss,train_loss,test_samples\n"
             "0,0,0.1,2.3,,100\n");
  const auto columns = run_cli("plot '" + dir.path() + "/results' -o '" + bad + "'", dir);
  CHECK(columns.status == 2);
  CHECK_THAT(columns.err, Catch::Contains("seed-2/timeseries.csv") &&
                              Catch::Contains("gradients_computed, gradients_applied"));
  CHECK(no_figures(bad));

  write_text(seed2 + "/result.json",
             R"({"format": "failsim-result", "scenario": {"name": "baseline")");
  const auto json = run_cli("plot '" + dir.path() + "/results' -o '" + bad + "'", dir);
  CHECK(json.status == 2);
  CHECK_THAT(json.err, Catch::Contains("seed-2/result.json: expected JSON"));
  CHECK(no_figures(bad));

  const auto configs = run_cli(
      "plot '" + dir.path() + "/results/checkpoint-1kill' -o '" + bad + "' --configs nope", dir);
  CHECK(configs.status == 2);
  CHECK_THAT(configs.err, Catch::Contains("--configs") && Catch::Contains("nope"));
  CHECK(no_figures(bad));

  // No interpreter: a clear pointer to the set-up script, not a crash.
  setenv("FAILSIM_PYTHON", "/nonexistent/python3", 1);
  const auto no_python = run_cli("plot '" + dir.path() + "/quick' -o '" + bad + "'", dir);
  unsetenv("FAILSIM_PYTHON");
  CHECK(no_python.status == 1);
  CHECK_THAT(no_python.err,
             Catch::Contains("/nonexistent/python3") && Catch::Contains("scripts/setup.sh"));
}

namespace {

/// intervals.csv summed: (host, state) -> seconds; every row checked (4 fields, begin < end).
std::map<std::pair<std::string, std::string>, double> interval_sums(const std::string& csv) {
  std::map<std::pair<std::string, std::string>, double> sums;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line == "host,state,begin,end");
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 4);
    const double begin = std::stod(f[2]), end = std::stod(f[3]);
    CHECK(begin < end);
    sums[{f[0], f[1]}] += end - begin;
  }
  return sums;
}

}  // namespace

TEST_CASE(
    "output.intervals writes intervals.csv that adds up to the summary and changes no other "
    "file, and failsim plot draws its timeline",
    "[cli][plot][intervals]") {
  TempDir dir;
  const std::string on = dir.file("on"), off = dir.file("off");
  REQUIRE(run_cli("run scenarios/examples/server-kill-checkpoint.json -q --threads 1 --set "
                  "'/output={\"intervals\": true}' -o '" +
                      on + "'",
                  dir)
              .status == 0);
  REQUIRE(
      run_cli("run scenarios/examples/server-kill-checkpoint.json -q --threads 1 -o '" + off + "'",
              dir)
          .status == 0);
  // Off (the default): no file, and the resolved scenario does not name the field, so results
  // of runs that do not ask for intervals are what they were before it existed.
  CHECK_FALSE(fs::exists(off + "/intervals.csv"));
  auto result_on = nlohmann::json::parse(read_file(on + "/result.json"));
  auto result_off = nlohmann::json::parse(read_file(off + "/result.json"));
  CHECK_FALSE(result_off["scenario"]["output"].contains("intervals"));
  CHECK(result_on["scenario"]["output"]["intervals"] == true);
  // On: the other files are the same.
  CHECK(read_file(on + "/events.csv") == read_file(off + "/events.csv"));
  CHECK(read_file(on + "/timeseries.csv") == read_file(off + "/timeseries.csv"));
  for (auto* r : {&result_on, &result_off}) {
    *r = reproducible_part(*r);
    (*r)["scenario"]["output"].erase("intervals");
    r->erase("scenario_sha256");  // of the scenario with its intervals
  }
  CHECK(result_on == result_off);

  // The busy, recovery-wait and down rows add up to the summary's accounts of each host.
  const auto check_sums = [](const std::string& run) {
    const auto sums = interval_sums(read_file(run + "/intervals.csv"));
    const auto result = nlohmann::json::parse(read_file(run + "/result.json"));
    for (const auto& host : result["summary"]["hosts"]) {
      const std::string name = host["host"].get<std::string>();
      for (const auto& [state, key] : {std::pair{"busy", "busy_seconds"},
                                       {"recovery_wait", "recovery_wait_seconds"},
                                       {"down", "down_seconds"}}) {
        INFO(run << ": " << name << " " << state);
        const auto it = sums.find({name, state});
        CHECK((it == sums.end() ? 0.0 : it->second) ==
              Approx(host[key].get<double>()).margin(1e-9));
      }
    }
    return sums;
  };
  const auto sums = check_sums(on);
  CHECK(sums.at({"worker-0", "recovery_wait"}) > 1.0);  // waiting for the restarted server
  CHECK(sums.at({"storage", "checkpointing"}) > 0.0);   // the storage's disk writes
  CHECK(sums.at({"server-0", "checkpointing"}) > 0.0);  // the server blocked on them
  // Worker failures turn hosts off: down rows.
  const std::string workers = dir.file("workers");
  REQUIRE(run_cli("run scenarios/examples/worker-failures.json -q --threads 1 --set "
                  "'/output={\"intervals\": true}' -o '" +
                      workers + "'",
                  dir)
              .status == 0);
  const auto worker_sums = check_sums(workers);
  CHECK(std::any_of(worker_sums.begin(), worker_sums.end(),
                    [](const auto& s) { return s.first.second == "down" && s.second > 0; }));

  // The timeline: one row per host, its intervals as bars of their state.
  const auto plot = run_cli("plot '" + on + "' --figures timeline", dir);
  INFO(plot.err);
  REQUIRE(plot.status == 0);
  const std::string svg = read_file(on + "/figures/timeline.svg");
  CHECK(fs::file_size(on + "/figures/timeline.png") > 1000);
  CHECK_THAT(svg, Catch::Contains("id=\"busy-worker-0\"") &&
                      Catch::Contains("id=\"recovery_wait-worker-1\"") &&
                      Catch::Contains("id=\"checkpointing-storage\"") &&
                      Catch::Contains("server-0 (server)"));
  // Drawn by default, beside the others, when the run has intervals.csv.
  const auto by_default = run_cli("plot '" + workers + "' --format svg", dir);
  INFO(by_default.err);
  CHECK(by_default.status == 0);
  CHECK(fs::exists(workers + "/figures/accuracy.svg"));
  CHECK_THAT(read_file(workers + "/figures/timeline.svg"), Catch::Contains("id=\"down-worker-"));
  // ...and refused, naming the file and the option, when it has none.
  const auto none = run_cli("plot '" + off + "' --figures timeline", dir);
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::Contains("off/intervals.csv: expected intervals.csv") &&
                           Catch::Contains("output.intervals"));
  CHECK_FALSE(fs::exists(off + "/figures"));
}

TEST_CASE("failsim report: bad DIR is exit 2 with one message and nothing written",
          "[cli][report]") {
  // The page itself is tested in a browser: report_in_browser (tests/report_in_browser.sh).
  TempDir dir;
  const auto missing = run_cli("report '" + dir.file("nope") + "'", dir);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("nope: expected a result directory, a directory "
                                          "holding them or a sweep directory, found nothing"));
  write_text(dir.file("file.txt"), "x");
  const auto file = run_cli("report '" + dir.file("file.txt") + "'", dir);
  CHECK(file.status == 2);
  CHECK_THAT(file.err, Catch::Contains("file.txt: expected a result directory") &&
                           Catch::Contains("found a file"));
  fs::create_directories(dir.file("empty"));
  const auto empty = run_cli("report '" + dir.file("empty") + "'", dir);
  CHECK(empty.status == 2);
  CHECK_THAT(empty.err, Catch::StartsWith("failsim report: ") && Catch::Contains("empty"));
  CHECK(fs::is_empty(dir.file("empty")));
  // A result directory whose timeseries.csv is broken: refused before anything is written.
  REQUIRE(run_cli("run scenarios/examples/quickstart.json -q -o '" + dir.file("run") + "'", dir)
              .status == 0);
  write_text(dir.file("run") + "/timeseries.csv", "time,version\n0,0\n");
  const auto broken = run_cli("report '" + dir.file("run") + "'", dir);
  CHECK(broken.status == 2);
  CHECK_THAT(broken.err, Catch::Contains("run/timeseries.csv"));
  CHECK_FALSE(fs::exists(dir.file("run") + "/report.html"));
}

TEST_CASE("failsim table: two seeds of the quickstart, every format, bad input exit 2",
          "[cli][table]") {
  TempDir dir;
  const std::string results = dir.path() + "/results";
  for (const char* seed : {"1", "2"}) {
    const auto run = run_cli(std::string("run scenarios/examples/quickstart.json -q --seed ") +
                                 seed + " -o '" + results + "/seed-" + seed + "'",
                             dir);
    REQUIRE(run.status == 0);
  }

  const auto md = run_cli("table '" + results + "' --target 0.5", dir);
  INFO(md.err);
  REQUIRE(md.status == 0);
  CHECK_THAT(md.out, Catch::Contains("| configuration | seeds | final accuracy (fraction) |") &&
                         Catch::Contains("\n| quickstart | 2 | 0.") && Catch::Contains(" ± ") &&
                         Catch::Contains("(2/2)"));
  CHECK(md.out.find("failure 1") == std::string::npos);  // no failures, no failure columns
  // The default columns; no cost column, so no price plan in the caption.
  CHECK(md.out.rfind("| configuration | seeds | final accuracy (fraction) | time to 0.5 (s) | "
                     "gradients lost | gradients rolled back |\n",
                     0) == 0);
  CHECK_THAT(md.out, Catch::EndsWith("Target accuracy 0.5.\n"));
  const auto all = run_cli("table '" + results + "' --columns all", dir);
  CHECK_THAT(all.out,
             Catch::Contains("| cost (USD) |") &&
                 Catch::Contains("; cost plan 'commitment-1yr' of analysis/prices.json.\n"));
  const auto two = run_cli("table '" + results + "' --columns updates,cost_usd", dir);
  CHECK(two.out.rfind("| configuration | seeds | updates | cost (USD) |\n", 0) == 0);

  const std::string csv_file = dir.path() + "/table.csv";
  const auto csv = run_cli("table '" + results + "/seed-2' '" + results + "/seed-1' --format csv " +
                               "--target 0.6 -o '" + csv_file + "'",
                           dir);
  REQUIRE(csv.status == 0);
  CHECK(csv.out.empty());
  const std::string table = read_file(csv_file);
  CHECK(table.rfind("configuration,runs,target_accuracy,plan,final_accuracy_mean,", 0) == 0);
  CHECK_THAT(table, Catch::Contains("\nquickstart,2,0.6,"));
  const auto per_run = run_cli("table '" + results + "' --format csv --per-run", dir);
  CHECK(std::count(per_run.out.begin(), per_run.out.end(), '\n') == 3);
  CHECK_THAT(per_run.out, Catch::Contains("\nquickstart,1,") && Catch::Contains("\nquickstart,2,"));
  const auto latex = run_cli("table '" + results + "' --format latex", dir);
  CHECK_THAT(latex.out, Catch::Contains("\\toprule") && Catch::Contains("quickstart & 2 &"));

  // Bad input: exit 2, a message naming what is wrong, the output file untouched.
  const auto error = [&](const std::string& args, const std::string& message) {
    const auto r = run_cli("table " + args + " -o '" + csv_file + "'", dir);
    INFO(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
    CHECK(read_file(csv_file) == table);
  };
  error("'" + dir.path() + "/nope'", "nope: expected a result directory");
  error("'" + results + "' --format html", "--format: expected md, csv or latex, found \"html\"");
  error("'" + results + "' --target 1.5", "--target: expected a test accuracy in (0, 1]");
  error("'" + results + "' --plan nope", "--plan: expected a plan of");
  error("'" + results + "' --prices '" + dir.path() + "/nope.json'", "nope.json");
  const auto again = run_cli(
      "run scenarios/examples/quickstart.json -q --seed 2 -o '" + dir.path() + "/again'", dir);
  REQUIRE(again.status == 0);
  error("'" + results + "' '" + dir.path() + "/again'",
        "again/result.json: /scenario/seed: expected a seed no other run of configuration "
        "'quickstart' has");
  write_text(results + "/seed-1/result.json", "{\"format\": \"failsim-result\",");
  error("'" + results + "'", "seed-1/result.json:1:");

  // An output that cannot be written: exit 3, nothing left behind.
  const auto unwritable =
      run_cli("table '" + results + "/seed-2' -o '" + dir.path() + "/no/such/dir/table.md'", dir);
  CHECK(unwritable.status == 3);
  CHECK_THAT(unwritable.err, Catch::Contains("no/such/dir"));
  CHECK_FALSE(fs::exists(dir.path() + "/no"));
}

// Issue 21, item 6: what a --set VALUE, a platform file and the actors' stacks can do to a run,
// refused with exit 2 before anything is simulated or written.
TEST_CASE("run --set refuses duplicate keys and bytes that are not UTF-8, writing nothing",
          "[cli]") {
  TempDir dir;
  const std::string run = "run scenarios/examples/quickstart.json -q -o '" + dir.path() + "/out' ";
  auto r = run_cli(run + R"(--set '/optimizer={"learning_rate": 0.1, "learning_rate": 0.2}')", dir);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "failsim run: --set /optimizer: /learning_rate: expected each key at most once in an "
        "object, found 'learning_rate' a second time\n");
  // Before, the run simulated and then failed writing result.json (exit 3, CSVs left behind).
  // (/bin/sh's printf writes the bytes: \377 is 0xff, never a UTF-8 byte.)
  r = run_cli(run + "--set \"/description=$(printf 'caf\\377')\"", dir);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "failsim run: --set /description: expected a value of UTF-8 text (JSON or a string), "
        "found \"caf\\xff\" (byte 4 is not UTF-8)\n");
  r = run_cli(run + "--set \"/description=$(printf '\"caf\\377\"')\"", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("(byte 5 is not UTF-8)"));
  CHECK_FALSE(fs::exists(dir.path() + "/out"));
  // UTF-8 is taken, as JSON or as a string.
  CHECK(run_cli(run + "--set \"/description=$(printf 'caf\\303\\251')\"", dir).status == 0);
}

TEST_CASE("platform files: role hosts of speed 0, no route, a link of bandwidth 0 are exit 2",
          "[cli]") {
  TempDir dir;
  const std::string xml = read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/lab-platform.xml");
  const std::string scenario =
      read_file(FAILSIM_SOURCE_DIR "/scenarios/examples/platform-lab.json");
  const auto edit = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  struct Case {
    const char* what;
    std::string xml, scenario, message;  ///< the message after "<scenario>: "
  };
  const std::string platform = dir.path() + "/lab-platform.xml";
  const std::vector<Case> cases{
      // SimGrid: "The Impossible Did Happen (yet again)", exit 134, once the run started.
      {"a negative host speed",
       edit(xml, R"(id="fast-2" speed="8Gf")", R"(id="fast-2" speed="-8Gf")"), scenario,
       "/cluster/workers/hosts/1: expected a host of speed > 0 in " + platform +
           ", found \"fast-2\" (speed -8000000000 flop/s)"},
      {"a link of bandwidth 0",
       edit(xml, R"(id="fast-2-link" bandwidth="10Gbps")", R"(id="fast-2-link" bandwidth="0")"),
       scenario,
       "/cluster/platform: expected links of bandwidth > 0 between server host \"ps\" and worker "
       "host \"fast-2\", found " +
           platform + " (link \"fast-2-link\" of bandwidth 0 B/s)"},
      // SimGrid: "there is no connecting path between these two hosts", exit 134.
      {"no route between a worker and the server",
       edit(
           xml,
           R"(<route src="ps" dst="fast-2"><link_ctn id="ps-link"/><link_ctn id="fast-2-link"/></route>)",
           ""),
       scenario,
       "/cluster/workers/hosts/1: expected a host with a route to and from server host \"ps\" in " +
           platform + ", found \"fast-2\" (no route from \"ps\" to \"fast-2\")"},
      {"a worker on the server's own host (no loopback route)", xml,
       edit(scenario, R"("slow-1")", R"("ps")"),
       "/cluster/workers/hosts/2: expected a host with a route to and from server host \"ps\" in " +
           platform + ", found \"ps\" (no route from \"ps\" to \"ps\")"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    write_text(platform, c.xml);
    write_text(dir.path() + "/lab.json", c.scenario);
    const std::string label = dir.path() + "/lab.json: ";
    auto r = run_cli("validate '" + dir.path() + "/lab.json'", dir);
    CHECK(r.status == 2);
    CHECK(r.err == label + c.message + "\n");
    r = run_cli("run '" + dir.path() + "/lab.json' -q -o '" + dir.path() + "/out'", dir);
    CHECK(r.status == 2);
    CHECK(r.err == "failsim run: " + label + c.message + "\n");
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
  }
}

TEST_CASE("actors whose stacks do not fit the address-space limit are exit 2 with the remedy",
          "[cli]") {
  TempDir dir;
  // 10,000 softmax workers: SimGrid's 8 MiB stacks need 78 GiB of address space, failsim's
  // default 256 KiB stacks 2.5 GiB; under a 2.5 GiB limit (ulimit -v) neither fits, 192 KiB does.
  const std::string file = dir.path() + "/many.json";
  write_text(file, R"({"name": "many", "data": {"kind": "synthetic", "train_size": 320000,
    "test_size": 200}, "model": {"kind": "softmax"},
    "cluster": {"workers": {"count": 10000, "speed": "1Gf"}, "servers": {"speed": "1Gf"}},
    "consistency": {"mode": "async"}, "evaluation": {"interval": 0}, "stop": {"time": "1ms"}})");
  const std::string limit = "ulimit -v 2621440 && '" FAILSIM_BINARY "' ";
  auto r = failsim::testing::run_shell(limit + "validate '" + file + "'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith(file + ": /cluster/workers/count: expected a job that fits "
                                             "in the address-space limit of 2.5 GiB (ulimit -v): "
                                             "10018 SimGrid actors x 256 KiB stacks"));
  CHECK_THAT(r.err, Catch::EndsWith("a smaller stack, e.g. --cfg=contexts/stack-size:192, or "
                                    "fewer workers, found 10000\n"));
  r = failsim::testing::run_shell(limit + "run '" + file + "' -q -o '" + dir.path() + "/out'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--cfg=contexts/stack-size:192"));
  CHECK_FALSE(fs::exists(dir.path() + "/out"));
  // The remedy passes the check; a stack below the measured need is refused.
  r = failsim::testing::run_shell(limit + "validate --cfg=contexts/stack-size:192 '" + file + "'",
                                  dir);
  CHECK(r.status == 0);
  r = run_cli("validate --cfg=contexts/stack-size:64 '" + file + "'", dir);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "--cfg/--log: expected contexts/stack-size of at least 192 KiB (the deepest actor's "
        "measured need with a margin: docs/performance.md), found 64 KiB\n");
  // Without a limit, mappings: 40,000 workers need two each, beyond vm.max_map_count (65530).
  std::string text = read_file(file);
  text.replace(text.find("10000"), 5, "40000");
  text.replace(text.find("320000"), 6, "1280000");
  write_text(file, text);
  r = run_cli("validate '" + file + "'", dir);
  if (read_file("/proc/sys/vm/max_map_count") == "65530\n") {
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("expected a job whose SimGrid actors fit in the system's "
                                      "65530 memory mappings (vm.max_map_count"));
  }
}

TEST_CASE("the examples that need the deepest stacks run at the smallest stack accepted", "[cli]") {
  // Measured (docs/performance.md): on one math thread, Eigen's temporaries of up to 128 KiB
  // (EIGEN_STACK_ALLOCATION_LIMIT) live on the actor's stack; these two need more than 128 KiB.
  TempDir dir;
  for (const char* example : {"platform-lab", "sync-mlp"}) {
    INFO(example);
    const auto r = run_cli(std::string("run scenarios/examples/") + example +
                               ".json -q --threads 1 --cfg=contexts/stack-size:192 -o '" +
                               dir.path() + "/" + example + "'",
                           dir);
    CHECK(r.status == 0);
  }
}

// Issue 21, friction: --set typos were blamed on the scenario file.
TEST_CASE("run: a bad key or value put there by --set is the --set's error, not the file's",
          "[cli]") {
  TempDir dir;
  const std::string run = "run scenarios/examples/quickstart.json -q -o '" + dir.file("out") + "' ";
  const std::vector<std::pair<std::string, std::string>> cases{
      // An unknown key, a bad value, a bad value inside an object VALUE (its place in VALUE).
      {"--set /optimizer/lrr=0.1",
       "failsim run: --set /optimizer/lrr: expected a known key (kind, learning_rate, momentum, "
       "weight_decay, batch_size, beta1, beta2, eps, warmup_steps, decay_steps, min_lr_ratio, "
       "clip_norm), found unknown key 'lrr'\n"},
      {"--set /optimizer/learning_rate=-1",
       "failsim run: --set /optimizer/learning_rate: expected a number > 0, found -1\n"},
      {R"(--set '/optimizer={"learning_rate": -1, "batch_size": 32}')",
       "failsim run: --set /optimizer: /learning_rate: expected a number > 0, found -1\n"},
      // A value the resolve step refuses, and the last of two settings of one field.
      {"--set /optimizer/batch_size=3000",
       "failsim run: --set /optimizer/batch_size: expected at most the smallest worker shard "
       "(4000 training samples / 2 workers = 2000), found 3000\n"},
      {"--set /optimizer/batch_size=3000 --set /optimizer/batch_size=4000",
       "failsim run: --set /optimizer/batch_size: expected at most the smallest worker shard "
       "(4000 training samples / 2 workers = 2000), found 4000\n"},
  };
  for (const auto& [setting, message] : cases) {
    const auto r = run_cli(run + setting, dir);
    CHECK(r.status == 2);
    CHECK(r.err == message);
    const auto dry = run_cli(run + setting + " --dry-run", dir);
    CHECK(dry.status == 2);
    CHECK(dry.err == message);
  }
  CHECK_FALSE(fs::exists(dir.file("out")));
  // An error elsewhere in the file is still the file's.
  const auto other =
      run_cli(run + "--set /optimizer/learning_rate=0.5 --set /cluster/workers/count=3000", dir);
  CHECK(other.status == 2);
  CHECK_THAT(other.err, Catch::StartsWith("failsim run: scenarios/examples/quickstart.json: "
                                          "/optimizer/batch_size: "));
}

TEST_CASE("run --dry-run checks as run does, prints the estimate, simulates and writes nothing",
          "[cli]") {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r =
      run_cli("run scenarios/examples/server-kill-checkpoint.json --dry-run -o '" + out + "'", dir);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK_FALSE(fs::exists(out));
  // Every field, in order; the numbers are resolve's (checked in tests/test_resolve.cpp).
  CHECK_THAT(r.out,
             Catch::Matches("scenarios/examples/server-kill-checkpoint.json: ok, a dry run: "
                            "nothing simulated, nothing written\n"
                            "  result directory: " +
                            out +
                            "\n"
                            "  job: 330 parameters in 1 shard\\(s\\), 2 worker\\(s\\), 1 "
                            "server process\\(es\\); 4000 training and 1000 test samples\n"
                            "  work: at most [0-9]+ gradients, 60 scheduled evaluations, 0 random "
                            "failures expected\n"
                            "  memory: .* \\(data .*, parameters .*, batch scratch .*\\) and 21 "
                            "SimGrid actors x 256 KiB stacks \\(.*\\)\n"
                            "  wall time: about [0-9.]+ s on one math thread \\(set-up "
                            "[0-9.e-]+ s, simulation [0-9.e-]+ s, math [0-9.e-]+ s; "
                            "docs/performance.md, \"Estimates\"\\)\n"));
  // Refused as run refuses: a bad scenario (2), a SimGrid setting (2), an unwritable directory
  // (3), each before anything is simulated.
  const auto bad = run_cli("run scenarios/examples/quickstart.json --dry-run --set /seed=-1", dir);
  CHECK(bad.status == 2);
  const auto cfg = run_cli(
      "run scenarios/examples/quickstart.json --dry-run --cfg=network/model:Nope -o '" + out + "'",
      dir);
  CHECK(cfg.status == 2);
  CHECK_THAT(cfg.err, Catch::StartsWith("failsim run: --cfg: network/model: expected one of "));
  const auto log = run_cli(
      "run scenarios/examples/quickstart.json --dry-run --log=root.thresh:bogus -o '" + out + "'",
      dir);
  CHECK(log.status == 2);
  CHECK_THAT(log.err, Catch::Contains("--cfg/--log: expected settings SimGrid 3.32 accepts"));
  const std::string file = dir.file("a-file");
  write_text(file, "not a directory");
  const auto unwritable =
      run_cli("run scenarios/examples/quickstart.json --dry-run -o '" + file + "/r'", dir);
  CHECK(unwritable.status == 3);
  CHECK_FALSE(fs::exists(out));
  // No stop but the target accuracy: the gradients and so the wall time are unknown.
  const auto unbounded = run_cli(
      R"(run scenarios/examples/quickstart.json --dry-run --set '/stop={"target_accuracy": 0.9}')",
      dir);
  CHECK(unbounded.status == 0);
  CHECK_THAT(unbounded.out,
             Catch::Contains("  wall time: unknown (gradients unbounded (no stop bounds them))"));
}

TEST_CASE("run: the summary of a run with failures says what was injected and rolled back",
          "[cli]") {
  TempDir dir;
  const auto r = run_cli("run scenarios/examples/server-kill-checkpoint.json --threads 1 -o '" +
                             dir.file("kill") + "'",
                         dir);
  REQUIRE(r.status == 0);
  // The numbers of its result.json: 1 failure, 50 updates rolled back, stalled 2.00 s - 3.51 s.
  const auto result = nlohmann::json::parse(read_file(dir.file("kill") + "/result.json"));
  CHECK(result["summary"]["updates_rolled_back"] == 50);
  CHECK_THAT(r.out, Catch::Contains("\n  1 failure injected; 50 updates rolled back (50 "
                                    "gradients), 0 gradients lost; training stalled 1.51 s\n"
                                    "  results in "));
  // A failure the stop comes before is said to be so; a run without failures has no such line.
  const auto late = run_cli(
      "run scenarios/examples/server-kill-checkpoint.json --threads 1 --set /stop/time=1s "
      "--set /failures/after_stop=record -o '" +
          dir.file("late") + "'",
      dir);
  REQUIRE(late.status == 0);
  CHECK_THAT(late.out, Catch::Contains("\n  0 failures injected, 1 not injected (the run stopped "
                                       "first); 0 updates rolled back (0 gradients), 0 gradients "
                                       "lost; training stalled 0.00 s\n"));
  const auto none =
      run_cli("run scenarios/examples/quickstart.json -o '" + dir.file("none") + "'", dir);
  REQUIRE(none.status == 0);
  CHECK_THAT(none.out, !Catch::Contains("injected"));
}

TEST_CASE("failsim trace fit: the shipped trace's figures, as JSON too; a bad trace is status 2",
          "[cli]") {
  TempDir dir;
  const std::string trace = "data/traces/infinitehbd/fault_trace.json";
  const auto text = run_cli("trace fit " + trace + " --nodes 400", dir);
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("faults: 584 (584 repaired, 0 never)"));
  CHECK_THAT(text.out, Catch::Contains("400 counted (--nodes)"));
  const auto as_json = run_cli("trace fit " + trace + " --nodes 400 --json", dir);
  REQUIRE(as_json.status == 0);
  const auto fit = nlohmann::json::parse(as_json.out);
  // 400 nodes x 348.9798 days x 24 h / 584 faults; the first to the last fault start over 583.
  CHECK(fit["node_mtbf_hours"].get<double>() == Approx(400 * 348.9798 * 24 / 584.0));
  CHECK(fit["cluster_mtbf_hours"].get<double>() == Approx((348.7927 - 3.8955) * 24 / 583.0));
  CHECK(fit["simultaneous_instants"] == 30);
  const double shape = fit["between_instants_weibull"]["shape"].get<double>();
  CHECK(fit["between_instants_weibull"]["shape_ci95"][0].get<double>() < shape);
  const auto bad = run_cli("trace fit tests/fixtures/trace-end-without-start.json", dir);
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Contains("/1/event_type: expected a fault_end of node b"));
  CHECK(run_cli("trace fit " + trace + " --nodes 100", dir).status == 2);
  // A count of 0 says what it expected and found, like every other input error (CLI11's own
  // check said "Value 0 not in range 0.000000 to 1.797e308").
  const auto zero = run_cli("trace fit " + trace + " --nodes 0", dir);
  CHECK(zero.status == 2);
  CHECK(zero.err ==
        "failsim trace fit: --nodes: expected a whole number >= 1, found 0\n"
        "usage: failsim trace fit TRACE [OPTIONS] ('failsim trace fit --help' explains them)\n");
}

TEST_CASE("failsim trace fit: the nodes' rates of the shipped trace, and a cluster's CSV log",
          "[cli]") {
  TempDir dir;
  const auto as_json =
      run_cli("trace fit data/traces/infinitehbd/fault_trace.json --nodes 400 --json", dir);
  REQUIRE(as_json.status == 0);
  const auto rates = nlohmann::json::parse(as_json.out)["node_rates"];
  // 584 faults over 400 nodes (169 never failed); the figures docs/cluster.md quotes.
  CHECK(rates["mean_faults_per_node"].get<double>() == Approx(584.0 / 400.0));
  CHECK(rates["gamma"]["bins"][0]["observed"] == 169.0);
  CHECK(rates["dispersion_index"].get<double>() == Approx(2.577).epsilon(1e-3));
  CHECK(rates["gamma_shape_ml"].get<double>() == Approx(0.8817).epsilon(1e-3));
  // The gamma fits (p 0.55), one rate for every node does not.
  CHECK(rates["gamma"]["p_value"].get<double>() > 0.1);
  CHECK(rates["poisson"]["p_value"].get<double>() < 1e-10);
  // A CSV log read through --log, and a bad --log named as such.
  const std::string log = R"('{"format": "csv", "columns": {"time": "timestamp", "node": "host",
      "cause": "reason", "end": "resolved_at"}}')";
  const auto csv = run_cli("trace fit scenarios/cluster/logs/node-failures.csv --log " + log, dir);
  INFO(csv.err);
  REQUIRE(csv.status == 0);
  CHECK_THAT(csv.out, Catch::Contains("nodes' rates"));
  const auto bad = run_cli(
      R"(trace fit scenarios/cluster/logs/node-failures.csv --log '{"format": "csv"}')", dir);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--log: /columns: expected"));
}
