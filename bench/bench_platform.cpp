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
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <fmt/core.h>

#include <cstdlib>
#include <ctime>
#include <exception>
#include <sstream>
#include <string>

#include "sim/collective/network/cluster_platform.hpp"
#include "tests/in_child.hpp"
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
  double max_rss_kib = 0.0;  // the child's peak, engine and platform
};

/// Builds the platform of `nodes` nodes in a forked child, the old way or the new.
Measured build_in_child(int nodes, bool old) {
  const std::string text = failsim::testing::in_child([nodes, old] {
    xbt_log_control_set("root.thresh:critical");
    simgrid::s4u::Engine engine("bench_platform");
    failsim::sim::use_cluster_network_model(engine);
    const ClusterPlatformConfig c = config(nodes);
    const double start = cpu_seconds();
    if (old) {
      failsim::testing::build_reference_platform(engine, c);
    } else {
      failsim::sim::build_cluster_platform(engine, c);
    }
    const double cpu = cpu_seconds() - start;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return fmt::format("{} {}", cpu, usage.ru_maxrss);
  });
  Measured m;
  std::istringstream(text) >> m.cpu_seconds >> m.max_rss_kib;
  return m;
}

void build(benchmark::State& state, bool old) {
  const int nodes = static_cast<int>(state.range(0));
  Measured m;
  for (auto _ : state) {
    try {
      m = build_in_child(nodes, old);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    state.SetIterationTime(m.cpu_seconds);
  }
  state.counters["nodes"] = nodes;
  state.counters["cpu_us_per_node"] = 1e6 * m.cpu_seconds / nodes;
  state.counters["max_rss_MiB"] = m.max_rss_kib / 1024.0;
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
