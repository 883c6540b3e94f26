// The SimGrid settings a run accepts (`--cfg=KEY:VALUE`): one table of keys and their values.
// SimGrid 3.32 knows hundreds of keys, and many of its values make a run that cannot end or
// cannot start: maxmin/precision:0 never converges (the run hangs), surf/precision:1 rounds every
// time to a second, contexts/stack-size:100000000 asks for 100 GB per actor, contexts/factory and
// contexts/nthreads change how actors run under failsim's feet. So only the settings below pass,
// each with its values checked, before any engine exists; docs/cli.md ("SimGrid settings") shows
// the same table, and tests/test_cli.cpp checks that the two agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace failsim::sim {

/// What one setting takes.
enum class SettingValues {
  CHOICE,   ///< one of `choices`
  BOOLEAN,  ///< 0 or 1, no or yes, off or on, false or true (SimGrid's spellings)
  NUMBER,   ///< a number in [min, max]
  WHOLE,    ///< a whole number in [min, max]
};

/// A SimGrid setting failsim passes through, and its values.
struct SimgridSetting {
  std::string_view key;
  SettingValues values;
  std::vector<std::string_view> choices;  ///< CHOICE only
  double min = 0.0;                       ///< NUMBER, WHOLE
  double max = 0.0;                       ///< NUMBER, WHOLE
  std::string_view unit;                  ///< of a NUMBER or WHOLE, e.g. "KiB"; may be empty
};

/// The settings failsim accepts, in docs/cli.md's order.
const std::vector<SimgridSetting>& simgrid_settings();

/// A setting's values in words, as docs/cli.md's table and the refusals show them:
/// "one of LV08, CM02, Constant, SMPI, IB", "a whole number of KiB in [1, 1048576]".
std::string describe_values(const SimgridSetting& setting);

/// Throws InputError unless `setting` ("KEY:VALUE", what follows --cfg=) is a key of
/// simgrid_settings() with a value it takes:
///   `--cfg: expected KEY:VALUE with KEY one of network/model, ..., found contexts/nthreads:64`
///   `--cfg: maxmin/precision: expected a number in [1e-08, 0.001], found 0`
void check_simgrid_setting(const std::string& setting);

/// check_simgrid_setting() for every "--cfg=..." of `args` (SimGrid's argv form, as
/// RunOptions::simgrid_args holds them); "--log=..." arguments are SimGrid's to check.
void check_simgrid_args(const std::vector<std::string>& args);

}  // namespace failsim::sim
