// The input library on hostile files: what is not a regular file, what is too large, what is
// nested too deep. Each is an InputError naming the file, never a hang or a crash.
#include <sys/stat.h>  // mkfifo

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "input/input_error.hpp"
#include "input/json_input.hpp"
#include "tests/input_error_of.hpp"
#include "tests/temp_dir.hpp"

using failsim::input::MAX_JSON_DEPTH;
using failsim::input::parse_json_text;
using failsim::input::read_input_file;
using failsim::testing::error_of;
using failsim::testing::TempDir;

namespace {

std::string nested_arrays(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

/// Whether `text` holds a byte a terminal must not receive raw: not UTF-8, or a control byte.
bool first_invalid_utf8_or_control(const std::string& text) {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 && c != '\n') return true;
  }
  return failsim::input::first_invalid_utf8(text).has_value();
}

}  // namespace

TEST_CASE("read_input_file refuses a device, which never ends, and a FIFO, which blocks") {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    const auto e = error_of([&] { read_input_file(device, "a readable scenario file"); });
    CHECK(e.file() == device);
    CHECK(e.expected() == "a readable scenario file (a regular file)");
    CHECK(e.found() == "a FIFO, socket or device, which may block or never end");
  }
  TempDir dir;
  const std::string fifo = dir.file("scenario.json");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const auto e = error_of([&] { read_input_file(fifo, "a readable scenario file"); });
  CHECK(e.found() == "a FIFO, socket or device, which may block or never end");
}

TEST_CASE("read_input_file reads a file of the limit's size and refuses one byte more") {
  TempDir dir;
  const std::string file = dir.file("a.json");
  write(file, std::string(100, ' '));
  CHECK(read_input_file(file, "a readable file", 100).size() == 100);
  const auto e = error_of([&] { read_input_file(file, "a readable file", 99); });
  CHECK(e.expected() == "a readable file of at most 99 bytes");
  CHECK(e.found() == "100 bytes");
  CHECK(failsim::input::MAX_INPUT_BYTES == 16u << 20);
}

TEST_CASE("parse_json_text takes MAX_JSON_DEPTH levels and refuses one more, where it starts") {
  CHECK(parse_json_text(nested_arrays(MAX_JSON_DEPTH), "a.json").is_array());
  const auto e = error_of([&] { parse_json_text(nested_arrays(MAX_JSON_DEPTH + 1), "a.json"); });
  CHECK(e.file() == "a.json");
  CHECK(e.expected() == "at most 64 levels of nested arrays and objects");
  CHECK(e.found() == "deeper nesting");
  std::string pointer;
  for (int i = 0; i < MAX_JSON_DEPTH; ++i) pointer += "/0";
  CHECK(e.json_path() == pointer);
  // A million levels: an error as quick as one more (it used to overflow the stack).
  const auto deep =
      error_of([&] { parse_json_text("{\"a\":" + nested_arrays(1000000) + "}", "b.json"); });
  CHECK(deep.expected() == "at most 64 levels of nested arrays and objects");
}

TEST_CASE("first_invalid_utf8 finds the first byte that is not UTF-8 (RFC 3629)") {
  using failsim::input::escape_non_ascii;
  using failsim::input::first_invalid_utf8;
  CHECK_FALSE(first_invalid_utf8("plain ascii"));
  CHECK_FALSE(first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
  CHECK(first_invalid_utf8("caf\xff") == 3u);           // never a UTF-8 byte
  CHECK(first_invalid_utf8("ab\xc3") == 2u);            // cut short
  CHECK(first_invalid_utf8("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(first_invalid_utf8("\xe0\x80\xaf") == 0u);      // overlong, three bytes
  CHECK(first_invalid_utf8("x\xed\xa0\x80") == 1u);     // a UTF-16 surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0u);  // above U+10FFFF
  CHECK(first_invalid_utf8("\xe2\x82"
                           "a") == 0u);  // a continuation byte missing
  CHECK(escape_non_ascii("caf\xff\n") == "\"caf\\xff\\x0a\"");
}

TEST_CASE("a JSON syntax error echoes the file's bytes only as printable text") {
  using failsim::input::printable;
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");  // valid UTF-8 stays as it is
  CHECK(printable("a\xff\x1b[2J") == "a\\xff\\x1b[2J");
  // nlohmann's message quotes what it read last: raw bytes a terminal would act on.
  const auto e = error_of([] { parse_json_text("{\"a\": \xff\x1b[2J}", "c.json"); });
  CHECK(e.expected() == "valid JSON");
  CHECK_FALSE(first_invalid_utf8_or_control(e.what()));
  CHECK_THAT(e.found(), Catch::Contains("\\xff"));
}

TEST_CASE("an input error echoes the input's bytes printable and in excerpt") {
  const failsim::input::InputError e("f.json", "/descr\xffiption", "a known key",
                                     std::string(3000, 'x'));
  const std::string what = e.what();
  CHECK_THAT(what, Catch::StartsWith("f.json: /descr\\xffiption: expected a known key, found xxx"));
  CHECK_THAT(what, Catch::EndsWith("x... (3000 bytes)"));
  CHECK(what.size() < 1100);
  CHECK(e.found().size() == 3000);  // the error itself keeps the whole value
}
