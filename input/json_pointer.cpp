// JSON Pointers (RFC 6901) into a JSON document: the syntax check, the tokens, and setting a
// value at a pointer (see json_pointer.hpp).
#include "input/json_pointer.hpp"

#include <charconv>

#include <fmt/format.h>

#include "input/input_error.hpp"
#include "input/json_input.hpp"

namespace failsim::input {
using nlohmann::json;

/// The tokens of a syntactically valid pointer, unescaped ("~1" -> '/', "~0" -> '~').
std::vector<std::string> pointer_tokens(const std::string& pointer) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < pointer.size();) {
    const std::size_t next = pointer.find('/', i + 1);
    const std::string raw =
        pointer.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1);
    std::string token;
    for (std::size_t j = 0; j < raw.size(); ++j) {
      if (raw[j] == '~') {
        token += raw[j + 1] == '1' ? '/' : '~';
        ++j;
      } else {
        token += raw[j];
      }
    }
    tokens.push_back(token);
    if (next == std::string::npos) break;
    i = next;
  }
  return tokens;
}

/// An array index token: decimal digits, no leading zero (RFC 6901).
std::optional<std::size_t> array_index(const std::string& token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc{} || end != token.data() + token.size()) return std::nullopt;
  return value;
}

namespace {

std::string place(const std::string& walked) {
  return walked.empty() ? std::string("the top level") : walked;
}

std::string elements(std::size_t n) { return fmt::format("{} element{}", n, n == 1 ? "" : "s"); }

std::string escape_token(const std::string& token) {
  return JsonLocation{"", ""}.child(token).pointer;
}

}  // namespace

std::string pointer_syntax_error(const std::string& pointer) {
  if (pointer.empty()) return "empty: the whole scenario, not a field of it";
  if (pointer.front() != '/') return "no leading '/'";
  for (std::size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] == '~' &&
        (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1'))) {
      return "'~' not followed by '0' (for '~') or '1' (for '/')";
    }
  }
  return {};
}

std::string set_at_pointer(json& doc, const std::string& pointer, json value) {
  const std::string syntax = pointer_syntax_error(pointer);
  if (!syntax.empty()) return syntax;
  const std::vector<std::string> tokens = pointer_tokens(pointer);
  json* node = &doc;
  std::string walked;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    const bool last = i + 1 == tokens.size();
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) {
        if (last) {
          (*node)[token] = std::move(value);
          return {};
        }
        return fmt::format("{} has no member '{}'", place(walked), token);
      }
      node = &*it;
    } else if (node->is_array()) {
      const std::optional<std::size_t> index = array_index(token);
      if (!index) {
        return fmt::format("{} is an array: '{}' is not an index of an existing element",
                           place(walked), token);
      }
      if (*index >= node->size()) {
        return fmt::format("{} has no element {} (it has {})", place(walked), *index,
                           elements(node->size()));
      }
      node = &(*node)[*index];
    } else {
      return fmt::format("{} is {}, not an object or an array", place(walked),
                         describe_found(*node));
    }
    walked += escape_token(token);
  }
  *node = std::move(value);
  return {};
}

std::optional<PointerSetting> parse_pointer_setting(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) return std::nullopt;
  PointerSetting s;
  s.pointer = text.substr(0, eq);
  s.text = text.substr(eq + 1);
  try {
    s.value = setting_value(s);
  } catch (const InputError&) {
    // Left null: apply_setting reads `text` again and reports the error where it can.
  }
  return s;
}

json setting_value(const PointerSetting& setting) {
  const std::string& text = *setting.text;
  const std::string label = "--set " + setting.pointer;
  // accept() checks the syntax without building a document (so without recursion).
  if (json::accept(text)) return parse_json_text(text, label);
  if (const auto bad = first_invalid_utf8(text)) {
    throw InputError(label, "", "a value of UTF-8 text (JSON or a string)",
                     fmt::format("{} (byte {} is not UTF-8)", escape_non_ascii(text), *bad + 1));
  }
  return text;
}

void apply_setting(json& doc, const PointerSetting& setting, const std::string& file_label) {
  const std::string syntax = pointer_syntax_error(setting.pointer);
  if (!syntax.empty()) {
    throw InputError(file_label, "",
                     "--set POINTER=VALUE with a JSON Pointer (RFC 6901) such as "
                     "/optimizer/learning_rate",
                     describe_found(setting.pointer) + " (" + syntax + ")");
  }
  const std::string problem =
      set_at_pointer(doc, setting.pointer, setting.text ? setting_value(setting) : setting.value);
  if (!problem.empty()) {
    throw InputError(file_label, setting.pointer,
                     "a field of the scenario whose parent exists (--set POINTER=VALUE)", problem);
  }
}

std::optional<InputError> blamed_setting(const InputError& error,
                                         const std::vector<PointerSetting>& settings) {
  if (error.line() > 0) return std::nullopt;  // the file's own syntax
  const std::string& place = error.json_path();
  for (auto it = settings.rbegin(); it != settings.rend(); ++it) {
    const std::string& pointer = it->pointer;
    const bool inside = place.size() > pointer.size() &&
                        place.compare(0, pointer.size(), pointer) == 0 &&
                        place[pointer.size()] == '/';
    if (place != pointer && !inside) continue;
    return InputError("--set " + pointer, place.substr(pointer.size()), error.expected(),
                      error.found());
  }
  return std::nullopt;
}

}  // namespace failsim::input
