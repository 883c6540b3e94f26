// End-to-end: `failsim plot --figures sweep` on a real sweep directory (a tiny `failsim sweep`):
// the figure files, the x axis in SI with its unit, and bad options (exit 2, no figure).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"
#include "temp_dir.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;

namespace {

/// Fails the test, never passes it silently, when the interpreter `failsim plot` runs has no
/// matplotlib (scripts/setup.sh installs it).
void require_matplotlib() {
  const char* env = std::getenv("FAILSIM_PYTHON");
  const std::string python = env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
  const std::string check = "'" + python + "' -c 'import matplotlib, numpy' >/dev/null 2>&1";
  if (std::system(check.c_str()) != 0) {
    FAIL(python << " cannot import matplotlib and numpy (scripts/setup.sh, or apt-get install "
                   "python3-matplotlib, or set FAILSIM_PYTHON)");
  }
}

}  // namespace

TEST_CASE(
    "failsim plot --figures sweep: a metric against a varied duration with one line per base "
    "and a bad metric or path or directory exit 2 with no figure",
    "[cli][plot][sweep]") {
  require_matplotlib();
  TempDir dir;
  // 2 base scenarios x 2 stop times (a duration written in two units) zipped with 2 worker
  // counts, each path with its label, x 2 seeds: 8 short runs.
  const std::string file = dir.file("tiny.json");
  write_text(file, R"({"name": "tiny",
    "scenarios": [")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json",
                  ")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/ssp-softmax.json"],
    "seeds": [1, 2],
    "vary": [{"zip": [
      {"path": "/stop/time", "label": "stop", "range": {"from": "500ms", "to": "1s", "step": "500ms"}},
      {"path": "/cluster/workers/count", "label": "workers", "values": [1, 2]}]}]})");
  const std::string sweep = dir.file("sweep");
  const auto ran = run_cli("sweep '" + file + "' -j 2 -q -o '" + sweep + "'", dir);
  INFO(ran.err);
  REQUIRE(ran.status == 0);

  // The default: final accuracy against the first varied path.
  const std::string out = dir.file("figures");
  const auto plot = run_cli("plot '" + sweep + "' -o '" + out + "'", dir);
  INFO(plot.err);
  REQUIRE(plot.status == 0);
  const std::string png = read_text(out + "/sweep-final_accuracy.png");
  CHECK(png.rfind("\x89PNG", 0) == 0);
  CHECK(png.size() > 1000);
  const std::string svg = read_text(out + "/sweep-final_accuracy.svg");
  // The axis and the legend name the paths by their labels (and the axis by the field's plain
  // name, as runs.csv), not their JSON Pointers.
  CHECK_THAT(svg, Catch::Contains("<!-- stop: stop_time (s) -->") &&
                      Catch::Contains("ssp-softmax") && Catch::Contains("(workers=1)") &&
                      Catch::Contains("final test accuracy"));
  CHECK_THAT(svg, !Catch::Contains("/stop/time") && !Catch::Contains("count="));
  // "0.5s" and "1s" plotted as numbers of seconds: ticks at 0.5 and 1.0, not categories.
  CHECK_THAT(svg, Catch::Contains("0.5") && Catch::Contains("1.0"));

  // Two metrics, PNG only, with the run figures beside them.
  const std::string more = dir.file("more");
  const auto two = run_cli("plot '" + sweep + "' -o '" + more +
                               "' --figures sweep,accuracy --metric updates,end_time_s "
                               "--x /stop/time --format png",
                           dir);
  INFO(two.err);
  CHECK(two.status == 0);
  for (const char* name : {"sweep-updates.png", "sweep-end_time_s.png", "accuracy.png"}) {
    CHECK(fs::file_size(more + "/" + name) > 1000);
  }

  // An integer field on the x axis: a tick at each value, written as an integer (not 1.0, 1.2,
  // ...); and without -o the figures go next to the sweep, in DIR/figures.
  const auto counts = run_cli("plot '" + sweep + "' --x /cluster/workers/count --format svg", dir);
  INFO(counts.err);
  REQUIRE(counts.status == 0);
  const std::string by_count = read_text(sweep + "/figures/sweep-final_accuracy.svg");
  CHECK_THAT(by_count, Catch::Contains("<!-- workers: workers_count -->") &&
                           Catch::Contains("<!-- 1 -->") && Catch::Contains("<!-- 2 -->") &&
                           Catch::Contains("(stop=0.5s)"));
  CHECK_THAT(by_count, !Catch::Contains("<!-- 1.0 -->") && !Catch::Contains("<!-- 1.5 -->"));
  // sweep.json records the labels the figure uses.
  CHECK_THAT(read_text(sweep + "/sweep.json"),
             Catch::Contains("\"labels\": [\n    \"stop\",\n    \"workers\"\n  ]"));

  // A plan written before sweep.json held the labels is still this sweep's: resumed (nothing to
  // redo), and its figure uses the default labels (the pointer's last key).
  std::string plan = read_text(sweep + "/sweep.json");
  const std::string labels = "  \"labels\": [\n    \"stop\",\n    \"workers\"\n  ],\n";
  REQUIRE(plan.find(labels) != std::string::npos);
  plan.erase(plan.find(labels), labels.size());
  write_text(sweep + "/sweep.json", plan);
  const auto resumed = run_cli("sweep '" + file + "' -j 2 -q -o '" + sweep + "'", dir);
  INFO(resumed.err);
  CHECK(resumed.status == 0);
  const std::string old_plan = dir.file("old-plan");
  REQUIRE(run_cli("plot '" + sweep + "' -o '" + old_plan + "' --format svg", dir).status == 0);
  CHECK_THAT(read_text(old_plan + "/sweep-final_accuracy.svg"),
             Catch::Contains("<!-- time: stop_time (s) -->") && Catch::Contains("(count=1)"));

  // Bad options: one message naming the file, the expectation and what was found; exit 2.
  const std::string bad = dir.file("bad");
  const auto metric = run_cli("plot '" + sweep + "' -o '" + bad + "' --metric accuracy", dir);
  CHECK(metric.status == 2);
  CHECK_THAT(metric.err, Catch::Contains("runs.csv: --metric: expected a column of runs.csv") &&
                             Catch::Contains("final_accuracy") &&
                             Catch::Contains("found 'accuracy'"));
  const auto path = run_cli("plot '" + sweep + "' -o '" + bad + "' --x /stop/updates", dir);
  CHECK(path.status == 2);
  CHECK_THAT(path.err,
             Catch::Contains("sweep.json: --x: expected a varied path among /stop/time") &&
                 Catch::Contains("found '/stop/updates'"));
  const auto not_sweep =
      run_cli("plot '" + sweep + "/runs' -o '" + bad + "' --figures sweep --metric updates", dir);
  CHECK(not_sweep.status == 2);
  CHECK_THAT(not_sweep.err, Catch::Contains("expected a sweep directory") &&
                                Catch::Contains("found no sweep.json"));
  const auto stray =
      run_cli("plot '" + sweep + "' -o '" + bad + "' --figures accuracy --x /a", dir);
  CHECK(stray.status == 2);
  CHECK_THAT(stray.err, Catch::Contains("--x: expected with --figures sweep only"));
  CHECK_FALSE(fs::exists(bad));
}

TEST_CASE(
    "a collective sweep: runs.csv has the collective columns, table.md their defaults, and the "
    "sweep, time and report figures draw them",
    "[cli][plot][sweep]") {
  require_matplotlib();
  TempDir dir;
  // The shipped example sweep: zero3-stragglers (time only) checkpointing every 50, 200 or 800
  // steps, two seeds; each run is a fraction of a second.
  const std::string sweep = dir.file("sweep");
  const auto ran = run_cli("sweep '" FAILSIM_SOURCE_DIR
                           "/scenarios/sweeps/collective-checkpoint.json' -j 2 -q -o '" +
                               sweep + "'",
                           dir);
  INFO(ran.err);
  REQUIRE(ran.status == 0);
  const std::string runs = read_text(sweep + "/runs.csv");
  INFO(runs);
  // Named by its last keys; no parameter-server column (no such point).
  CHECK_THAT(runs, Catch::StartsWith("index,point,base,checkpoint_every_steps,seed,status,"
                                     "final_accuracy,end_time_s,failures,ettr,goodput_tokens_per_s,"
                                     "goodput_samples_per_s,tokens_kept,samples_kept,steps_kept,"
                                     "steps_rolled_back,restarts,time_lost_s,time_productive_s,"
                                     "time_stragglers_s,") &&
                       Catch::Contains(",time_unfinished_s,daly_optimum_steps,directory\n") &&
                       !Catch::Contains("gradients"));
  CHECK(std::count(runs.begin(), runs.end(), '\n') == 7);
  CHECK(runs.find(",missing,") == std::string::npos);
  // Time only: no accuracy; the cost under the GPU plan of collective runs.
  const std::string table = read_text(sweep + "/table.md");
  INFO(table);
  CHECK(table.rfind("| configuration | seeds | ETTR (fraction) | goodput (tokens/s) | tokens kept "
                    "| steps rolled back | restarts | time lost (s) | Young/Daly optimum (steps) | "
                    "cost (USD) |\n",
                    0) == 0);
  CHECK_THAT(table, Catch::Contains("cost plan 'gpu-on-demand' of analysis/prices.json."));
  CHECK_THAT(table, Catch::Contains("| zero3-stragglers_checkpoint-every-50 | 2 |"));

  // ETTR against the checkpoint interval: the metric these runs have, without --metric.
  const std::string out = dir.file("figures");
  const auto plot = run_cli("plot '" + sweep + "' -o '" + out + "'", dir);
  INFO(plot.err);
  REQUIRE(plot.status == 0);
  CHECK_THAT(plot.out, Catch::Contains("sweep-ettr.svg") && !Catch::Contains("accuracy"));
  // The interval on a log axis named by its field and unit, the y axis fitted to the data, and
  // the Young/Daly optimum of the runs' own checkpoint cost and failure rate.
  CHECK_THAT(read_text(out + "/sweep-ettr.svg"),
             Catch::Contains("ETTR (productive share of wall time)") &&
                 Catch::Contains("checkpoint-every: checkpoint_every_steps (steps), log scale") &&
                 Catch::Contains("axis zoomed to the data") &&
                 Catch::Contains("Young/Daly optimum ") &&
                 Catch::Contains(" steps (zero3-stragglers: checkpoint "));

  // Where the time went: the default figure of collective runs, one bar per point.
  const std::string time = dir.file("time");
  const auto drawn = run_cli("plot '" + sweep + "/runs' -o '" + time + "'", dir);
  INFO(drawn.err);
  REQUIRE(drawn.status == 0);
  CHECK_THAT(drawn.out, Catch::Contains("time.png") && !Catch::Contains("utilisation"));
  CHECK(read_text(time + "/time.png").rfind("\x89PNG", 0) == 0);
  const std::string svg = read_text(time + "/time.svg");
  CHECK_THAT(svg, Catch::Contains("ETTR 0.") && Catch::Contains("repair wait") &&
                      Catch::Contains("zero3-stragglers_checkpoint-every-800 (2 seeds)") &&
                      Catch::Contains("share of wall time"));

  // The report of the sweep shows it instead of worker time (collective runs have no workers).
  const auto report = run_cli("report '" + sweep + "' -o '" + dir.file("r.html") + "'", dir);
  INFO(report.err);
  REQUIRE(report.status == 0);
  const std::string page = read_text(dir.file("r.html"));
  CHECK_THAT(page, Catch::Contains("alt=\"time\"") && Catch::Contains("alt=\"sweep-ettr\"") &&
                       !Catch::Contains("alt=\"utilisation\"") &&
                       Catch::Contains("Young/Daly optimum of zero3-stragglers: a checkpoint "
                                       "every "));

  // A parameter-server run has no time figure: exit 2, nothing drawn.
  const std::string ps = dir.file("ps");
  REQUIRE(
      run_cli("run '" FAILSIM_SOURCE_DIR "/scenarios/examples/quickstart.json' -q -o '" + ps + "'",
              dir)
          .status == 0);
  const auto refused = run_cli("plot '" + ps + "' --figures time -o '" + dir.file("no") + "'", dir);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("result.json: expected /summary/collective (the time "
                                          "figure is of collective runs, docs/cluster.md), found "
                                          "none"));
  CHECK_FALSE(fs::exists(dir.file("no/time.png")));
}

TEST_CASE(
    "plot, table and report with no options: runs of each protocol, a mix of them, and a sweep "
    "of several base files without vary",
    "[cli][plot][report][sweep]") {
  require_matplotlib();
  TempDir dir;
  const auto ok = [&](const std::string& command) {
    const auto r = run_cli(command, dir);
    INFO(command << "\n" << r.err);
    REQUIRE(r.status == 0);
    return r.out;
  };
  // A parameter-server run, a time-only collective run with a switch failure at 2 h, and a
  // collective run with real math (each a fraction of a second).
  const std::string runs = dir.file("runs");
  ok("run '" FAILSIM_SOURCE_DIR "/scenarios/examples/quickstart.json' -q --set /stop/time=1s -o '" +
     runs + "/ps'");
  ok("run '" FAILSIM_SOURCE_DIR
     "/scenarios/cluster/zero3-stragglers.json' -q --set /stop/time=3h "
     "-o '" +
     runs + "/coll'");
  ok("run '" FAILSIM_SOURCE_DIR "/scenarios/cluster/quorum.json' -q --set /stop/time=1h -o '" +
     runs + "/quorum'");

  // The collective run: its figures, its table priced with the GPU plan, its report.
  const std::string coll = runs + "/coll";
  CHECK_THAT(ok("plot '" + coll + "'"), Catch::Contains("figures/time.svg") &&
                                            Catch::Contains("figures/timeline.svg") &&
                                            !Catch::Contains("accuracy"));
  CHECK_THAT(read_text(coll + "/figures/timeline.svg"),
             Catch::Contains("repair wait") && Catch::Contains("nodes 2-3") &&
                 Catch::Contains("checkpoints (file-system)"));
  CHECK_THAT(ok("table '" + coll + "'"), Catch::Contains("| tokens kept |") &&
                                             Catch::Contains("cost plan 'gpu-on-demand'") &&
                                             !Catch::Contains("(0/1)"));
  ok("report '" + coll + "'");
  const std::string page = read_text(coll + "/report.html");
  // ETTR and the time by cause first; nothing of the parameter server; readable times.
  CHECK(page.find("<h2>Where the time went</h2>") < page.find("<h2>Table</h2>"));
  CHECK_THAT(page, Catch::Contains("tokens lost (rolled back)") &&
                       Catch::Contains("<td>2:00:00.000</td>") &&
                       Catch::Contains("down_for=1200, index=1, nodes=2 3, target=switch") &&
                       Catch::Contains("alt=\"timeline\"") && !Catch::Contains("gradients") &&
                       !Catch::Contains("<h2>Hosts</h2>") && !Catch::Contains("updates"));
  // Real math: the accuracy curve too.
  CHECK_THAT(ok("plot '" + runs + "/quorum'"), Catch::Contains("figures/accuracy.svg"));

  // The parameter-server run keeps its own figures and report.
  CHECK_THAT(ok("plot '" + runs + "/ps'"), Catch::Contains("figures/utilisation.svg"));
  ok("report '" + runs + "/ps'");
  CHECK_THAT(read_text(runs + "/ps/report.html"),
             Catch::Contains("<h2>Hosts</h2>") && Catch::Contains("gradients applied"));

  // All three: each protocol's figures for its runs, in one directory.
  const std::string mixed = ok("plot '" + runs + "' -o '" + dir.file("mixed") + "'");
  CHECK_THAT(mixed, Catch::Contains("utilisation.svg") && Catch::Contains("time.svg") &&
                        Catch::Contains("timeline-zero3-stragglers-seed-7.svg"));
  ok("table '" + runs + "'");
  ok("report '" + runs + "'");

  // A sweep of two base files of either protocol, without vary: the bases on the x axis, the
  // metrics each has (accuracy of one, ETTR of the other).
  const std::string file = dir.file("bases.json");
  write_text(file, R"({"name": "bases", "seeds": [1, 2], "scenarios": [
    ")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json",
    ")" FAILSIM_SOURCE_DIR R"(/scenarios/cluster/zero3-stragglers.json"]})");
  const std::string sweep = dir.file("sweep");
  ok("sweep '" + file + "' -j 2 -q -o '" + sweep + "'");
  const std::string header = read_text(sweep + "/runs.csv").substr(0, 200);
  CHECK_THAT(header, Catch::StartsWith("index,point,base,seed,status,final_accuracy,end_time_s,"
                                       "failures,updates,"));
  CHECK_THAT(ok("plot '" + sweep + "'"),
             Catch::Contains("sweep-final_accuracy.svg") && Catch::Contains("sweep-ettr.svg"));
  CHECK_THAT(read_text(sweep + "/figures/sweep-ettr.svg"), Catch::Contains("base scenario"));
  ok("table '" + sweep + "'");
  ok("report '" + sweep + "'");
  CHECK_THAT(read_text(sweep + "/report.html"), Catch::Contains("alt=\"sweep-ettr\"") &&
                                                    Catch::Contains("alt=\"time\"") &&
                                                    Catch::Contains("alt=\"utilisation\""));
}
