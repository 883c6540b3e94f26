// JSON Pointers (RFC 6901) into a JSON document: what `failsim run --set POINTER=VALUE` and a
// sweep's varied fields use, so a user's own shell loop varies a scenario exactly as a sweep
// does. Engine-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/input_error.hpp"

namespace failsim::input {

/// The tokens of a syntactically valid pointer, unescaped ("~1" -> '/', "~0" -> '~').
std::vector<std::string> pointer_tokens(const std::string& pointer);

/// An array index token: decimal digits, no leading zero (RFC 6901).
std::optional<std::size_t> array_index(const std::string& token);

/// Sets the value at `pointer` (RFC 6901) in `doc`: every token but the last must name an
/// existing member or array element; the last may name an existing member or element (which is
/// replaced) or a new member of an object (which is added). Returns "" on success, else why the
/// pointer does not fit `doc` (e.g. "/failures/events/3 does not exist (an array of 1
/// element)"); `doc` is then unchanged.
std::string set_at_pointer(nlohmann::json& doc, const std::string& pointer, nlohmann::json value);

/// A pointer's syntax problem ("" when it is a valid, non-empty RFC 6901 pointer): it must
/// start with '/', and '~' must be followed by '0' or '1'.
std::string pointer_syntax_error(const std::string& pointer);

/// `failsim run --set` text "POINTER=VALUE" split at the first '='; VALUE is JSON when it parses
/// as JSON, else the string as typed (so `/failures/events/0/at=40s` sets the string "40s").
/// nullopt when there is no '='. The VALUE is kept as typed (`text`) and read by apply_setting,
/// which refuses what a scenario file would be refused: a key twice in one object, nesting
/// deeper than MAX_JSON_DEPTH, bytes that are not UTF-8 (they would make result.json unwritable).
struct PointerSetting {
  std::string pointer;
  nlohmann::json value;             ///< the value, when `text` is not set
  std::optional<std::string> text;  ///< VALUE as typed on the command line
};
std::optional<PointerSetting> parse_pointer_setting(const std::string& text);

/// The JSON a setting's `text` stands for, with the checks above (InputError of "--set POINTER").
nlohmann::json setting_value(const PointerSetting& setting);

/// Applies `setting` to the scenario JSON `doc` read from `file_label`; a pointer that does not
/// fit is a InputError at the pointer, naming the file and why; a VALUE refused as above is an
/// InputError of "--set POINTER".
void apply_setting(nlohmann::json& doc, const PointerSetting& setting,
                   const std::string& file_label);

/// An error found in a scenario after `settings` were applied to it, blamed on the setting that
/// put the value there: when `error`'s JSON Pointer is a setting's pointer or lies inside it (the
/// last such setting, as a later one overrides an earlier one), the same error as an InputError of
/// "--set POINTER" whose pointer is the place inside VALUE ("" for VALUE itself), e.g.
///   `--set /optimizer/lr: expected a known key (...), found unknown key 'lr' (did you mean ...)`
///   `--set /optimizer: /learning_rate: expected a number > 0, found -1`.
/// nullopt when no setting covers that place (the file is to blame).
std::optional<InputError> blamed_setting(const InputError& error,
                                         const std::vector<PointerSetting>& settings);

}  // namespace failsim::input
