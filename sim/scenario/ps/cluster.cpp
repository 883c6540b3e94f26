// The `cluster` section: the built-in star or a platform file's hosts, the server shards and
// the storage host. How many server hosts there may be and whether a storage host exists are
// the recovery strategy's to say, so the section is read after `recovery` and checks against it.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim {
namespace fs = std::filesystem;
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

int ClusterConfig::num_workers() const {
  return static_cast<int>(kind == ClusterKind::STAR ? star.worker_speeds.size()
                                                    : platform.worker_hosts.size());
}

int ClusterConfig::num_servers() const {
  return kind == ClusterKind::STAR ? star.servers : static_cast<int>(platform.server_hosts.size());
}

namespace detail {
namespace {

std::vector<std::string> read_hosts(const ObjectReader& r) {
  return r.list(
      "hosts", 1, "host names of the platform file",
      [](const nlohmann::json& v, const JsonLocation& where) { return read_string(v, where); });
}

/// A chain runs one replica per server host, so it needs two at least; a strategy whose settings
/// keep spares (multi-level checkpoints) runs one server and keeps the other hosts as
/// replacements for a host lost for good; every other strategy runs one parameter server, and a
/// second host nothing would use must not pass silently. Reported at the cluster field, naming
/// the strategy that decides.
void check_server_count(int count, const RecoveryConfig& recovery, const JsonLocation& where,
                        const std::string& found) {
  const RecoveryStrategy& strategy = recovery.kind();
  if (strategy.keeps_spares != nullptr && strategy.keeps_spares(recovery.settings)) return;
  if (strategy.uses_chain) {
    if (count < 2) {
      where.fail(fmt::format("at least 2 servers (recovery strategy {} runs one replica per "
                             "server host)",
                             quoted_name(strategy.name)),
                 found);
    }
  } else if (count != 1) {
    // The chains first, then the strategies whose settings may keep spares.
    std::vector<std::string> several;
    for (const RecoveryStrategy& s : recovery_strategies()) {
      if (s.uses_chain) several.push_back(quoted_name(s.name));
    }
    for (const RecoveryStrategy& s : recovery_strategies()) {
      if (s.keeps_spares != nullptr)
        several.push_back(fmt::format("{} {}", s.spares_with, quoted_name(s.name)));
    }
    where.fail(fmt::format("1 server (recovery strategy {} runs one parameter server; only {} use "
                           "several)",
                           quoted_name(strategy.name), join_and(several)),
               found);
  }
}

StorageConfig read_storage(const ObjectReader& cluster, ClusterKind kind,
                           const RecoveryStrategy& strategy) {
  StorageConfig st;
  if (!strategy.uses_storage) {
    cluster.forbid(
        "storage",
        fmt::format("the storage host serves only recovery {}, not {}",
                    strategies_with([](const RecoveryStrategy& s) { return s.uses_storage; }),
                    quoted_name(strategy.name)));
    return st;
  }
  const ObjectReader r = cluster.object_or_empty("storage", {"host", "disk_read", "disk_write"});
  if (kind == ClusterKind::PLATFORM) {
    st.host = r.string("host");
  } else {
    r.forbid("host",
             "the built-in star has its own storage host; 'host' names a host of a "
             "platform file");
  }
  st.disk_read = r.quantity_or("disk_read", st.disk_read, Quantity::BANDWIDTH, Sign::POSITIVE);
  st.disk_write = r.quantity_or("disk_write", st.disk_write, Quantity::BANDWIDTH, Sign::POSITIVE);
  return st;
}

/// The hosts of a SimGrid platform file (cluster.platform).
void read_platform_cluster(const ObjectReader& r, const ObjectReader& workers,
                           const ObjectReader& servers, const std::string& file_label,
                           const RecoveryConfig& recovery, PlatformCluster& p) {
  const std::string written = r.string("platform");
  check_path(r.at("platform"), written);
  p.file = resolve_path(written, file_label);
  if (!fs::is_regular_file(p.file)) {
    r.at("platform")
        .fail("a SimGrid XML platform file (relative to the scenario file)",
              fmt::format("\"{}\" (resolved to {}, no such file)", written, p.file));
  }
  r.forbid("network", "a platform file describes its own links");
  const char* from_file = "with a platform file, list the hosts in 'hosts'";
  for (const char* key : {"count", "speed", "speeds"}) workers.forbid(key, from_file);
  for (const char* key : {"count", "speed"}) servers.forbid(key, from_file);
  p.worker_hosts = read_hosts(workers);
  p.server_hosts = read_hosts(servers);
  if (static_cast<std::int64_t>(p.worker_hosts.size()) > MAX_WORKERS) {
    workers.at("hosts").fail(
        fmt::format("at most {} workers (the simulator's limit, docs/scenario-format.md)",
                    MAX_WORKERS),
        fmt::format("{} hosts", p.worker_hosts.size()));
  }
  servers.forbid("shards", "sharded servers need the built-in star cluster");
  check_server_count(
      static_cast<int>(p.server_hosts.size()), recovery, servers.at("hosts"),
      fmt::format("{} host{}", p.server_hosts.size(), p.server_hosts.size() == 1 ? "" : "s"));
}

/// The built-in star: worker and server counts and speeds, its links.
void read_star_cluster(const ObjectReader& r, const ObjectReader& workers,
                       const ObjectReader& servers, const RecoveryConfig& recovery,
                       ClusterConfig& c) {
  StarCluster& s = c.star;
  const char* star_only = "'hosts' needs a platform file in cluster.platform";
  workers.forbid("hosts", star_only);
  servers.forbid("hosts", star_only);
  const int count = to_int(workers.integer("count", 1, INT_LIMIT));
  if (count > MAX_WORKERS) {
    workers.at("count").fail(
        fmt::format("at most {} workers (the simulator's limit, docs/scenario-format.md)",
                    MAX_WORKERS),
        std::to_string(count));
  }
  if (workers.has("speed") && workers.has("speeds")) {
    workers.at("speeds").fail("either 'speed' (all workers) or 'speeds' (one per worker)",
                              "both 'speed' and 'speeds'");
  }
  if (workers.has("speeds")) {
    s.worker_speeds = workers.list(
        "speeds", 1, "compute speeds", [](const nlohmann::json& v, const JsonLocation& where) {
          return quantity_from_json(v, Quantity::SPEED, Sign::POSITIVE, where);
        });
    if (s.worker_speeds.size() != static_cast<std::size_t>(count)) {
      workers.at("speeds").fail(fmt::format("{} speeds, one per worker as 'count' says", count),
                                fmt::format("{} speeds", s.worker_speeds.size()));
    }
  } else {
    const double speed = workers.quantity("speed", Quantity::SPEED, Sign::POSITIVE);
    s.worker_speeds.assign(static_cast<std::size_t>(count), speed);
  }
  s.servers = to_int(servers.integer_or("count", s.servers, 1, INT_LIMIT));
  check_server_count(s.servers, recovery, servers.at("count"),
                     servers.has("count") ? std::to_string(s.servers)
                                          : fmt::format("{} (the default)", s.servers));
  s.server_speed = servers.quantity("speed", Quantity::SPEED, Sign::POSITIVE);
  c.shards = to_int(servers.integer_or("shards", c.shards, 1, INT_LIMIT));
  if (static_cast<std::int64_t>(s.servers) * c.shards > MAX_SERVER_PROCESSES) {
    servers.at(servers.has("shards") ? "shards" : "count")
        .fail(fmt::format("at most {} server processes in all (count x shards; the "
                          "simulator's limit, docs/scenario-format.md)",
                          MAX_SERVER_PROCESSES),
              fmt::format("{} x {}", s.servers, c.shards));
  }
  const ObjectReader network = r.object_or_empty("network", {"bandwidth", "latency"});
  s.bandwidth = network.quantity_or("bandwidth", s.bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
  s.latency = network.quantity_or("latency", s.latency, Quantity::TIME, Sign::NON_NEGATIVE);
}

}  // namespace

ClusterConfig read_cluster(const ObjectReader& top, const std::string& file_label,
                           const RecoveryConfig& recovery) {
  const ObjectReader r =
      top.object("cluster", {"platform", "workers", "servers", "network", "storage"});
  const ObjectReader workers = r.object("workers", {"count", "speed", "speeds", "hosts"});
  const ObjectReader servers = r.object("servers", {"count", "speed", "hosts", "shards"});
  ClusterConfig c;
  if (r.has("platform")) {
    c.kind = ClusterKind::PLATFORM;
    read_platform_cluster(r, workers, servers, file_label, recovery, c.platform);
  } else {
    c.kind = ClusterKind::STAR;
    read_star_cluster(r, workers, servers, recovery, c);
  }
  c.storage = read_storage(r, c.kind, recovery.kind());
  if (const auto check = recovery.kind().check_cluster)
    check(recovery.settings, c, top.at("recovery"));
  return c;
}

nlohmann::json cluster_to_json(const ClusterConfig& c, const RecoveryConfig& recovery) {
  using nlohmann::json;
  json cluster;
  if (c.kind == ClusterKind::PLATFORM) {
    cluster["platform"] = c.platform.file;
    cluster["servers"] = {{"hosts", c.platform.server_hosts}};
    cluster["workers"] = {{"hosts", c.platform.worker_hosts}};
  } else {
    const StarCluster& star = c.star;
    json workers{{"count", star.worker_speeds.size()}};
    const bool uniform = std::adjacent_find(star.worker_speeds.begin(), star.worker_speeds.end(),
                                            std::not_equal_to<>()) == star.worker_speeds.end();
    if (uniform) {
      workers["speed"] = star.worker_speeds.front();
    } else {
      workers["speeds"] = star.worker_speeds;
    }
    cluster["workers"] = workers;
    cluster["servers"] = {{"count", star.servers}, {"speed", star.server_speed}};
    if (c.shards != 1) cluster["servers"]["shards"] = c.shards;
    cluster["network"] = {{"bandwidth", star.bandwidth}, {"latency", star.latency}};
  }
  if (recovery.kind().uses_storage) {
    json storage{{"disk_read", c.storage.disk_read}, {"disk_write", c.storage.disk_write}};
    if (c.kind == ClusterKind::PLATFORM) storage["host"] = c.storage.host;
    cluster["storage"] = storage;
  }
  return cluster;
}

}  // namespace detail
}  // namespace failsim::sim
