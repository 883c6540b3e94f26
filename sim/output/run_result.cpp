// RunStatus's names, as result.json's "status" gives them (docs/result-format.md).
#include "sim/output/run_result.hpp"

namespace failsim::sim {

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::COMPLETED:
      return "completed";
    case RunStatus::DIVERGED:
      return "diverged";
    case RunStatus::DEADLOCK:
      return "deadlock";
  }
  return "?";
}

}  // namespace failsim::sim
