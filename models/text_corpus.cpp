// The text corpus: its files, records, split and windows (see text_corpus.hpp).
#include "models/text_corpus.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/idx.hpp"

namespace failsim::models {
namespace fs = std::filesystem;

namespace {

bool is_text_file(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  return entry.is_regular_file() && !name.starts_with(".") && !name.ends_with(".dat") &&
         !name.ends_with(".u8");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    throw DataError(DataErrorKind::IO_ERROR, path, "expected a readable text file of the corpus");
  }
  return text.str();
}

void check_sequence(int sequence) {
  if (sequence < 1) {
    throw std::invalid_argument(
        fmt::format("text windows: sequence must be >= 1, found {}", sequence));
  }
}

}  // namespace

std::vector<std::string> corpus_files(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw DataError(DataErrorKind::MISSING_FILE, dir,
                    "expected a directory of plain-text files (the corpus)");
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (is_text_file(entry)) files.push_back(entry.path().string());
  }
  // std::string compares as unsigned bytes (char_traits<char>): the same order everywhere.
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string_view> corpus_records(std::string_view text) {
  std::vector<std::string_view> records;
  std::size_t start = 0;
  std::size_t line = 0;
  while (line < text.size()) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    const std::size_t next = end == text.size() ? end : end + 1;
    if (text.substr(line, end - line) == "%") {
      records.push_back(text.substr(start, next - start));
      start = next;
    }
    line = next;
  }
  if (start < text.size()) records.push_back(text.substr(start));
  return records;
}

std::string corpus_split(const std::string& dir, Split split) {
  std::string out;
  std::size_t record = 0;
  std::size_t bytes = 0;
  for (const std::string& file : corpus_files(dir)) {
    const std::string text = read_file(file);
    bytes += text.size();
    for (const std::string_view r : corpus_records(text)) {
      const bool validation = (record + 1) % VALIDATION_EVERY == 0;
      if (validation == (split == Split::TEST)) out += r;
      ++record;
    }
  }
  if (bytes == 0) {
    throw DataError(DataErrorKind::EMPTY, dir,
                    "expected a corpus of text, found no byte in its plain-text files (every "
                    "regular file but .dat, .u8 and hidden ones)");
  }
  return out;
}

int window_count(std::size_t bytes, int sequence) {
  check_sequence(sequence);
  return bytes < 2 ? 0 : static_cast<int>((bytes - 1) / static_cast<std::size_t>(sequence));
}

Dataset token_windows(std::string_view text, int sequence, int limit, const std::string& name) {
  const int windows = window_count(text.size(), sequence);
  const int n = limit < 0 ? windows : std::min(limit, windows);
  Dataset data;
  data.name = name;
  data.width = sequence + 1;
  data.num_classes = BYTE_VOCABULARY;
  data.tokens = true;
  const auto width = static_cast<std::size_t>(data.width);
  data.x.resize(static_cast<std::size_t>(n) * width);
  data.y.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    const std::size_t start = i * static_cast<std::size_t>(sequence);
    for (std::size_t j = 0; j < width; ++j) {
      data.x[i * width + j] = static_cast<float>(static_cast<unsigned char>(text[start + j]));
    }
    data.y[i] = static_cast<unsigned char>(text[start + width - 1]);
  }
  return data;
}

namespace {

/// The split's text, refused (EMPTY) when it makes no window.
std::string split_text(const std::string& dir, Split split, int sequence) {
  std::string text = corpus_split(dir, split);
  if (window_count(text.size(), sequence) == 0) {
    throw DataError(
        DataErrorKind::EMPTY, dir,
        fmt::format("expected a {} split of at least one window of {} tokens, found {} "
                    "bytes",
                    split == Split::TRAIN ? "training" : "validation", sequence + 1, text.size()));
  }
  return text;
}

}  // namespace

DataShape text_split_shape(const std::string& dir, Split split, int sequence, int limit) {
  const int windows = window_count(split_text(dir, split, sequence).size(), sequence);
  DataShape shape;
  shape.samples = limit < 0 ? windows : std::min(limit, windows);
  shape.width = sequence + 1;
  shape.num_classes = BYTE_VOCABULARY;
  shape.tokens = true;
  return shape;
}

Dataset load_text_split(const std::string& dir, Split split, int sequence, int limit) {
  return token_windows(split_text(dir, split, sequence), sequence, limit,
                       split == Split::TRAIN ? "text-train" : "text-test");
}

}  // namespace failsim::models
