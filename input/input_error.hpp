// The one error type of every input format (scenario files and, later, sweep files): it names
// the file, the place in it (a JSON Pointer, or a line and column for malformed JSON), what was
// expected and what was found, so a user can fix the input without reading code. The CLI
// turns it into exit status 2.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace failsim::input {

/// Bad input. what() reads
///   `scenario.json: /optimizer/learning_rate: expected a number > 0, found -0.1`
/// or, for malformed JSON (json_path empty, line and column 1-based),
///   `scenario.json:3:14: expected valid JSON, found syntax error while parsing object ...`.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string expected, std::string found,
             int line = 0, int column = 0);

  /// The file label given to the parser (usually the path as the user wrote it).
  const std::string& file() const { return file_; }
  /// JSON Pointer (RFC 6901) of the offending value, e.g. "/cluster/workers/count"; "" for the
  /// whole document.
  const std::string& json_path() const { return json_path_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }
  /// 1-based position in the file text when known (malformed JSON), else 0.
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string file_;
  std::string json_path_;
  std::string expected_;
  std::string found_;
  int line_;
  int column_;
};

/// Where a value sits: a file label and a JSON Pointer. Readers pass it down as they descend,
/// so every error names the exact place without bookkeeping at the call sites.
struct JsonLocation {
  std::string file;
  std::string pointer;

  /// The location of member `key` (escaped as RFC 6901 requires: '~' -> "~0", '/' -> "~1").
  JsonLocation child(std::string_view key) const;
  /// The location of array element `index`.
  JsonLocation child(std::size_t index) const;
  /// Throws InputError(file, pointer, expected, found).
  [[noreturn]] void fail(std::string expected, std::string found) const;
};

/// A found value as messages show it: scalars as JSON text (strings quoted), long arrays and
/// objects cut short, and "nothing" for a discarded value.
std::string describe_found(const nlohmann::json& value);

}  // namespace failsim::input
