// Reading a JSON input file (a scenario, a price file, a result read back) up to the parsed
// document: the file read, malformed JSON turned into a InputError with line and column, and
// duplicate keys refused. What the document means is each format's own reader's business.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace failsim::input {

/// The whole content of the file at `path`. A missing file, a directory or an unreadable file
/// is a InputError naming `path`, expecting `expected` (e.g. "a readable scenario file").
std::string read_input_file(const std::filesystem::path& path, const std::string& expected);

/// Parses JSON text, refusing a key seen twice in one object (nlohmann would silently keep the
/// last one). Malformed JSON is a InputError expecting "valid JSON", found nlohmann's
/// description, at a 1-based line and column when nlohmann gives a position; `file_label`
/// names the file in every error.
nlohmann::json parse_json_text(const std::string& text, const std::string& file_label);

}  // namespace failsim::input
