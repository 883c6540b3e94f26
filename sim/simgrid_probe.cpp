#include "sim/simgrid_probe.hpp"

#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "input/input_error.hpp"

namespace failsim::sim {

namespace {

/// Written to the child's stderr once the settings are accepted, before the platform loads.
constexpr const char* PLATFORM_STAGE = "failsim-probe: loading the platform";
/// Written once the platform is loaded, each followed by the name of one of its hosts.
constexpr const char* HOST_LINE = "failsim-probe-host: ";

[[noreturn]] void run_child(int out, const std::vector<std::string>& simgrid_args,
                            const std::string& platform_file) {
  dup2(out, STDERR_FILENO);
  close(out);
  // SimGrid's own report of the failure: the exception handler logs at error level.
  xbt_log_control_set("root.thresh:critical");
  xbt_log_control_set("xbt_exception.thresh:error");
  std::vector<std::string> args{"failsim"};
  args.insert(args.end(), simgrid_args.begin(), simgrid_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  {
    simgrid::s4u::Engine engine(&argc, argv.data());
    if (!platform_file.empty()) {
      std::fprintf(stderr, "%s\n", PLATFORM_STAGE);
      std::fflush(stderr);
      engine.load_platform(platform_file);
      for (const simgrid::s4u::Host* host : engine.get_all_hosts()) {
        std::fprintf(stderr, "%s%s\n", HOST_LINE, host->get_cname());
      }
      std::fflush(stderr);
    }
  }
  _exit(0);  // no atexit handlers: they belong to the parent
}

/// What SimGrid said, for a one-line message: its log lines without their "[time] file:line:
/// [category/LEVEL] " prefixes and "Uncaught exception <type>: ", up to the backtrace or the
/// list of every configuration key, without the closing "Exiting now.", joined by spaces.
std::string messages_of(const std::string& text) {
  std::istringstream lines(text);
  std::string joined;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t level = line.find("] ", line.find("] ") + 2);
    if (line.rfind('[', 0) == 0 && level != std::string::npos) line = line.substr(level + 2);
    const std::string uncaught = "Uncaught exception ";
    if (line.rfind(uncaught, 0) == 0) line = line.substr(line.find(": ", uncaught.size()) + 2);
    if (line.rfind("Current backtrace:", 0) == 0 || line.rfind("Existing config keys:", 0) == 0)
      break;
    if (line.empty() || line == "Exiting now.") continue;
    joined += (joined.empty() ? "" : " ") + line;
  }
  return joined;
}

}  // namespace

void check_platform_hosts(const PlatformCluster& platform,
                          const std::function<bool(const std::string&)>& has_host,
                          const std::string& file_label) {
  auto check = [&](const std::vector<std::string>& names, const char* role) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (has_host(names[i])) continue;
      throw input::InputError(file_label, fmt::format("/cluster/{}/hosts/{}", role, i),
                              fmt::format("the name of a host of {}", platform.file),
                              fmt::format("\"{}\"", names[i]));
    }
  };
  check(platform.server_hosts, "servers");
  check(platform.worker_hosts, "workers");
}

void probe_simgrid_setup(const std::vector<std::string>& simgrid_args, const ClusterConfig& cluster,
                         const std::string& file_label) {
  const std::string platform_file =
      cluster.kind == ClusterKind::PLATFORM ? cluster.platform.file : "";
  if (simgrid_args.empty() && platform_file.empty()) return;
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    run_child(fds[1], simgrid_args, platform_file);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (platform_file.empty()) return;
    std::set<std::string> hosts;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(HOST_LINE, 0) == 0) hosts.insert(line.substr(std::strlen(HOST_LINE)));
    }
    check_platform_hosts(
        cluster.platform, [&](const std::string& name) { return hosts.count(name) == 1; },
        file_label);
    return;
  }

  const std::size_t stage = text.find(PLATFORM_STAGE);
  const bool platform = stage != std::string::npos;
  std::string message =
      messages_of(platform ? text.substr(stage + std::strlen(PLATFORM_STAGE)) : text);
  if (message.empty()) {
    message = WIFSIGNALED(status) ? fmt::format("SimGrid died of signal {}", WTERMSIG(status))
                                  : fmt::format("SimGrid exited with {}", WEXITSTATUS(status));
  }
  if (platform) {
    throw input::InputError(file_label, "/cluster/platform", "a platform file SimGrid 3.32 loads",
                            fmt::format("{} ({})", platform_file, message));
  }
  std::string settings;
  for (const auto& a : simgrid_args) settings += (settings.empty() ? "" : " ") + a;
  throw input::InputError("--cfg/--log", "", "settings SimGrid 3.32 accepts",
                          fmt::format("{} ({})", settings, message));
}

}  // namespace failsim::sim
