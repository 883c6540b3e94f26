// The command line's errors in failsim's voice. CLI11 reports a bad command line in its own words
// ("Value 0 not in range 0.000000 to 1.797e308", "The following argument was not expected: x",
// "--seed: 1 required INTEGER missing"); every other input error of failsim names the place, what
// was expected and what was found. So each CLI11 parse error is said again that way: the
// (sub)command, the option, the expectation (from the option's type and check), the value found,
// a did-you-mean for a misspelt option or subcommand, and the usage line of the (sub)command;
// exit status 2 (docs/cli.md, "Command-line errors").
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace failsim::cli {

/// Parses argv with `app` (its subcommands registered). Returns nullopt when the command line is
/// good; else prints what --help or --version print (status 0) or the error (status 2) and
/// returns the exit status.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

/// The error's message for `app`, which threw it while parsing: two lines, e.g.
///   `failsim trace fit: --nodes: expected a whole number >= 1, found 0`
///   `usage: failsim trace fit TRACE [OPTIONS] ('failsim trace fit --help' lists the options)`
std::string parse_error_message(CLI::App& app, const CLI::ParseError& error);

}  // namespace failsim::cli
