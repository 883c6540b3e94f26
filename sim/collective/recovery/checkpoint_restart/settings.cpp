// Design "checkpoint-restart"'s row of the designs (sim/collective/recovery/designs.def): the
// baseline has no section of its own; its settings are recovery.checkpoint and recovery.restart,
// which every design may use (sim/scenario/collective/recovery.cpp reads them).
#include "sim/scenario/collective/recovery.hpp"

namespace failsim::sim::checkpoint_restart {

DesignSettingsFormat settings_format() { return {}; }

}  // namespace failsim::sim::checkpoint_restart
