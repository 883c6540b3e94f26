// Helpers every section reader and writer shares: counts, paths, optional values and the phrases
// refusals are made of. Apart from sections.hpp so that the readers that the Scenario's own
// headers declare (distribution.hpp, ps/recovery.hpp) use them without including the Scenario.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/object_reader.hpp"
#include "sim/scenario/limits.hpp"

namespace failsim::sim::detail {

/// The largest count a field may hold (they are ints in the structs).
constexpr std::int64_t INT_LIMIT = INT_MAX;

inline int to_int(std::int64_t v) { return static_cast<int>(v); }

/// A path written in the scenario, made absolute against the scenario file's directory.
std::string resolve_path(const std::string& written, const std::string& file_label);

/// Fails at `where` for a path the system cannot use: a NUL character, more than
/// MAX_PATH_BYTES, a component of more than MAX_NAME_BYTES.
void check_path(const input::JsonLocation& where, const std::string& written);

/// The text of the file that a scenario field names (`written`, resolved to `path`, the file
/// `expected`): a file that cannot be read (missing, a directory, a device, too large) fails at
/// `where`, the field, naming what was written and where it led, so the message names the
/// scenario file and the pointer as every other does.
std::string read_named_file(const input::JsonLocation& where, const std::string& written,
                            const std::string& path, const std::string& expected);

/// An unset optional field is written as null.
nlohmann::json optional_to_json(const std::optional<double>& v);

/// `"name"`: a strategy as refusals name it.
std::string quoted_name(std::string_view strategy);
/// "a", "a and b", "a, b and c".
std::string join_and(const std::vector<std::string>& items);

}  // namespace failsim::sim::detail
