// `failsim plot DIR... -o OUTDIR [options]`: figures of result directories, drawn by
// analysis/plot.py with matplotlib (docs/plots.md). This file only finds the interpreter and the
// script and forwards the arguments untouched: the script's argparse is the one list of options,
// so `failsim plot --help` is the script's help and nothing is kept in sync by hand.
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.hpp"

extern char** environ;

namespace failsim::cli {

namespace {
namespace fs = std::filesystem;

constexpr const char* SETUP_HINT =
    "run scripts/setup.sh (or apt-get install python3-matplotlib), or set FAILSIM_PYTHON to a "
    "python3 that has matplotlib";

/// The script: an installed copy next to the executable (`<prefix>/bin/failsim` ->
/// `<prefix>/share/failsim/plot.py`) first, else the source tree's analysis/plot.py this binary
/// was built from. Empty if neither exists.
std::string find_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "failsim" / "plot.py";
    if (fs::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  if (fs::is_regular_file(FAILSIM_PLOT_SCRIPT, ec)) return FAILSIM_PLOT_SCRIPT;
  return {};
}

int run_plot(const std::vector<std::string>& args) {
  const char* from_env = std::getenv("FAILSIM_PYTHON");
  const std::string python =
      from_env != nullptr && *from_env != '\0' ? from_env : "/usr/bin/python3";
  const std::string script = find_script();
  if (script.empty()) {
    fmt::print(stderr,
               "failsim plot: expected the plotting script at {} or next to the executable in "
               "../share/failsim/plot.py, found neither\n",
               FAILSIM_PLOT_SCRIPT);
    return RUN_FAILED;
  }

  std::vector<std::string> words{python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // The script names itself after the command the user typed in usage lines and errors.
  setenv("FAILSIM_PLOT_PROG", "failsim plot", 1);

  pid_t pid = 0;
  // posix_spawnp searches PATH when FAILSIM_PYTHON has no slash, and (glibc) reports an exec
  // failure as its return value, so a missing interpreter is told apart from the script's exit.
  const int error = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0) {
    fmt::print(stderr, "failsim plot: cannot run the Python interpreter {} ({}); {}\n", python,
               std::strerror(error), SETUP_HINT);
    return RUN_FAILED;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fmt::print(stderr, "failsim plot: lost the plotting process ({})\n", std::strerror(errno));
      return RUN_FAILED;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);  // the script's own status (docs/cli.md)
  fmt::print(stderr, "failsim plot: {} {} was killed by signal {}\n", python, script,
             WTERMSIG(status));
  return RUN_FAILED;
}
}  // namespace

Command add_plot_command(CLI::App& app) {
  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "plot", "Draw figures (accuracy, gradients, utilisation) of result directories");
  // Every argument, --help included, goes to the script untouched.
  sub->set_help_flag();
  sub->prefix_command();
  return {sub, [sub, args] {
            *args = sub->remaining();
            return run_plot(*args);
          }};
}

}  // namespace failsim::cli
