// Running one of analysis/'s Python scripts (plot.py, report.py) as a child process: finding the
// interpreter and the script, forwarding the arguments, mapping its end to an exit status. One
// copy for `failsim plot` and `failsim report`.
#pragma once

#include <string>
#include <vector>

namespace failsim::cli {

/// The script `name` (e.g. "plot.py"): an installed copy next to the executable
/// (`<prefix>/bin/failsim` -> `<prefix>/share/failsim/<name>`) first, else the source tree's
/// analysis/<name> this binary was built from. Empty if neither exists.
std::string find_analysis_script(const std::string& name);

/// Runs `python script args...` with /usr/bin/python3 (or $FAILSIM_PYTHON), the script told to
/// call itself `prog` in its messages (FAILSIM_PLOT_PROG). Returns the script's exit status, or
/// RUN_FAILED (with a message on stderr) when the interpreter or the script cannot be run.
int run_analysis_script(const std::string& name, const std::string& prog,
                        const std::vector<std::string>& args);

}  // namespace failsim::cli
