// The collective platform's construction (build_cluster_platform) from 512 to 16,384 nodes of 8
// accelerators (leaves of 16 nodes, 8 spines, like scenarios/cluster/hybrid-1024.json), and the
// platform failsim built before (tests/reference_platform.hpp: a SimGrid fat-tree of per-node
// zones, quadratic in the nodes) up to FAILSIM_BENCH_OLD_MAX_NODES nodes (default 4,096, the
// largest a scenario may ask for; beyond, it takes many minutes). Each construction runs in a
// forked child, since SimGrid allows one engine (and its fat-tree one zone) per process; the
// time reported is the child's CPU time in build_cluster_platform alone (manual time), so other
// processes on the machine inflate it less than wall time. Counters: the child's peak resident
// memory and the CPU microseconds per node.
//
//   bench_platform --benchmark_counters_tabular=true     (bench/platform-build.sh: a table)
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <string>

#include "sim/collective/network/cluster_platform.hpp"
#include "tests/reference_platform.hpp"

namespace {

using failsim::sim::ClusterPlatformConfig;

constexpr int FIRST_NODES = 512;
constexpr int LAST_NODES = 16'384;
constexpr int DEFAULT_OLD_MAX_NODES = 4'096;

/// H100-like nodes (scenarios/cluster/nodes/h100-8x.json) on hybrid-1024.json's fat-tree.
ClusterPlatformConfig config(int nodes) {
  ClusterPlatformConfig c;
  c.nodes = nodes;
  c.node.accelerators = 8;
  c.node.accelerator_speed = 989e12;
  c.node.intra_bandwidth = 450e9;
  c.node.intra_latency = 1e-6;
  c.node.nics = 8;
  c.node.nic_bandwidth = 50e9;
  c.node.nic_latency = 2e-6;
  c.topology.nodes_per_leaf = 16;
  c.topology.spines = 8;
  c.file_system.write_bandwidth = 200e9;
  c.file_system.read_bandwidth = 400e9;
  c.file_system.latency = 1e-4;
  return c;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Measured {
  double cpu_seconds = 0.0;  // in the construction
  long max_rss_kib = 0;      // the child's peak, engine and platform
};

/// Builds the platform of `nodes` nodes in a forked child, the old way or the new.
Measured build_in_child(int nodes, bool old) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    xbt_log_control_set("root.thresh:critical");
    simgrid::s4u::Engine engine("bench_platform");
    failsim::sim::use_cluster_network_model(engine);
    const ClusterPlatformConfig c = config(nodes);
    Measured m;
    const double start = cpu_seconds();
    if (old) {
      failsim::testing::build_reference_platform(engine, c);
    } else {
      failsim::sim::build_cluster_platform(engine, c);
    }
    m.cpu_seconds = cpu_seconds() - start;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    m.max_rss_kib = usage.ru_maxrss;
    const bool written = write(fds[1], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    std::_Exit(written ? 0 : 1);  // the engine's teardown is not measured
  }
  close(fds[1]);
  Measured m;
  const bool read_all = read(fds[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!read_all || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("the child building {} nodes failed", nodes));
  }
  return m;
}

void build(benchmark::State& state, bool old) {
  const int nodes = static_cast<int>(state.range(0));
  Measured m;
  for (auto _ : state) {
    m = build_in_child(nodes, old);
    state.SetIterationTime(m.cpu_seconds);
  }
  state.counters["nodes"] = nodes;
  state.counters["cpu_us_per_node"] = 1e6 * m.cpu_seconds / nodes;
  state.counters["max_rss_MiB"] = static_cast<double>(m.max_rss_kib) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* limit = std::getenv("FAILSIM_BENCH_OLD_MAX_NODES");
  const int old_max = limit != nullptr ? std::atoi(limit) : DEFAULT_OLD_MAX_NODES;
  for (int nodes = FIRST_NODES; nodes <= LAST_NODES; nodes *= 2) {
    for (const bool old : {true, false}) {
      if (old && nodes > old_max) continue;
      benchmark::RegisterBenchmark(fmt::format("platform/{}", old ? "old" : "new").c_str(),
                                   [old](benchmark::State& state) { build(state, old); })
          ->Arg(nodes)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
