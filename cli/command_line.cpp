// CLI11's parse errors said again in failsim's voice (command_line.hpp). CLI11 2.1 gives an error
// only as a type and a sentence; the option, the value and the (sub)command are read back from
// the app, which keeps what it parsed when it throws: the subcommands entered, each option's
// results, the arguments nobody took. The sentences' forms read here are CLI11 2.1's
// (/usr/include/CLI/Error.hpp); tests/test_cli.cpp checks each kind of error, so a CLI11 that
// words them otherwise fails there, and an unknown form still gets a message with the usage.
#include "cli/command_line.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "input/object_reader.hpp"
#include "input/option_checks.hpp"
#include "input/printable.hpp"

namespace failsim::cli {

namespace {

/// The app and the subcommands entered, outermost first (`failsim trace fit`: three apps).
using Chain = std::vector<CLI::App*>;

Chain parsed_chain(CLI::App& app) {
  Chain chain{&app};
  while (!chain.back()->get_subcommands().empty()) {
    chain.push_back(chain.back()->get_subcommands().front());
  }
  return chain;
}

/// "failsim", "failsim run", "failsim trace fit" (the top app is named after argv[0]).
std::string command_name(const Chain& chain, std::size_t depth) {
  std::string name = "failsim";
  for (std::size_t i = 1; i <= depth && i < chain.size(); ++i) name += " " + chain[i]->get_name();
  return name;
}

/// An argument as a message echoes it: quoted, printable, cut short.
std::string quoted(const std::string& argument) {
  return "'" + input::printable_excerpt(argument, 200) + "'";
}

/// Whether `arg` reads as an option (CLI11 takes "-1" for a value when no option is named -1).
bool looks_like_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1])) &&
         arg[1] != '.';
}

/// "SCENARIO" for a positional argument, "-o/--output" for an option.
std::string display_name(const CLI::Option& option) {
  if (!option.nonpositional()) {
    std::string name = option.get_name(true);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  }
  std::vector<std::string> names;
  for (const std::string& s : option.get_snames()) names.push_back("-" + s);
  for (const std::string& l : option.get_lnames()) names.push_back("--" + l);
  return fmt::format("{}", fmt::join(names, "/"));
}

/// Every spelling of the options of `app` ("-o", "--output", ...), for a did-you-mean.
std::vector<std::string> option_spellings(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& s : option->get_snames()) names.push_back("-" + s);
    for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands(
           [](const CLI::App* s) { return !s->get_disabled() && !s->get_name().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

/// " (did you mean 'x'?)" when one of `candidates` is close to `word`, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string hint = input::closest_match(
      word, std::vector<std::string_view>(candidates.begin(), candidates.end()));
  return hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint);
}

/// What an option's value must be, in words: its type ("a whole number") and its check's range
/// (">= 1") or set ("{md,csv,latex}": "one of md, csv, latex"). CLI11 writes both into the type
/// name: "UINT:>= 1".
std::string expectation(const CLI::Option& option) {
  const std::string type_name = option.get_type_name();
  const std::size_t colon = type_name.find(':');
  const std::string type = type_name.substr(0, colon);
  const std::string check = colon == std::string::npos ? "" : type_name.substr(colon + 1);
  if (check.size() > 2 && check.front() == '{' && check.back() == '}') {
    std::string names = check.substr(1, check.size() - 2);
    for (std::size_t at = names.find(','); at != std::string::npos; at = names.find(',', at + 2))
      names.replace(at, 1, ", ");
    return "one of " + names;
  }
  const std::string words = type == "UINT"                       ? "a whole number"
                            : type == "INT" || type == "INTEGER" ? "an integer"
                            : type == "FLOAT"                    ? "a number"
                                                                 : "a value";
  if (!check.empty()) return words + " " + check;
  return type == "UINT" ? words + " >= 0" : words;
}

/// The option named `name` (as CLI11's messages name it) in the chain, the innermost first;
/// `depth` (if given) is set to its app's place in the chain.
const CLI::Option* find_option(const Chain& chain, const std::string& name,
                               std::size_t* depth = nullptr) {
  for (std::size_t d = chain.size(); d-- > 0;) {
    const CLI::Option* option = static_cast<const CLI::App*>(chain[d])->get_option_no_throw(name);
    if (option == nullptr) continue;
    if (depth != nullptr) *depth = d;
    return option;
  }
  return nullptr;
}

/// `usage: failsim run SCENARIO [OPTIONS] ('failsim run --help' explains them)`.
std::string usage_line(const Chain& chain, std::size_t depth) {
  const CLI::App& app = *chain[depth];
  const std::string name = command_name(chain, depth);
  std::string usage = name;
  if (!subcommand_names(app).empty()) usage += " SUBCOMMAND";
  bool options = false;
  for (const CLI::Option* option : app.get_options()) {
    if (option->nonpositional()) {
      options = options || option != app.get_help_ptr();
      continue;
    }
    std::string word = display_name(*option);
    if (option->get_items_expected_max() > 1) word += "...";
    usage += " " + (option->get_required() ? word : "[" + word + "]");
  }
  if (options) usage += " [OPTIONS]";
  return fmt::format("usage: {} ('{} --help' explains them)", usage, name);
}

/// The first argument nobody took that reads as an option, and the app it was left in.
std::pair<std::size_t, std::string> unknown_option(const Chain& chain) {
  for (std::size_t depth = chain.size(); depth-- > 0;) {
    const CLI::App& app = *chain[depth];
    if (app.get_prefix_command() || app.get_allow_extras()) continue;
    for (const std::string& arg : app.remaining()) {
      if (looks_like_option(arg)) return {depth, arg};
    }
  }
  return {0, ""};
}

std::string unknown_option_message(const CLI::App& app, const std::string& arg) {
  const std::string name = arg.substr(0, arg.find('='));
  return fmt::format("expected one of its options, found unknown option {}{}", quoted(arg),
                     did_you_mean(name, option_spellings(app)));
}

/// A subcommand was required: the word given instead, if any, is an unknown one.
std::string subcommand_message(const CLI::App& app) {
  const std::vector<std::string> names = subcommand_names(app);
  const std::string expected = fmt::format("expected a subcommand ({})", fmt::join(names, ", "));
  for (const std::string& word : app.remaining()) {
    if (looks_like_option(word)) continue;
    return fmt::format("{}, found unknown subcommand {}{}", expected, quoted(word),
                       did_you_mean(word, names));
  }
  return expected + ", found none";
}

/// More positional arguments than the app takes: how many it takes, and the extra ones.
std::string extras_message(const CLI::App& app) {
  if (!subcommand_names(app).empty() && app.get_subcommands().empty()) {
    return subcommand_message(app);
  }
  std::vector<std::string> names;
  int count = 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option->nonpositional()) continue;
    names.push_back(display_name(*option));
    count += option->get_items_expected_max();
  }
  std::vector<std::string> extras;
  for (const std::string& arg : app.remaining()) extras.push_back(quoted(arg));
  if (names.empty()) {
    return fmt::format("expected options only, found the argument{} {}",
                       extras.size() == 1 ? "" : "s", fmt::join(extras, " "));
  }
  const std::string more = extras.size() == 1 ? "one more" : fmt::format("{} more", extras.size());
  return fmt::format("expected {} argument{} ({}) besides the options, found {} ({}: {})", count,
                     count == 1 ? "" : "s", fmt::join(names, " "),
                     count + static_cast<int>(extras.size()), more, fmt::join(extras, " "));
}

/// The text of `message` between `before` (or its start) and `after` (or its end); "" when
/// `before` is not in it.
std::string between(const std::string& message, const std::string& before,
                    const std::string& after) {
  const std::size_t start = before.empty() ? 0 : message.find(before);
  if (start == std::string::npos) return "";
  const std::size_t from = start + before.size();
  const std::size_t end = after.empty() ? std::string::npos : message.find(after, from);
  return message.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

/// An option's values as given: "nothing" when none.
std::string found_values(const CLI::Option& option) {
  std::vector<std::string> values;
  for (const std::string& v : option.results()) values.push_back(input::found_argument(v));
  return values.empty() ? "nothing" : fmt::format("{}", fmt::join(values, " "));
}

/// A value that did not convert or failed its check: "--nodes: expected ..., found many".
std::string value_message(const Chain& chain, const std::string& name, const std::string& said,
                          std::size_t& depth) {
  const CLI::Option* option = find_option(chain, name, &depth);
  if (option == nullptr) return "";
  // failsim's own checks (input/option_checks.hpp) say it in full already.
  if (said.rfind("expected ", 0) == 0) return display_name(*option) + ": " + said;
  const bool flag = option->get_items_expected_max() == 0;
  return fmt::format("{}: expected {}, found {}", display_name(*option),
                     flag ? "no value (a flag), or true or false" : expectation(*option),
                     found_values(*option));
}

std::string conversion_message(const Chain& chain, const std::string& what, std::size_t& depth) {
  std::string name = between(what, "Could not convert: ", " = ");
  if (name.empty()) name = between(what, " is not an allowed value for ", "");
  if (name.empty()) name = between(what, "", ": ");
  return value_message(chain, name, "", depth);
}

std::string validation_message(const Chain& chain, const std::string& what, std::size_t& depth) {
  const std::size_t colon = what.find(": ");
  if (colon == std::string::npos) return "";
  return value_message(chain, what.substr(0, colon), what.substr(colon + 2), depth);
}

/// An option without its value(s), or a flag given one.
std::string mismatch_message(const Chain& chain, const std::string& what, std::size_t& depth) {
  std::string name = between(what, " arguments to ", ", got");
  if (name.empty()) name = between(what, "", " was given a disallowed flag override");
  if (name == what || name.empty()) name = between(what, "", ": ");
  const CLI::Option* option = find_option(chain, name, &depth);
  if (option == nullptr) return "";
  if (what.find("flag override") != std::string::npos || option->get_items_expected_max() == 0) {
    return value_message(chain, name, "", depth);
  }
  if (what.find("At Most") != std::string::npos) {
    return fmt::format("{}: expected at most {} values, found {}", display_name(*option),
                       option->get_items_expected_max(), found_values(*option));
  }
  return fmt::format("{}: expected {} after it, found nothing (the command line ends there)",
                     display_name(*option), expectation(*option));
}

/// A required argument or option missing, or a subcommand.
std::string required_message(const Chain& chain, const std::string& what, std::size_t& depth) {
  const std::string name = between(what, "", " is required");
  if (const CLI::Option* option = find_option(chain, name, &depth); option != nullptr) {
    return fmt::format("{}: expected {}, found none", display_name(*option),
                       option->get_description());
  }
  // A subcommand: of the innermost app that has too few.
  for (std::size_t d = chain.size(); d-- > 0;) {
    if (chain[d]->get_require_subcommand_min() > chain[d]->get_subcommands().size()) {
      depth = d;
      return subcommand_message(*chain[d]);
    }
  }
  return "";
}

/// "--a excludes --b", "--a requires --b": two options' names, as displayed.
std::pair<std::string, std::string> option_pair(const Chain& chain, const std::string& what,
                                                const std::string& verb) {
  const std::size_t at = what.find(verb);
  if (at == std::string::npos) return {"", ""};
  const auto shown = [&](const std::string& name) {
    const CLI::Option* option = find_option(chain, name);
    return option == nullptr ? name : display_name(*option);
  };
  return {shown(what.substr(0, at)), shown(what.substr(at + verb.size()))};
}

/// The message's body after "failsim SUBCOMMAND: "; sets `depth` to the (sub)command it is of.
std::string body(const Chain& chain, const CLI::ParseError& error, std::size_t& depth) {
  const std::string what = error.what();
  depth = chain.size() - 1;
  // An unknown option first: it often explains the rest (a value taken for an argument).
  if (const auto [at, arg] = unknown_option(chain); !arg.empty()) {
    depth = at;
    return unknown_option_message(*chain[at], arg);
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    for (std::size_t d = chain.size(); d-- > 0;) {
      if (chain[d]->remaining().empty()) continue;
      depth = d;
      return extras_message(*chain[d]);
    }
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr)
    return required_message(chain, what, depth);
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr)
    return conversion_message(chain, what, depth);
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr)
    return validation_message(chain, what, depth);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr)
    return mismatch_message(chain, what, depth);
  if (dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) {
    const auto [a, b] = option_pair(chain, what, " excludes ");
    if (!a.empty()) return fmt::format("expected at most one of {} and {}, found both", a, b);
  }
  if (dynamic_cast<const CLI::RequiresError*>(&error) != nullptr) {
    const auto [a, b] = option_pair(chain, what, " requires ");
    if (!a.empty()) return fmt::format("{}: expected {} with it, found {} alone", a, b, a);
  }
  return "";
}

}  // namespace

std::string parse_error_message(CLI::App& app, const CLI::ParseError& error) {
  const Chain chain = parsed_chain(app);
  std::size_t depth = 0;
  std::string said = body(chain, error, depth);
  // A form of CLI11's this file does not know: its own words, still with the usage.
  if (said.empty()) {
    said = fmt::format("expected a command line as the usage below, found an error: {}",
                       input::printable_excerpt(error.what(), 400));
  }
  return fmt::format("{}: {}\n{}", command_name(chain, depth), said, usage_line(chain, depth));
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: printed on stdout, status 0
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}\n", parse_error_message(app, e));
    return BAD_INPUT;
  }
  return std::nullopt;
}

}  // namespace failsim::cli
