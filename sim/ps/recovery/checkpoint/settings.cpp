// Strategy "checkpoint"'s settings: reader, checks against the cluster and writer
// (checkpoint.hpp).
#include "sim/ps/recovery/checkpoint/settings.hpp"

#include <fmt/format.h>

#include "input/units.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<CheckpointLevelKind> LEVEL_KINDS{{"memory", CheckpointLevelKind::MEMORY},
                                               {"local-disk", CheckpointLevelKind::LOCAL_DISK},
                                               {"remote", CheckpointLevelKind::REMOTE},
                                               {"peer", CheckpointLevelKind::PEER}};
const Choices<PeerPlacement> PEER_PLACEMENTS{{"workers", PeerPlacement::WORKERS},
                                             {"servers", PeerPlacement::SERVERS}};

using detail::INT_LIMIT;
using detail::to_int;

CheckpointLevel read_checkpoint_level(const nlohmann::json& v, const JsonLocation& where) {
  const ObjectReader r(
      v, where,
      {"kind", "every_updates", "every_seconds", "disk_read", "disk_write", "copies", "placement"});
  CheckpointLevel l;
  l.kind = r.choice("kind", LEVEL_KINDS);
  l.every_updates = to_int(r.integer_or("every_updates", l.every_updates, 0, INT_LIMIT));
  l.every_seconds =
      r.quantity_or("every_seconds", l.every_seconds, Quantity::TIME, Sign::NON_NEGATIVE);
  if (l.every_updates == 0 && l.every_seconds == 0.0) {
    const bool written = r.has("every_updates") || r.has("every_seconds");
    r.location().fail("a level interval: 'every_updates' or 'every_seconds' > 0",
                      written ? "both 0" : "neither");
  }
  if (l.kind == CheckpointLevelKind::LOCAL_DISK) {
    l.disk_read = r.quantity_or("disk_read", l.disk_read, Quantity::BANDWIDTH, Sign::POSITIVE);
    l.disk_write = r.quantity_or("disk_write", l.disk_write, Quantity::BANDWIDTH, Sign::POSITIVE);
  } else {
    r.forbid("disk_read", "it applies only to level \"local-disk\"");
    r.forbid("disk_write", "it applies only to level \"local-disk\"");
  }
  if (l.kind == CheckpointLevelKind::PEER) {
    l.copies = to_int(r.integer_or("copies", l.copies, 1, INT_LIMIT));
    l.placement = r.choice_or("placement", l.placement, PEER_PLACEMENTS);
  } else {
    r.forbid("copies", "it applies only to level \"peer\"");
    r.forbid("placement", "it applies only to level \"peer\"");
  }
  return l;
}

/// Multi-level checkpoints: at least one level, at most one of each kind.
void read_checkpoint_levels(const ObjectReader& r, CheckpointConfig& c) {
  const char* why = "with 'levels', every level has its own interval and writes in the background";
  for (const char* key : {"every_updates", "every_seconds", "blocking"}) r.forbid(key, why);
  c.levels = r.list("levels", 1, "checkpoint levels (objects)", read_checkpoint_level);
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (c.levels[j].kind != c.levels[i].kind) continue;
      const std::string kind = spelling_of(c.levels[i].kind, LEVEL_KINDS);
      r.at("levels").child(i).child("kind").fail(
          fmt::format("at most one level of each kind (level {} is already \"{}\")", j, kind),
          fmt::format("\"{}\"", kind));
    }
  }
  c.memory_bandwidth =
      r.quantity_or("memory_bandwidth", c.memory_bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
}

CheckpointConfig read_checkpoint_section(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "checkpoint",
      {"every_updates", "every_seconds", "blocking", "levels", "memory_bandwidth", "elastic"});
  CheckpointConfig c;
  if (r.has("levels")) {
    r.forbid("elastic", "elastic resume re-shards single-level checkpoints only");
    read_checkpoint_levels(r, c);
    return c;
  }
  r.forbid("memory_bandwidth", "it applies only to multi-level checkpoints ('levels')");
  // Every 100 updates unless an interval is written: then the unwritten one is off, so
  // {"every_seconds": "30s"} means every 30 s and nothing else.
  const bool written = r.has("every_updates") || r.has("every_seconds");
  c.every_updates =
      to_int(r.integer_or("every_updates", written ? 0 : c.every_updates, 0, INT_LIMIT));
  c.every_seconds =
      r.quantity_or("every_seconds", c.every_seconds, Quantity::TIME, Sign::NON_NEGATIVE);
  if (c.every_updates == 0 && c.every_seconds == 0.0) {
    r.location().fail("a checkpoint interval: 'every_updates' or 'every_seconds' > 0", "both 0");
  }
  c.blocking = r.boolean_or("blocking", c.blocking);
  if (r.has("elastic")) {
    const ObjectReader elastic = r.object("elastic", {"patience"});
    c.elastic_patience = elastic.quantity("patience", Quantity::TIME, Sign::NON_NEGATIVE);
  }
  return c;
}

}  // namespace

std::string to_string(CheckpointLevelKind kind) { return spelling_of(kind, LEVEL_KINDS); }

namespace detail {

StrategySettings read_checkpoint(const ObjectReader& recovery) {
  return StrategySettings(read_checkpoint_section(recovery));
}

void check_checkpoint_cluster(const StrategySettings& settings, const ClusterConfig& c,
                              const JsonLocation& recovery) {
  const auto& levels = settings.get<CheckpointConfig>().levels;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].kind != CheckpointLevelKind::PEER) continue;
    // A peer is another host than the server's: any worker's, or another server host.
    const bool on_workers = levels[i].placement == PeerPlacement::WORKERS;
    const int peers = on_workers ? c.num_workers() : c.num_servers() - 1;
    if (levels[i].copies > peers) {
      recovery.child("checkpoint")
          .child("levels")
          .child(i)
          .child("copies")
          .fail(fmt::format("at most {} (the number of {} hosts of placement \"{}\")", peers,
                            on_workers ? "worker" : "other server",
                            on_workers ? "workers" : "servers"),
                std::to_string(levels[i].copies));
    }
  }
  if (c.kind == ClusterKind::PLATFORM) {
    // The local disks are built with the star's server hosts; a platform file's hosts are
    // sealed as the file describes them.
    for (std::size_t i = 0; i < levels.size(); ++i) {
      if (levels[i].kind != CheckpointLevelKind::LOCAL_DISK) continue;
      recovery.child("checkpoint")
          .child("levels")
          .child(i)
          .child("kind")
          .fail(
              "\"memory\" or \"remote\" (a \"local-disk\" level needs the built-in star: "
              "with a platform file the server hosts have no modelled local disk)",
              "\"local-disk\"");
    }
  }
}

void write_checkpoint(const StrategySettings& settings, nlohmann::json& out) {
  const CheckpointConfig& c = settings.get<CheckpointConfig>();
  if (c.levels.empty()) {
    out["checkpoint"] = {{"every_updates", c.every_updates},
                         {"every_seconds", c.every_seconds},
                         {"blocking", c.blocking}};
    if (c.elastic_patience) out["checkpoint"]["elastic"] = {{"patience", *c.elastic_patience}};
    return;
  }
  out["checkpoint"] = {{"levels", nlohmann::json::array()},
                       {"memory_bandwidth", c.memory_bandwidth}};
  for (const CheckpointLevel& l : c.levels) {
    nlohmann::json level{{"kind", to_string(l.kind)},
                         {"every_updates", l.every_updates},
                         {"every_seconds", l.every_seconds}};
    if (l.kind == CheckpointLevelKind::LOCAL_DISK) {
      level["disk_read"] = l.disk_read;
      level["disk_write"] = l.disk_write;
    }
    if (l.kind == CheckpointLevelKind::PEER) {
      level["copies"] = l.copies;
      level["placement"] = spelling_of(l.placement, PEER_PLACEMENTS);
    }
    out["checkpoint"]["levels"].push_back(level);
  }
}

bool checkpoint_keeps_spares(const StrategySettings& settings) {
  return !settings.get<CheckpointConfig>().levels.empty();
}

std::optional<double> checkpoint_elastic_patience(const StrategySettings& settings) {
  return settings.get<CheckpointConfig>().elastic_patience;
}

}  // namespace detail
}  // namespace failsim::sim
