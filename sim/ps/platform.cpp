#include "sim/ps/platform.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include "result_format/process_name.hpp"
#include "sim/engine/simgrid_probe.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
sg4::Host* add_star_host(sg4::NetZone* zone, const std::string& name, double speed,
                         const StarCluster& star) {
  sg4::Host* host = zone->create_host(name, speed);
  sg4::Link* link = zone->create_split_duplex_link(result_format::link_name(name), star.bandwidth)
                        ->set_latency(star.latency);
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {{link, sg4::LinkInRoute::Direction::UP}}, true);
  return host;
}

sg4::Host* coordinator_host(sg4::NetZone* parent) {
  // Its own zone, without links: with a platform file the coordinator only reads state and
  // sleeps (no failures, so it never needs to send).
  sg4::NetZone* zone = sg4::create_empty_zone("failsim-coordinator-zone")->set_parent(parent);
  sg4::Host* host = zone->create_host("failsim-coordinator", 1.0);
  zone->seal();
  return host;
}
}  // namespace

Roles build_platform(sg4::Engine& engine, const ClusterConfig& cluster,
                     const std::string& file_label, const CheckpointLevel* local_disk) {
  Roles roles;
  if (cluster.kind == ClusterKind::STAR) {
    const StarCluster& star = cluster.star;
    sg4::NetZone* root = sg4::create_full_zone("failsim");
    sg4::NetZone* zone = sg4::create_star_zone("cluster")->set_parent(root);
    // Shard k's hosts are server-<k * servers> ... (docs/scenario-format.md).
    for (int i = 0; i < star.servers * cluster.shards; ++i) {
      roles.servers.push_back(
          add_star_host(zone, fmt::format("server-{}", i), star.server_speed, star));
      if (local_disk != nullptr) {
        roles.servers.back()->create_disk("local-disk", local_disk->disk_read,
                                          local_disk->disk_write);
      }
    }
    for (std::size_t i = 0; i < star.worker_speeds.size(); ++i) {
      roles.workers.push_back(
          add_star_host(zone, fmt::format("worker-{}", i), star.worker_speeds[i], star));
    }
    roles.storage = add_star_host(zone, "storage", star.server_speed, star);
    roles.storage->create_disk("disk", cluster.storage.disk_read, cluster.storage.disk_write);
    roles.coordinator = add_star_host(zone, "coordinator", star.server_speed, star);
    zone->seal();
    root->seal();
    return roles;
  }
  engine.load_platform(cluster.platform.file);
  check_platform_hosts(
      cluster.platform,
      [&](const std::string& name) { return engine.host_by_name_or_null(name) != nullptr; },
      file_label);
  for (const std::string& name : cluster.platform.server_hosts) {
    roles.servers.push_back(engine.host_by_name(name));
  }
  for (const std::string& name : cluster.platform.worker_hosts) {
    roles.workers.push_back(engine.host_by_name(name));
  }
  roles.coordinator = coordinator_host(engine.get_netzone_root());
  return roles;
}

}  // namespace failsim::sim
