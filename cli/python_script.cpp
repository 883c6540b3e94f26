#include "cli/python_script.hpp"

#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli/commands.hpp"

extern char** environ;

#ifndef FAILSIM_ANALYSIS_DIR
#error "FAILSIM_ANALYSIS_DIR (the source tree's analysis/) must be defined"
#endif

namespace failsim::cli {

namespace {
namespace fs = std::filesystem;

constexpr const char* SETUP_HINT =
    "run scripts/setup.sh (or apt-get install python3-matplotlib), or set FAILSIM_PYTHON to a "
    "python3 that has matplotlib";
}  // namespace

std::string find_analysis_script(const std::string& name) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "failsim" / name;
    if (fs::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  const fs::path source = fs::path(FAILSIM_ANALYSIS_DIR) / name;
  if (fs::is_regular_file(source, ec)) return source.string();
  return {};
}

int run_analysis_script(const std::string& name, const std::string& prog,
                        const std::vector<std::string>& args) {
  const char* from_env = std::getenv("FAILSIM_PYTHON");
  const std::string python =
      from_env != nullptr && *from_env != '\0' ? from_env : "/usr/bin/python3";
  const std::string script = find_analysis_script(name);
  if (script.empty()) {
    fmt::print(stderr,
               "{}: expected the script at {}/{} or next to the executable in "
               "../share/failsim/{}, found neither\n",
               prog, FAILSIM_ANALYSIS_DIR, name, name);
    return RUN_FAILED;
  }

  std::vector<std::string> words{python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // The script names itself after the command the user typed in usage lines and errors.
  setenv("FAILSIM_PLOT_PROG", prog.c_str(), 1);

  pid_t pid = 0;
  // posix_spawnp searches PATH when FAILSIM_PYTHON has no slash, and (glibc) reports an exec
  // failure as its return value, so a missing interpreter is told apart from the script's exit.
  const int error = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0) {
    fmt::print(stderr, "{}: cannot run the Python interpreter {} ({}); {}\n", prog, python,
               std::strerror(error), SETUP_HINT);
    return RUN_FAILED;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fmt::print(stderr, "{}: lost the Python process ({})\n", prog, std::strerror(errno));
      return RUN_FAILED;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);  // the script's own status (docs/cli.md)
  fmt::print(stderr, "{}: {} {} was killed by signal {}\n", prog, python, script, WTERMSIG(status));
  return RUN_FAILED;
}

}  // namespace failsim::cli
