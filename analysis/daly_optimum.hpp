// Daly's optimum checkpoint interval (J. T. Daly, "A higher order estimate of the optimum
// checkpoint interval for restart dumps", FGCS 22(3), 2006), printed by `failsim table`
// for collective runs (docs/tables.md). analysis/daly.py's daly_optimum is its Python twin, drawn
// on the sweep figures (tests/test_results.cpp checks both agree).
#pragma once

namespace failsim::analysis {

/// The interval of work between checkpoints, in the unit of `delta` and `mtbf`, that minimises
/// the expected wall time when one checkpoint costs `delta` and failures come every `mtbf` on
/// average: sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + delta / 18M) - delta, or M when
/// delta >= 2M (checkpointing then costs more than it saves). Both positive.
double daly_optimum(double delta, double mtbf);

}  // namespace failsim::analysis
