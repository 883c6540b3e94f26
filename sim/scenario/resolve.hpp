// What a scenario means for its job, known before anything is simulated: the data set's shape
// (from the IDX headers or the generator's parameters), the model's size, the shards' partition
// and the time model; and the checks that need them (a batch larger than a worker's share of
// the data, more shards than parameters, a request timeout shorter than a message). `failsim
// validate`, every point of a sweep and `failsim run` call resolve(), so a scenario that one
// of them accepts the others accept too. Engine-free; builds the model's description (not its
// parameters) and reads file headers only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "models/dataset.hpp"
#include "models/partition.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/time_model.hpp"

namespace failsim::sim {

struct ResolvedJob {
  models::DataShape train;                 ///< the training set the run uses (limits applied)
  models::DataShape test;                  ///< the test set the run uses
  std::size_t num_params = 0;              ///< the real model's parameters
  std::vector<models::ShardRange> shards;  ///< generation 0's partition of the parameters
  TimeModel time;                          ///< what a step costs (docs/time-model.md)
};

/// Resolves `scenario` (parsed from `file_label`). Throws input::InputError naming the field to
/// change when the job cannot run: data files that do not load (at /data/dir), a model that does
/// not suit the data, sizes that do not fit each other.
ResolvedJob resolve(const Scenario& scenario, const std::string& file_label);

/// The data set's shape for `split`, as the run loads it.
models::DataShape data_shape(const Scenario& scenario, models::Split split,
                             const std::string& file_label);

}  // namespace failsim::sim
