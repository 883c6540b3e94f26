#include "input/printable.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace failsim::input {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned low = 0x80, high = 0xBF;  // the range of the second byte (RFC 3629, table 3-7)
    if (lead < 0x80) {
      length = 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // no overlong forms
      if (lead == 0xED) high = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // no overlong forms
      if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned b = byte(i + k);
      if (k == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += length;
  }
  return std::nullopt;
}

namespace {
/// Every byte outside printable ASCII written as \xNN.
std::string escape_bytes(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    out += b >= 0x20 && b < 0x7F ? std::string(1, c) : fmt::format("\\x{:02x}", b);
  }
  return out;
}
}  // namespace

// fmt rather than "\"" + std::string&&: GCC 12 warns falsely (-Wrestrict) on the latter.
std::string escape_non_ascii(std::string_view text) {
  return fmt::format("\"{}\"", escape_bytes(text));
}

std::string printable(std::string_view text) {
  const bool control = std::any_of(text.begin(), text.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b < 0x20 && c != '\n' && c != '\t') || b == 0x7F;
  });
  return control || first_invalid_utf8(text) ? escape_bytes(text) : std::string(text);
}

std::string printable_excerpt(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return printable(text);
  return fmt::format("{}... ({} bytes)", printable(text.substr(0, limit)), text.size());
}

std::string grouped(long long n) {
  // Digits of |n| from the unsigned value: -LLONG_MIN does not fit in a long long.
  const unsigned long long magnitude =
      n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

}  // namespace failsim::input
