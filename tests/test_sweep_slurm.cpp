// End-to-end, without Slurm: `failsim sweep --emit slurm` (docs/sweeps.md#on-a-slurm-cluster):
// the array range for N runs and chunk K, the scripts' commands and absolute paths, the scripts
// themselves run by bash as Slurm would (SLURM_ARRAY_TASK_ID set, a stand-in sbatch for
// submit.sh) ending with the local sweep's aggregate, --collect naming the runs without a result,
// and every bad option. tests/slurm_integration.sh runs the scripts on a real Slurm.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli_harness.hpp"
#include "temp_dir.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::run_shell;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;

namespace {

const std::string SWEEP = FAILSIM_SOURCE_DIR "/tests/slurm-sweep.json";  // 8 runs

}  // namespace

TEST_CASE("failsim sweep --emit slurm: the array range for N runs and chunk K, the commands",
          "[cli][sweep][slurm]") {
  TempDir dir;
  const fs::path out = dir.file("out");
  // The sweep by a relative path, from the source directory: the scripts name it absolutely.
  const auto r =
      run_cli("sweep tests/slurm-sweep.json --emit slurm --chunk 3 -o '" + out.string() + "'", dir);
  REQUIRE(r.status == 0);
  const std::string slurm = out.string() + "/slurm";
  CHECK_THAT(r.out, Catch::StartsWith("slurm-test: 8 runs as a Slurm job array of 3 tasks (3 "
                                      "runs each), into " +
                                      out.string() + "\n") &&
                        Catch::Contains(slurm + "/array.sbatch ") &&
                        Catch::EndsWith("Submit with:\n  bash " + slurm + "/submit.sh\n"));
  CHECK(r.err.empty());
  for (const char* file : {"array.sbatch", "collect.sbatch", "submit.sh"}) {
    INFO(file);
    CHECK((fs::status(slurm + "/" + file).permissions() & fs::perms::owner_exec) !=
          fs::perms::none);
  }
  CHECK(fs::is_directory(slurm + "/logs"));
  // The plan, as a local sweep writes it: --dry-run of the same file agrees on the runs.
  CHECK_THAT(read_text(out / "sweep.json"), Catch::Contains("\"failsim-sweep-plan\""));
  CHECK(fs::exists(out / "scenarios" / "quickstart_lr-0.05_count-2.json"));
  CHECK_FALSE(fs::exists(out / "runs"));  // nothing run

  const std::string array = read_text(slurm + "/array.sbatch");
  CHECK_THAT(array, Catch::StartsWith("#!/bin/bash\n") &&
                        Catch::Contains("\n#SBATCH --job-name=failsim-slurm-test\n"
                                        "#SBATCH --array=0-2\n"
                                        "#SBATCH --output=" +
                                        slurm + "/logs/array-%A-%a.out\n") &&
                        Catch::Contains("\nfailsim=" FAILSIM_BINARY "\nsweep=" + SWEEP +
                                        "\ndir=" + out.string() + "\nruns=8\nchunk=3\n") &&
                        Catch::Contains(
                            "  \"$failsim\" sweep \"$sweep\" -o \"$dir\" --only \"$index\"\n"));
  CHECK_THAT(array, !Catch::Contains("--partition") && !Catch::Contains("--time"));
  const std::string collect = read_text(slurm + "/collect.sbatch");
  CHECK_THAT(collect, Catch::Contains("#SBATCH --output=" + slurm + "/logs/collect-%j.out\n") &&
                          Catch::EndsWith("\"$failsim\" sweep \"$sweep\" -o \"$dir\" --collect\n"));
  CHECK_THAT(read_text(slurm + "/submit.sh"),
             Catch::Contains("sbatch --parsable \"$@\" \"$slurm_dir/array.sbatch\"") &&
                 Catch::Contains("sbatch --parsable \"$@\" --dependency=\"afterany:$array\" "
                                 "\"$slurm_dir/collect.sbatch\""));

  // The range for other chunks, the throttle and the directives of both jobs.
  const auto range = [&](const std::string& options) {
    const fs::path other = dir.file("range");
    fs::remove_all(other);
    const auto e = run_cli(
        "sweep tests/slurm-sweep.json --emit slurm -q " + options + " -o '" + other.string() + "'",
        dir);
    REQUIRE(e.status == 0);
    CHECK(e.out.empty());
    const std::string text = read_text(other / "slurm" / "array.sbatch");
    const std::size_t at = text.find("#SBATCH --array=") + 16;
    return text.substr(at, text.find('\n', at) - at);
  };
  CHECK(range("") == "0-7");
  CHECK(range("--chunk 1") == "0-7");
  CHECK(range("--chunk 2") == "0-3");
  CHECK(range("--chunk 7") == "0-1");
  CHECK(range("--chunk 8") == "0-0");
  CHECK(range("--chunk 100") == "0-0");
  CHECK(range("--chunk 4 --array-limit 1") == "0-1%1");

  const fs::path directives = dir.file("directives");
  REQUIRE(run_cli("sweep tests/slurm-sweep.json --emit slurm -q --partition gpu,cpu --time 1-12 "
                  "--account proj_1 --sbatch=--mem=2G --sbatch=--qos=long -o '" +
                      directives.string() + "'",
                  dir)
              .status == 0);
  for (const char* file : {"array.sbatch", "collect.sbatch"}) {
    INFO(file);
    CHECK_THAT(read_text(directives / "slurm" / file),
               Catch::Contains("#SBATCH --partition=gpu,cpu\n#SBATCH --time=1-12\n"
                               "#SBATCH --account=proj_1\n#SBATCH --mem=2G\n#SBATCH --qos=long\n"));
  }

  // A directory name with a space and a '%': quoted and escaped in #SBATCH lines, quoted for bash.
  const fs::path odd = dir.file("a b%c");
  REQUIRE(run_cli("sweep tests/slurm-sweep.json --emit slurm -q -o '" + odd.string() + "'", dir)
              .status == 0);
  const std::string odd_array = read_text(odd / "slurm" / "array.sbatch");
  CHECK_THAT(odd_array, Catch::Contains("#SBATCH --output=\"" + dir.path() +
                                        "/a b%%c/slurm/logs/array-%A-%a.out\"\n") &&
                            Catch::Contains("\ndir='" + odd.string() + "'\n"));
}

TEST_CASE(
    "failsim sweep --emit slurm: the scripts run by bash as Slurm runs them end as the local "
    "sweep, resubmitting redoes nothing, --collect names the runs without a result",
    "[cli][sweep][slurm]") {
  TempDir dir;
  const fs::path local = dir.file("local"), out = dir.file("out");
  REQUIRE(run_cli("sweep '" + SWEEP + "' -j 2 -q -o '" + local.string() + "'", dir).status == 0);
  REQUIRE(run_cli("sweep '" + SWEEP + "' --emit slurm --chunk 3 -q -o '" + out.string() + "'", dir)
              .status == 0);
  const std::string slurm = out.string() + "/slurm";

  // submit.sh with a stand-in sbatch that logs its arguments and answers job IDs 41 and 42.
  const std::string bin = dir.file("bin"), log = dir.file("sbatch.log");
  write_text(bin + "/sbatch",
             "#!/bin/sh\necho \"$*\" >> '" + log +
                 "'\ncase \"$*\" in *collect.sbatch) echo '42;cluster' ;; *) echo 41 ;; esac\n");
  fs::permissions(bin + "/sbatch", fs::perms::owner_all);
  const auto submit =
      run_shell("PATH='" + bin + "':\"$PATH\" bash '" + slurm + "/submit.sh' --qos=x", dir);
  REQUIRE(submit.status == 0);
  CHECK(read_text(log) == "--parsable --qos=x " + slurm +
                              "/array.sbatch\n"
                              "--parsable --qos=x --dependency=afterany:41 " +
                              slurm + "/collect.sbatch\n");
  CHECK_THAT(submit.out,
             Catch::StartsWith("failsim sweep slurm-test: array job 41 (3 tasks), collection "
                               "job 42\n  logs in " +
                               slurm + "/logs; once job 42 has ended: " + out.string() +
                               "/runs.csv and table.md\n"));

  // Outside an array job the task script refuses to guess its task.
  const auto bare = run_shell("bash '" + slurm + "/array.sbatch'", dir);
  CHECK(bare.status != 0);
  CHECK_THAT(bare.err, Catch::Contains("SLURM_ARRAY_TASK_ID: is not set: this is a Slurm array "
                                       "job, submit it with sbatch"));

  const auto task = [&](int id) {
    return run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " SLURM_ARRAY_JOB_ID=41 bash '" +
                         slurm + "/array.sbatch'",
                     dir);
  };
  // Before any task: the collection has nothing and names every run.
  const auto empty = run_shell("bash '" + slurm + "/collect.sbatch'", dir);
  CHECK(empty.status == 1);
  CHECK_THAT(empty.err, Catch::Contains("failsim sweep: no result for runs 0-7 (failed, or not "
                                        "run yet): run them with --only INDEX, or start the "
                                        "sweep (or submit its array) again\n"));
  // The last task holds runs 6 and 7 only.
  const auto last = task(2);
  REQUIRE(last.status == 0);
  CHECK_THAT(last.out, Catch::StartsWith("failsim sweep slurm-test: array task 2 of job 41 on ") &&
                           Catch::EndsWith(": runs 6 to 7\n"));
  CHECK_THAT(last.err, Catch::Contains("run 6 done") && Catch::Contains("run 7 done"));
  REQUIRE(task(0).status == 0);
  const auto partial = run_shell("bash '" + slurm + "/collect.sbatch'", dir);
  CHECK(partial.status == 1);
  CHECK_THAT(partial.err, Catch::Contains("no result for runs 3-5 (failed"));
  REQUIRE(task(1).status == 0);
  const auto all = run_shell("bash '" + slurm + "/collect.sbatch'", dir);
  CHECK(all.status == 0);
  CHECK_THAT(all.err, !Catch::Contains("no result"));
  for (const char* f : {"runs.csv", "table.md", "sweep.json"}) {
    INFO(f);
    CHECK(read_text(out / f) == read_text(local / f));
  }
  // Submitted again: every run is already done.
  const auto again = task(1);
  CHECK(again.status == 0);
  CHECK_THAT(again.err, Catch::Contains("run 3 is already done") &&
                            Catch::Contains("run 5 is already done") &&
                            !Catch::Contains("run 3 done"));
  // And --emit again into the directory keeps the results and says so.
  const auto re_emit =
      run_cli("sweep '" + SWEEP + "' --emit slurm --chunk 3 -o '" + out.string() + "'", dir);
  CHECK(re_emit.status == 0);
  CHECK_THAT(re_emit.out, Catch::Contains("  8 runs already have a result: their tasks skip them"));
  CHECK(read_text(out / "runs.csv") == read_text(local / "runs.csv"));
}

TEST_CASE("failsim sweep --emit slurm: bad options are exit 2 and write nothing",
          "[cli][sweep][slurm]") {
  TempDir dir;
  const fs::path out = dir.file("out");
  const auto bad = [&](const std::string& options, const std::string& message) {
    const auto r =
        run_cli("sweep tests/slurm-sweep.json " + options + " -o '" + out.string() + "'", dir);
    INFO(options);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
    CHECK_FALSE(fs::exists(out));
  };
  bad("--emit pbs",
      "failsim sweep: --emit: expected one of slurm, found pbs\nusage: failsim sweep");
  bad("--emit slurm --chunk 0", "failsim sweep: --chunk: expected a whole number >= 1, found 0");
  bad("--emit slurm --array-limit 0",
      "failsim sweep: --array-limit: expected a whole number >= 1, found 0");
  bad("--chunk 2",
      "failsim sweep: --chunk: expected with --emit slurm only (an option of the "
      "Slurm scripts), found it without");
  bad("--time 10", "failsim sweep: --time: expected with --emit slurm only");
  bad("--sbatch=--mem=1G --collect", "failsim sweep: --sbatch: expected with --emit slurm only");
  bad("--emit slurm --only 1",
      "failsim sweep: --emit slurm: expected no --only with it: it runs nothing, it writes the "
      "scripts that run the sweep");
  bad("--emit slurm --collect", "--emit slurm: expected no --collect with it");
  bad("--emit slurm --dry-run", "--emit slurm: expected no --dry-run with it");
  bad("--emit slurm -j 2", "--emit slurm: expected no -j with it");
  bad("--emit slurm --time 2h",
      "failsim sweep: --time: expected a Slurm time limit: MINUTES, MINUTES:SECONDS, "
      "HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS or "
      "UNLIMITED (e.g. 30, 2:00:00, 1-12), found \"2h\"");
  bad("--emit slurm --partition 'a b'",
      "failsim sweep: --partition: expected a partition name (letters, digits, '_', '.', '-'), or "
      "a comma-separated list of them, found \"a b\"");
  bad("--emit slurm --account ''", "failsim sweep: --account: expected an account name");
  bad("--emit slurm --sbatch=mem=1G",
      "failsim sweep: --sbatch: expected an sbatch option on one line, such as "
      "--sbatch=--mem=2G, found \"mem=1G\"");
  bad("--emit slurm --sbatch=--array=1-3",
      "failsim sweep: --sbatch: expected an option the scripts do not set themselves (not "
      "--array, --output, --error, --dependency or --job-name), found \"--array=1-3\"");
  bad("--emit slurm --sbatch='-o /x'", "do not set themselves");

  // A directory an #SBATCH line cannot name.
  const fs::path quote = dir.file("a\"b");
  const auto q =
      run_cli("sweep tests/slurm-sweep.json --emit slurm -o '" + quote.string() + "'", dir);
  CHECK(q.status == 2);
  CHECK_THAT(q.err, Catch::Contains("failsim sweep: --emit slurm: " + quote.string() +
                                    "/slurm/logs: expected a directory an #SBATCH line can "
                                    "name, found '\"', '\\' or a line break in it"));
  CHECK_FALSE(fs::exists(quote));

  // A directory of another plan is refused as a local sweep refuses it.
  write_text(dir.file("other.json"), R"({"name": "slurm-test", "scenarios": [")" FAILSIM_SOURCE_DIR
                                     R"(/scenarios/examples/quickstart.json"]})");
  REQUIRE(
      run_cli("sweep '" + dir.file("other.json") + "' --emit slurm -q -o '" + out.string() + "'",
              dir)
          .status == 0);
  const std::string plan = read_text(out / "sweep.json");
  const auto other =
      run_cli("sweep tests/slurm-sweep.json --emit slurm -o '" + out.string() + "'", dir);
  CHECK(other.status == 2);
  CHECK_THAT(other.err, Catch::Contains("/sweep.json: expected the plan of this sweep file (8 "
                                        "runs), found another plan"));
  CHECK(read_text(out / "sweep.json") == plan);

  const auto help = run_cli("sweep --help", dir);
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Catch::Contains("--emit") && Catch::Contains("--chunk") &&
                           Catch::Contains("--partition") && Catch::Contains("--array-limit") &&
                           Catch::Contains("Slurm (with --emit slurm)"));
}

namespace {

/// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// The text between `start` (included) and the next "```\n" of `markdown`.
std::string block_from(const std::string& markdown, const std::string& start) {
  const std::size_t at = markdown.find(start);
  if (at == std::string::npos) return "(no block starting with " + start + ")";
  return markdown.substr(at, markdown.find("```\n", at) - at);
}

}  // namespace

TEST_CASE("docs/sweeps.md shows --emit slurm's output and array.sbatch as failsim writes them",
          "[cli][sweep][slurm][docs]") {
  TempDir dir;
  const fs::path out = dir.file("ft");
  const auto r = run_cli(
      "sweep scenarios/sweeps/failure-time.json --emit slurm --chunk 5 --time 10 --partition "
      "short -o '" +
          out.string() + "'",
      dir);
  REQUIRE(r.status == 0);
  // The docs' paths: DIR /shared/ft, failsim built in /opt/failsim/build.
  const auto as_in_docs = [&](std::string text) {
    text = replace_all(text, out.string(), "/shared/ft");
    text = replace_all(text, FAILSIM_BINARY, "/opt/failsim/build/cli/failsim");
    return replace_all(text, FAILSIM_SOURCE_DIR, "/opt/failsim");
  };
  const std::string docs = read_text(FAILSIM_SOURCE_DIR "/docs/sweeps.md");
  const std::string command =
      "$ failsim sweep scenarios/sweeps/failure-time.json --emit slurm --chunk 5 --time 10 "
      "--partition short -o /shared/ft\n";
  const std::string shown = block_from(docs, command);
  CHECK(shown.substr(0, shown.find("$ bash")) == command + as_in_docs(r.out));
  CHECK(block_from(docs, "#!/bin/bash\n# failsim sweep \"failure-time\"") ==
        as_in_docs(read_text(out / "slurm" / "array.sbatch")));
}
