// Elastic resume's view of a strategy (sim/ps/job.hpp): when a server host will not be back within
// the patience, the job stops every shard, puts their checkpoints together and restarts on the
// hosts that are up. A strategy that can hand its shard over this way implements this interface
// beside Strategy (only single-level "checkpoint" does; the scenario refuses elastic resume for
// the others) and declares it by overriding Strategy::elastic(), which the job asks.
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include "sim/ps/actors/parameter_server.hpp"

namespace failsim::sim {

class ElasticStrategy {
 public:
  virtual ~ElasticStrategy() = default;

  /// The shard stops for a resize and the strategy retires. A live server holding the training
  /// state stops and writes it to the shard's checkpoint storage: the returned process does,
  /// and the job waits for it. Otherwise (its server failed) nullptr is returned.
  virtual simgrid::s4u::ActorPtr drain() = 0;
  /// After drain(): the shard's newest complete checkpoint, its version 0 if none, which the
  /// next generation re-shards.
  virtual ServerState latest_checkpoint() const = 0;
  /// The next generation started from latest_checkpoint(): if the shard's server had failed,
  /// its updates since that checkpoint are rolled back now (as a restart's load would).
  virtual void handed_over() = 0;
};

}  // namespace failsim::sim
