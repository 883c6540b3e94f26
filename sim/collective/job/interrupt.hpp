// Why a wait of the collective job ended early: the vocabulary shared by the job
// (collective_job.hpp) and the recovery designs it drives (collective_recovery.hpp).
#pragma once

namespace failsim::sim {

/// Why a wait of the job ended early: the next failure, or the stop.
enum class Interrupt { NONE, FAILURE, STOP };

}  // namespace failsim::sim
