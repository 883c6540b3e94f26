// How long a run is expected to take on this machine, before it starts: `failsim run --dry-run`
// and the first line of a run print it, `failsim sweep --dry-run` adds it up (docs/performance.md,
// "Estimates"). An expectation at rates measured on the idle 2-core development machine, not a
// bound: the limits the resolve step refuses a run by are the conservative bounds of
// resolve.hpp (WorkEstimate) and sim/scenario/collective/work.hpp, which this leaves alone.
// Engine-free.
#pragma once

#include <string>

#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// The rates (measured with `failsim run --threads 1` on the idle development machine at 6af0fe8;
/// docs/performance.md, "Estimates", says how).
/// The process's own cost: starting (SimGrid's initialisation, the scenario read and resolved)
/// and writing a small result: a collective run stopped after 1 s of simulated time took 0.02 s.
constexpr double PROCESS_SECONDS = 0.02;
/// Fashion-MNIST's IDX files read into floats: spares.json's set-up, 210 MiB in 0.17 s (a
/// collective run's set-up holds little else; cnn-4-async.json's 0.73 s holds its CNN's too).
constexpr double IDX_BYTES_PER_WALL_SECOND = 1e9;
/// A synthetic data set generated (a Gaussian draw per float): ssp-softmax.json, 5.2 MB in
/// 0.037 s.
constexpr double SYNTHETIC_BYTES_PER_WALL_SECOND = 150e6;
/// The real math on one thread, model flops a second: cnn-4-async.json, 6,704 gradients of
/// 3.6e8 flops in 18.1 s of math (1.34e11); sync-mlp.json, 1.67e11.
constexpr double EXPECTED_MATH_FLOPS_PER_WALL_SECOND = 1.3e11;
/// And what a gradient costs besides its flops: its batch's samples copied out of the data set
/// (the run's profile: memmove and the kernel's page clearing beside Eigen's kernels), which
/// small models show: spares.json, 80,000 softmax gradients of 16 Fashion-MNIST samples in 0.97 s
/// of math, 3.6e-7 s a sample of flops and 4.0e-7 s of copy (7.8 GB/s); diloco.json, 920,000
/// samples of batches of 128 in 0.50 s, 1.8e-7 s of copy (17 GB/s).
constexpr double BATCH_BYTES_PER_WALL_SECOND = 1e10;
/// The parameter server's simulation without its math, gradients a second: worker-failures.json,
/// 5,566 gradients in 0.06 s besides set-up and math (9e4); server-kill-checkpoint.json 2,248
/// in 0.03 s (7e4).
constexpr double EXPECTED_GRADIENTS_PER_WALL_SECOND = 7e4;
/// A collective job's set-up per accelerator of its platform, spares included (plan, platform,
/// step network, schedules): 16,384 nodes of 8 stopped at once, 4.68 s (3.6e-5 s each);
/// Llama-3-shaped jobs of 1,024 to 65,536 accelerators, 1.0e-5 to 1.1e-5 s.
constexpr double COLLECTIVE_SETUP_SECONDS_PER_ACCELERATOR = 2e-5;
/// A collective job's failure or restart, by the square root of its ranks (fit to Llama-3-shaped
/// jobs of 14 days at Llama 3's rates: 0.7 ms at 1,024 ranks, 1.4 at 4,096, 4.4 at 16,384, 6.3 at
/// 65,536, 4.8 ms at 131,072 with RSC-1's; 2e-5 s at 16): each restart measures again what its
/// assignment changes, which grows with the job but, by symmetry, slower than its ranks.
constexpr double COLLECTIVE_EVENT_SECONDS_PER_SQRT_RANK = 2.5e-5;
/// A collective job's checkpoint (blocking or in the background, taken by renaming after the
/// first): llama3-rates.json, 742 in 7 days with 156,000 steps in 0.0055 s.
constexpr double COLLECTIVE_CHECKPOINT_SECONDS = 1e-5;
/// Steps between events are taken in batches: llama3-rates.json's 156,000 in under 5 ms.
constexpr double COLLECTIVE_EXPECTED_STEPS_PER_WALL_SECOND = 3e7;

/// A run's expected wall-clock time on one math thread, by part.
struct WallEstimate {
  /// False for a parameter-server run whose gradients nothing bounds (a target accuracy only)
  /// or whose speeds a platform file decides.
  bool known = false;
  /// A collective run stopped by `updates` or `version` alone with failures: its steps are
  /// known, not how long failures keep it from them (CollectiveWork's counts are lower bounds).
  bool at_least = false;
  double process_seconds = 0.0;     ///< PROCESS_SECONDS
  double setup_seconds = 0.0;       ///< data loaded or generated; a collective job's set-up
  double simulation_seconds = 0.0;  ///< the simulation without its math
  double math_seconds = 0.0;        ///< gradients and evaluations, on one thread
  double total_seconds() const {
    return process_seconds + setup_seconds + simulation_seconds + math_seconds;
  }
};

/// The expected wall time of `s` resolved as `job`.
WallEstimate estimate_wall_time(const Scenario& s, const ResolvedJob& job);

/// A wall time as people read it: "0.07 s", "27 s", "3 min 12 s", "2 h 5 min".
std::string duration_text(double seconds);

}  // namespace failsim::sim
