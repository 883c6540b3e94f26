// The `recovery` section: the strategy and its settings (checkpoint, chain, stateless), read
// before the sections whose checks it decides (sections.hpp).
#include <fmt/format.h>

#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<RecoveryStrategy> STRATEGIES{{"none", RecoveryStrategy::NONE},
                                           {"checkpoint", RecoveryStrategy::CHECKPOINT},
                                           {"chain", RecoveryStrategy::CHAIN},
                                           {"stateless", RecoveryStrategy::STATELESS},
                                           {"stateless_chain", RecoveryStrategy::STATELESS_CHAIN}};
const Choices<CheckpointLevelKind> LEVEL_KINDS{{"memory", CheckpointLevelKind::MEMORY},
                                               {"local-disk", CheckpointLevelKind::LOCAL_DISK},
                                               {"remote", CheckpointLevelKind::REMOTE},
                                               {"peer", CheckpointLevelKind::PEER}};
const Choices<PeerPlacement> PEER_PLACEMENTS{{"workers", PeerPlacement::WORKERS},
                                             {"servers", PeerPlacement::SERVERS}};
const Choices<models::StaleRule> STALE_RULES{
    {"paper", models::StaleRule::PAPER},
    {"sum", models::StaleRule::SUM},
    {"mean", models::StaleRule::MEAN},
    {"inverse_staleness", models::StaleRule::INVERSE_STALENESS},
    {"drop_stale", models::StaleRule::DROP_STALE}};

}  // namespace

std::string quoted_name(RecoveryStrategy strategy) {
  // fmt rather than "\"" + std::string&&: GCC 12 warns falsely (-Wrestrict) on the latter.
  return fmt::format("\"{}\"", spelling_of(strategy, STRATEGIES));
}

bool uses_storage(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::CHECKPOINT || strategy == RecoveryStrategy::STATELESS ||
         strategy == RecoveryStrategy::STATELESS_CHAIN;
}

/// The strategies with a replica chain (one replica per server host after the head).
bool uses_chain(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::CHAIN || strategy == RecoveryStrategy::STATELESS_CHAIN;
}

/// The strategies whose workers talk to the external store (async only).
bool uses_store(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::STATELESS || strategy == RecoveryStrategy::STATELESS_CHAIN;
}

namespace {

std::string only_strategy(std::string_view strategy) {
  return fmt::format("it applies only to strategy \"{}\"", strategy);
}

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

CheckpointConfig read_checkpoint(const ObjectReader& recovery) {
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

StatelessConfig read_stateless(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "stateless", {"rule", "paper_threshold", "paper_low_lr", "drop_bound"});
  StatelessConfig c;
  c.rule = r.choice_or("rule", c.rule, STALE_RULES);
  if (c.rule == models::StaleRule::PAPER) {
    c.paper_threshold = to_int(r.integer_or("paper_threshold", c.paper_threshold, 0, INT_LIMIT));
    c.paper_low_lr = r.number_or("paper_low_lr", c.paper_low_lr, Interval::positive());
  } else {
    r.forbid("paper_threshold", "it applies only to rule \"paper\"");
    r.forbid("paper_low_lr", "it applies only to rule \"paper\"");
  }
  if (c.rule == models::StaleRule::DROP_STALE) {
    c.drop_bound = to_int(r.integer("drop_bound", 0, INT_LIMIT));
  } else {
    r.forbid("drop_bound", "it applies only to rule \"drop_stale\"");
  }
  return c;
}

}  // namespace

RecoveryConfig read_recovery(const ObjectReader& top) {
  RecoveryConfig c;
  if (!top.has("recovery")) return c;
  const ObjectReader r = top.object("recovery", {"strategy", "checkpoint", "chain", "stateless"});
  c.strategy = r.choice("strategy", STRATEGIES);
  if (c.strategy == RecoveryStrategy::CHECKPOINT) {
    c.checkpoint = read_checkpoint(r);
  } else {
    r.forbid("checkpoint", only_strategy("checkpoint"));
  }
  if (uses_chain(c.strategy)) {
    const ObjectReader chain = r.object_or_empty("chain", {"every_updates"});
    c.chain.every_updates =
        to_int(chain.integer_or("every_updates", c.chain.every_updates, 1, INT_LIMIT));
  } else {
    r.forbid("chain", "it applies only to strategies \"chain\" and \"stateless_chain\"");
  }
  if (uses_store(c.strategy)) {
    c.stateless = read_stateless(r);
  } else {
    r.forbid("stateless", "it applies only to strategies \"stateless\" and \"stateless_chain\"");
  }
  return c;
}

nlohmann::json recovery_to_json(const RecoveryConfig& r) {
  nlohmann::json out{{"strategy", spelling_of(r.strategy, STRATEGIES)}};
  switch (r.strategy) {
    case RecoveryStrategy::NONE:
      break;
    case RecoveryStrategy::CHECKPOINT:
      if (r.checkpoint.levels.empty()) {
        out["checkpoint"] = {{"every_updates", r.checkpoint.every_updates},
                             {"every_seconds", r.checkpoint.every_seconds},
                             {"blocking", r.checkpoint.blocking}};
        if (r.checkpoint.elastic_patience)
          out["checkpoint"]["elastic"] = {{"patience", *r.checkpoint.elastic_patience}};
        break;
      }
      out["checkpoint"] = {{"levels", nlohmann::json::array()},
                           {"memory_bandwidth", r.checkpoint.memory_bandwidth}};
      for (const CheckpointLevel& l : r.checkpoint.levels) {
        nlohmann::json level{{"kind", spelling_of(l.kind, LEVEL_KINDS)},
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
      break;
    case RecoveryStrategy::CHAIN:
      out["chain"] = {{"every_updates", r.chain.every_updates}};
      break;
    case RecoveryStrategy::STATELESS:
    case RecoveryStrategy::STATELESS_CHAIN: {
      if (r.strategy == RecoveryStrategy::STATELESS_CHAIN)
        out["chain"] = {{"every_updates", r.chain.every_updates}};
      const StatelessConfig& st = r.stateless;
      nlohmann::json stateless{{"rule", spelling_of(st.rule, STALE_RULES)}};
      if (st.rule == models::StaleRule::PAPER) {
        stateless["paper_threshold"] = st.paper_threshold;
        stateless["paper_low_lr"] = st.paper_low_lr;
      }
      if (st.rule == models::StaleRule::DROP_STALE) stateless["drop_bound"] = st.drop_bound;
      out["stateless"] = stateless;
      break;
    }
  }
  return out;
}

}  // namespace failsim::sim::detail
