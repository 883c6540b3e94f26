// What a message may echo of an input's bytes: a file, a key, an argument may hold anything, and a
// terminal must not receive raw bytes from a hostile input (escape sequences act on it).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace failsim::input {

/// The offset of the first byte of `text` that is not part of valid UTF-8 (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF); nullopt when all of it is valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

/// `text` in double quotes with every byte outside printable ASCII written as \xNN, for messages.
std::string escape_non_ascii(std::string_view text);

/// `text` as it is when it is valid UTF-8 without control characters (but line feeds and tabs),
/// else with every byte outside printable ASCII written as \xNN: what a message may echo of a
/// file's bytes (a terminal must not receive raw bytes from a hostile input).
std::string printable(std::string_view text);

/// printable(text), cut to its first `limit` bytes with "... (N bytes)" when longer: a message
/// names a value, it does not print a megabyte of it (a sweep's message holds a point's whole).
std::string printable_excerpt(std::string_view text, std::size_t limit = 1024);

/// `n` in decimal with a comma between groups of three digits: "10,000,000", "-1,234", "999".
/// For counts a message names, which are easier to read so at the sizes of a large job.
std::string grouped(long long n);

}  // namespace failsim::input
