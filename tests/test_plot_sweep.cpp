// End-to-end: `failsim plot --figures sweep` on a real sweep directory (a tiny `failsim sweep`):
// the figure files, the x axis in SI with its unit, and bad options (exit 2, no figure).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;

namespace {

/// The interpreter `failsim plot` runs, and whether it has matplotlib.
bool have_matplotlib(std::string& python) {
  const char* env = std::getenv("FAILSIM_PYTHON");
  python = env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
  const std::string check = "'" + python + "' -c 'import matplotlib, numpy' >/dev/null 2>&1";
  return std::system(check.c_str()) == 0;
}

}  // namespace

TEST_CASE(
    "failsim plot --figures sweep: a metric against a varied duration with one line per base "
    "and a bad metric or path or directory exit 2 with no figure",
    "[cli][plot][sweep]") {
  std::string python;
  if (!have_matplotlib(python)) {
    FAILSIM_SKIP(python << " cannot import matplotlib and numpy (apt-get install "
                           "python3-matplotlib, or set FAILSIM_PYTHON)");
  }
  TempDir dir;
  // 2 base scenarios x 2 stop times (a duration written in two units) x 2 seeds: 8 short runs.
  const std::string file = dir.file("tiny.json");
  write_text(file, R"({"name": "tiny",
    "scenarios": [")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json",
                  ")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/ssp-softmax.json"],
    "seeds": [1, 2],
    "vary": [{"path": "/stop/time", "range": {"from": "500ms", "to": "1s", "step": "500ms"}}]})");
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
  CHECK_THAT(svg, Catch::Contains("/stop/time (s)") && Catch::Contains("ssp-softmax") &&
                      Catch::Contains("final test accuracy"));
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
