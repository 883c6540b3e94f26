#include "input/input_error.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "input/printable.hpp"

namespace failsim::input {
namespace {

std::string format_message(const std::string& file, const std::string& json_path,
                           const std::string& expected, const std::string& found, int line,
                           int column) {
  // What the input holds is echoed printable and in excerpt (a file, a key, a value may hold
  // anything); what failsim says of it, `expected`, is its own text.
  std::string message = printable(file);
  if (line > 0) {
    message += ':';
    message += std::to_string(line);
    message += ':';
    message += std::to_string(column);
  }
  if (!json_path.empty()) {
    message += ": ";
    message += printable_excerpt(json_path);
  }
  message += ": expected ";
  message += expected;
  message += ", found ";
  message += printable_excerpt(found);
  return message;
}

}  // namespace

InputError::InputError(std::string file, std::string json_path, std::string expected,
                       std::string found, int line, int column)
    : std::runtime_error(format_message(file, json_path, expected, found, line, column)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      expected_(std::move(expected)),
      found_(std::move(found)),
      line_(line),
      column_(column) {}

JsonLocation JsonLocation::child(std::string_view key) const {
  std::string escaped;
  escaped.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return {file, pointer + "/" + escaped};
}

JsonLocation JsonLocation::child(std::size_t index) const {
  return {file, pointer + "/" + std::to_string(index)};
}

std::string describe_found(const nlohmann::json& value) {
  constexpr std::size_t MAX_CHARS = 60;
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > MAX_CHARS) {
    std::size_t cut = MAX_CHARS - 3;
    // Never cut a UTF-8 sequence in two: back up over continuation bytes (10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
    text = text.substr(0, cut) + "...";
  }
  return text;
}

void JsonLocation::fail(std::string expected, std::string found) const {
  throw InputError(file, pointer, std::move(expected), std::move(found));
}

}  // namespace failsim::input
