// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: result.json's scenario_sha256
// (docs/result-format.md). Dependency-free, like the rest of the vocabulary of result files.
#pragma once

#include <string>
#include <string_view>

namespace failsim::result_format {

/// The SHA-256 digest of `bytes` as 64 lowercase hex digits (what `sha256sum` prints).
std::string sha256_hex(std::string_view bytes);

}  // namespace failsim::result_format
