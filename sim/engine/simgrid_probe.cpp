#include "sim/engine/simgrid_probe.hpp"

#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <sys/resource.h>
#include <xbt/config.hpp>

#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "input/input_error.hpp"
#include "input/interrupt.hpp"
#include "sim/engine/simgrid_settings.hpp"

namespace failsim::sim {

namespace {

/// Written to the child's stderr once the settings are accepted, before the platform loads.
constexpr const char* PLATFORM_STAGE = "failsim-probe: loading the platform";
/// Written once the engine exists: the stack size in KiB and the guard size in pages it gives.
constexpr const char* STACK_LINE = "failsim-probe-stack: ";
/// Written once the platform is loaded, each followed by the name of one of its hosts.
constexpr const char* HOST_LINE = "failsim-probe-host: ";
/// Written before a route is computed: "<server host>\t<worker host>" (SimGrid may abort in it).
constexpr const char* ROUTE_LINE = "failsim-probe-route: ";
/// A problem of the platform for the scenario's roles: "<pointer>\t<expected>\t<found>".
constexpr const char* PROBLEM_LINE = "failsim-probe-problem: ";

/// The pointer of the first place `name` is listed among `hosts` of `role`.
std::string host_pointer(const std::vector<std::string>& hosts, const std::string& name,
                         const char* role) {
  const auto at = std::find(hosts.begin(), hosts.end(), name) - hosts.begin();
  return fmt::format("/cluster/{}/hosts/{}", role, at);
}

/// The role hosts' speeds, and a route with links of bandwidth > 0 between every server host
/// and every worker host, both ways (parameters go one way, gradients the other). Hosts the
/// file does not have are left to check_platform_hosts.
void check_roles(const PlatformCluster& platform) {
  namespace sg4 = simgrid::s4u;
  const auto problem = [](const std::string& pointer, const std::string& expected,
                          const std::string& found) {
    std::fprintf(stderr, "%s%s\t%s\t%s\n", PROBLEM_LINE, pointer.c_str(), expected.c_str(),
                 found.c_str());
  };
  const auto* engine = sg4::Engine::get_instance();
  const auto check_speeds = [&](const std::vector<std::string>& names, const char* role) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const sg4::Host* host = engine->host_by_name_or_null(names[i]);
      if (host == nullptr || host->get_speed() > 0.0) continue;
      problem(fmt::format("/cluster/{}/hosts/{}", role, i),
              fmt::format("a host of speed > 0 in {}", platform.file),
              fmt::format("\"{}\" (speed {} flop/s)", names[i], host->get_speed()));
    }
  };
  check_speeds(platform.server_hosts, "servers");
  check_speeds(platform.worker_hosts, "workers");
  const std::set<std::string> servers(platform.server_hosts.begin(), platform.server_hosts.end());
  const std::set<std::string> workers(platform.worker_hosts.begin(), platform.worker_hosts.end());
  for (const std::string& s : servers) {
    sg4::Host* server = engine->host_by_name_or_null(s);
    for (const std::string& w : workers) {
      sg4::Host* worker = engine->host_by_name_or_null(w);
      if (server == nullptr || worker == nullptr) continue;
      for (const auto& [from, to] : {std::pair{server, worker}, std::pair{worker, server}}) {
        std::fprintf(stderr, "%s%s\t%s\n", ROUTE_LINE, from->get_cname(), to->get_cname());
        std::fflush(stderr);
        std::vector<sg4::Link*> links;
        double latency = 0.0;
        std::string no_route;
        try {
          from->route_to(to, links, &latency);
          // What SimGrid's network model asserts before a transfer (network_cm02.cpp).
          if (links.empty() && latency <= 0.0)
            no_route =
                fmt::format("no route from \"{}\" to \"{}\"", from->get_cname(), to->get_cname());
        } catch (const std::exception& e) {
          no_route = e.what();
        }
        if (!no_route.empty()) {
          problem(host_pointer(platform.worker_hosts, w, "workers"),
                  fmt::format("a host with a route to and from server host \"{}\" in {}", s,
                              platform.file),
                  fmt::format("\"{}\" ({})", w, no_route));
          continue;
        }
        for (const sg4::Link* link : links) {
          if (link->get_bandwidth() > 0.0) continue;
          problem("/cluster/platform",
                  fmt::format("links of bandwidth > 0 between server host \"{}\" and worker host "
                              "\"{}\"",
                              s, w),
                  fmt::format("{} (link \"{}\" of bandwidth {} B/s)", platform.file,
                              link->get_cname(), link->get_bandwidth()));
        }
      }
    }
  }
}

[[noreturn]] void run_child(int out, const std::vector<std::string>& simgrid_args,
                            const PlatformCluster* platform) {
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
    std::fprintf(stderr, "%s%d %d\n", STACK_LINE,
                 simgrid::config::get_value<int>("contexts/stack-size"),
                 simgrid::config::get_value<int>("contexts/guard-size"));
    if (platform != nullptr) {
      std::fprintf(stderr, "%s\n", PLATFORM_STAGE);
      std::fflush(stderr);
      engine.load_platform(platform->file);
      for (const simgrid::s4u::Host* host : engine.get_all_hosts()) {
        std::fprintf(stderr, "%s%s\n", HOST_LINE, host->get_cname());
      }
      check_roles(*platform);
    }
    std::fflush(stderr);
  }
  _exit(0);  // no atexit handlers: they belong to the parent
}

/// The soft address-space limit (`ulimit -v`) in bytes; nullopt when unlimited.
std::optional<double> address_space_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<double>(limit.rlim_cur);
}

/// vm.max_map_count: the memory mappings a process may have (Linux's default is 65530).
double max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  double count = 65530;
  in >> count;
  return count;
}

/// What the process holds besides the job's estimate: libraries (libsimgrid pulls in ns-3),
/// the engine, the math pool's threads. Measured: about 150 MiB of address space at start.
constexpr double BASE_ADDRESS_SPACE = 512.0 * (1 << 20);
/// Mappings besides the actors' stacks: libraries and the heap's arenas.
constexpr double BASE_MAPPINGS = 2000;

// Every actor gets a stack of contexts/stack-size and a guard page, each its own mapping:
// SimGrid dies with "Failed to allocate stack" when they do not fit (issue 21, item 4).
ActorStacks check_actor_stacks(const std::string& stack_line, const Scenario& scenario,
                               const ResolvedJob& job, const std::string& file_label) {
  int stack_kib = 0;
  int guard_pages = 0;
  std::istringstream(stack_line) >> stack_kib >> guard_pages;
  const std::string user_cfg = "--cfg/--log";
  if (stack_kib < MIN_STACK_KIB) {
    throw input::InputError(
        user_cfg, "",
        fmt::format("contexts/stack-size of at least {} KiB (the deepest actor's measured need "
                    "with a margin: docs/performance.md)",
                    MIN_STACK_KIB),
        fmt::format("{} KiB", stack_kib));
  }
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double actors = job.memory.actors;
  const auto needed = [&](double kib) {
    return actors * (kib * 1024.0 + guard_pages * page) + job.memory.resident_bytes() +
           BASE_ADDRESS_SPACE;
  };
  const bool star = scenario.cluster.kind == ClusterKind::STAR;
  const std::string field = star ? "/cluster/workers/count" : "/cluster/workers/hosts";
  const std::string found = std::to_string(scenario.cluster.num_workers());
  const double mappings = 2.0 * actors + BASE_MAPPINGS;
  if (mappings > max_map_count()) {
    throw input::InputError(
        file_label, field,
        fmt::format("a job whose SimGrid actors fit in the system's {:.0f} memory mappings "
                    "(vm.max_map_count; each of the {:.0f} actors takes 2: its stack and its "
                    "guard page): fewer workers, or a higher vm.max_map_count (sysctl)",
                    max_map_count(), actors),
        found);
  }
  const std::optional<double> limit = address_space_limit();
  const ActorStacks stacks{stack_kib, actors * (stack_kib * 1024.0 + guard_pages * page)};
  if (!limit || needed(stack_kib) <= *limit) return stacks;
  // The largest stack that fits, in steps of 64 KiB, if one of at least MIN_STACK_KIB does.
  const double room = (*limit - needed(0)) / actors - guard_pages * page;
  const int fitting = static_cast<int>(room / 1024.0 / 64.0) * 64;
  const std::string remedy =
      fitting >= MIN_STACK_KIB
          ? fmt::format("a smaller stack, e.g. --cfg=contexts/stack-size:{}, or fewer workers",
                        fitting)
          : std::string("fewer workers, or a higher limit (ulimit -v): even stacks of ") +
                std::to_string(MIN_STACK_KIB) + " KiB do not fit";
  throw input::InputError(
      file_label, field,
      fmt::format("a job that fits in the address-space limit of {} (ulimit -v): {:.0f} SimGrid "
                  "actors x {} KiB stacks ({}) and {} of data and models need {}; {}",
                  format_bytes(*limit), actors, stack_kib, format_bytes(stacks.bytes),
                  format_bytes(job.memory.resident_bytes()), format_bytes(needed(stack_kib)),
                  remedy),
      found);
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

std::vector<std::string> simgrid_arguments(const std::vector<std::string>& user_args) {
  std::vector<std::string> args{fmt::format("--cfg=contexts/stack-size:{}", DEFAULT_STACK_KIB)};
  args.insert(args.end(), user_args.begin(), user_args.end());
  return args;
}

namespace {

/// What the probe's child wrote on its stderr, and how it ended (waitpid's status).
struct ProbeRun {
  std::string text;
  int status = 0;
};

/// Runs run_child in a forked process and collects its stderr until it ends.
ProbeRun run_probe(const std::vector<std::string>& simgrid_args, const PlatformCluster* platform) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    run_child(fds[1], simgrid_args, platform);
  }
  close(fds[1]);
  ProbeRun run;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno != EINTR) break;
      // Ctrl-C or SIGTERM (input::catch_interrupts, no SA_RESTART): the child is not waited for.
      if (const int signal = input::caught_interrupt()) {
        kill(pid, SIGKILL);
        close(fds[0]);
        while (waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {
        }
        throw input::Interrupted(signal, "while SimGrid's settings were tried in a child process");
      }
      continue;
    }
    run.text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  while (waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

/// The child's lines of failsim-probe-*: the platform's hosts, the stack line, the last route it
/// started computing and the problems of the platform it found, in order.
struct ProbeLines {
  std::set<std::string> hosts;
  std::string stack_line;
  std::string last_route;
  std::vector<std::string> problems;
};

ProbeLines parse_probe_lines(const std::string& text) {
  ProbeLines out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto after = [&](const char* prefix) -> std::optional<std::string> {
      if (line.rfind(prefix, 0) != 0) return std::nullopt;
      return line.substr(std::strlen(prefix));
    };
    if (auto v = after(HOST_LINE)) out.hosts.insert(*v);
    if (auto v = after(STACK_LINE)) out.stack_line = *v;
    if (auto v = after(ROUTE_LINE)) out.last_route = *v;
    if (auto v = after(PROBLEM_LINE)) out.problems.push_back(*v);
  }
  return out;
}

/// The platform file against the scenario's roles, from what the child found: a role host the
/// file lacks, then the first problem, then (when the child died) the route SimGrid died
/// computing. Returns when none of them.
void check_platform_probe(const PlatformCluster& platform, const ProbeLines& lines,
                          const std::string& text, bool exited, const std::string& file_label) {
  check_platform_hosts(
      platform, [&](const std::string& name) { return lines.hosts.count(name) == 1; }, file_label);
  if (!lines.problems.empty()) {
    const std::string& p = lines.problems.front();
    const std::size_t tab1 = p.find('\t');
    const std::size_t tab2 = p.find('\t', tab1 + 1);
    throw input::InputError(file_label, p.substr(0, tab1), p.substr(tab1 + 1, tab2 - tab1 - 1),
                            p.substr(tab2 + 1));
  }
  if (exited) return;
  // SimGrid died computing the route of the last pair it was given.
  const std::size_t tab = lines.last_route.find('\t');
  const std::string from = lines.last_route.substr(0, tab);
  const std::string to = lines.last_route.substr(tab + 1);
  const bool from_server = std::find(platform.server_hosts.begin(), platform.server_hosts.end(),
                                     from) != platform.server_hosts.end();
  const std::string worker = from_server ? to : from;
  const std::string server = from_server ? from : to;
  throw input::InputError(
      file_label, host_pointer(platform.worker_hosts, worker, "workers"),
      fmt::format("a host with a route to and from server host \"{}\" in {}", server,
                  platform.file),
      fmt::format("\"{}\" (no route from \"{}\" to \"{}\": {})", worker, from, to,
                  messages_of(text.substr(text.find('\n', text.rfind(ROUTE_LINE)) + 1))));
}

/// The child died before the platform's checks: SimGrid refused the platform file (it had
/// started loading it) or the settings.
[[noreturn]] void fail_probe(const ProbeRun& probe, const PlatformCluster& platform,
                             const std::vector<std::string>& user_args,
                             const std::string& file_label) {
  const std::string& text = probe.text;
  const std::size_t stage = text.find(PLATFORM_STAGE);
  const bool platform_stage = stage != std::string::npos;
  std::string message =
      messages_of(platform_stage ? text.substr(stage + std::strlen(PLATFORM_STAGE)) : text);
  if (message.empty()) {
    message = WIFSIGNALED(probe.status)
                  ? fmt::format("SimGrid died of signal {}", WTERMSIG(probe.status))
                  : fmt::format("SimGrid exited with {}", WEXITSTATUS(probe.status));
  }
  if (platform_stage) {
    throw input::InputError(file_label, "/cluster/platform", "a platform file SimGrid 3.32 loads",
                            fmt::format("{} ({})", platform.file, message));
  }
  std::string settings;
  for (const auto& a : user_args) settings += (settings.empty() ? "" : " ") + a;
  throw input::InputError("--cfg/--log", "", "settings SimGrid 3.32 accepts",
                          fmt::format("{} ({})", settings, message));
}

}  // namespace

ActorStacks probe_simgrid_setup(const std::vector<std::string>& user_args, const Scenario& scenario,
                                const ResolvedJob& job, const std::string& file_label) {
  check_simgrid_args(user_args);  // the settings failsim takes, before SimGrid sees them
  const ClusterConfig& cluster = scenario.cluster;
  const PlatformCluster* platform =
      cluster.kind == ClusterKind::PLATFORM ? &cluster.platform : nullptr;
  const ProbeRun probe = run_probe(simgrid_arguments(user_args), platform);
  const ProbeLines lines = parse_probe_lines(probe.text);
  const bool exited = WIFEXITED(probe.status) && WEXITSTATUS(probe.status) == 0;
  if (platform != nullptr && (exited || !lines.last_route.empty())) {
    check_platform_probe(*platform, lines, probe.text, exited, file_label);
  }
  if (exited) return check_actor_stacks(lines.stack_line, scenario, job, file_label);
  fail_probe(probe, cluster.platform, user_args, file_label);
}

}  // namespace failsim::sim
