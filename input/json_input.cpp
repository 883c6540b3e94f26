// Reading JSON input files for every format (see json_input.hpp).
#include "input/json_input.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "input/input_error.hpp"

namespace failsim::input {
namespace {

/// Keeps nlohmann's description of a syntax error, without its "[json.exception...] parse
/// error at line L, column C: " prefix (we compute a better line and column ourselves).
std::string strip_json_exception_prefix(const std::string& what) {
  std::size_t start = what.find("] ");
  start = start == std::string::npos ? 0 : start + 2;
  const std::size_t parse_error = what.find("parse error", start);
  if (parse_error != std::string::npos) {
    const std::size_t colon = what.find(": ", parse_error);
    if (colon != std::string::npos) start = colon + 2;
  }
  return what.substr(start);
}

/// 1-based line and column of the character at `byte` (nlohmann's 1-based count of bytes
/// read, so byte - 1 is the offending character).
std::pair<int, int> line_and_column(const std::string& text, std::size_t byte) {
  const std::size_t index = std::min(byte == 0 ? 0 : byte - 1, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < index; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(index - line_start) + 1};
}

/// A SAX handler building the document with nlohmann's own DOM builder while it refuses
/// duplicate keys (nlohmann would silently keep the last one, and a pasted-in second
/// "learning_rate" must not silently win) and nesting deeper than MAX_JSON_DEPTH, naming where.
/// Not nlohmann's callback parser: after each object it ends, that one scans the enclosing
/// container for a discarded element, so an array of n objects took O(n^2) (150,000 listed
/// failure events: more than 20 s).
class CheckedDomBuilder {
 public:
  using json = nlohmann::json;

  CheckedDomBuilder(json& result, std::string file) : dom_(result), file_(std::move(file)) {}

  bool null() { return value_done(dom_.null()); }
  bool boolean(bool v) { return value_done(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value_done(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value_done(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    return value_done(dom_.number_float(v, text));
  }
  bool string(json::string_t& v) { return value_done(dom_.string(v)); }
  bool binary(json::binary_t& v) { return value_done(dom_.binary(v)); }

  bool start_object(std::size_t size) {
    open(false);
    return dom_.start_object(size);
  }
  bool start_array(std::size_t size) {
    open(true);
    return dom_.start_array(size);
  }
  bool end_object() {
    close();
    return dom_.end_object();
  }
  bool end_array() {
    close();
    return dom_.end_array();
  }

  bool key(json::string_t& key) {
    Frame& top = frames_.back();
    top.key = key;
    if (!top.keys.insert(top.key).second) {
      throw InputError(file_, location().pointer, "each key at most once in an object",
                       "'" + top.key + "' a second time");
    }
    return dom_.key(key);
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);  // throws e
  }

 private:
  struct Frame {
    bool is_array;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };

  /// A new array or object, below the frames open (the top level has none).
  void open(bool is_array) {
    if (frames_.size() >= static_cast<std::size_t>(MAX_JSON_DEPTH)) {
      throw InputError(
          file_, location().pointer,
          fmt::format("at most {} levels of nested arrays and objects", MAX_JSON_DEPTH),
          "deeper nesting");
    }
    frames_.push_back(Frame{is_array, {}, {}, 0});
  }

  void close() {
    frames_.pop_back();
    element_done();
  }

  bool value_done(bool keep_parsing) {
    element_done();
    return keep_parsing;
  }

  void element_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }

  JsonLocation location() const {
    JsonLocation where{file_, ""};
    for (const Frame& f : frames_) where = f.is_array ? where.child(f.index) : where.child(f.key);
    return where;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string file_;
  std::vector<Frame> frames_;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path, const std::string& expected,
                            std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  const std::string label = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw InputError(label, "", expected, "no such file");
  if (fs::is_directory(status)) throw InputError(label, "", expected, "a directory");
  if (!fs::is_regular_file(status)) {
    throw InputError(label, "", expected + " (a regular file)",
                     "a FIFO, socket or device, which may block or never end");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw InputError(label, "", fmt::format("{} of at most {} bytes", expected, max_bytes),
                     fmt::format("{} bytes", size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(label, "", expected, std::strerror(errno));
  // One byte more than the size found: a file that grows while it is read is an error, not a
  // read that never ends.
  std::string text(static_cast<std::size_t>(size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw InputError(label, "", expected, "a read error");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > size) {
    throw InputError(label, "", expected, "a file that grew while it was read");
  }
  return text;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& file_label) {
  try {
    nlohmann::json result;
    CheckedDomBuilder builder(result, file_label);
    nlohmann::json::sax_parse(text, &builder);
    return result;
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte);
    throw InputError(file_label, "", "valid JSON", printable(strip_json_exception_prefix(e.what())),
                     line, column);
  } catch (const nlohmann::json::exception& e) {
    // E.g. out_of_range.406 for a number literal too large for a double: no position given.
    throw InputError(file_label, "", "valid JSON",
                     printable(strip_json_exception_prefix(e.what())));
  }
}

}  // namespace failsim::input
