// Real text for the language model (models/transformer.hpp): a directory of plain-text files in
// fortune(6)'s format, by default Debian's `fortunes` package (2,576,674 bytes of English in 43
// files), cut into byte tokens, a fixed train/validation split and windows of T + 1 tokens.
//
// - Files: every regular file of the directory whose name neither starts with '.' nor ends in
//   ".dat" or ".u8" (strfile's binary indexes of the same text), in byte order of their names,
//   so the corpus is the same bytes on every machine holding the same package.
// - Tokens: one per byte, vocabulary 256. Why bytes: Debian has no well-kept, offline BPE library
//   to build on, and bytes make the tokenizer exact (every file round-trips, no unknown token)
//   and trivial (nothing to train, nothing to ship).
// - Split: the files are cut into records, each a file's bytes up to and including its next line
//   holding only "%" (fortune's separator; the last record is what follows the last separator,
//   a file without one is one record). Counting records over the whole corpus in file order,
//   every tenth (the 10th, 20th, ...) is validation, the others training; each split is its
//   records concatenated in that order. Why every tenth record rather than the last tenth of the
//   bytes: the files are topics in name order (art ... zippy), so the last bytes are one or two
//   topics; every tenth fortune gives both splits every topic, and no fortune straddles them.
// - Windows: window i of a split holds its bytes [iT, iT + T + 1): consecutive windows share one
//   byte (the last of one is the first of the next), so every byte of the split but the first is
//   a prediction target exactly once; the last (split bytes - 1) mod T bytes make no window.
//   Each window is one Dataset row of T + 1 floats (the transformer's sample), its label the
//   window's last byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/dataset.hpp"
#include "models/fortunes.hpp"  // FORTUNES_DIR, the default corpus

namespace failsim::models {

/// Byte tokens: 256 of them.
inline constexpr int BYTE_VOCABULARY = 256;

/// Every VALIDATION_EVERY-th record of the corpus is validation text.
inline constexpr int VALIDATION_EVERY = 10;

/// The corpus's files (see above), as full paths in byte order of their names. Throws DataError
/// (MISSING_FILE) when `dir` is not a directory.
std::vector<std::string> corpus_files(const std::string& dir);

/// The records of one file's text (see above), in order, as views into `text`.
std::vector<std::string_view> corpus_records(std::string_view text);

/// The bytes of one split of the corpus: its records concatenated in corpus order. Throws
/// DataError: MISSING_FILE when `dir` is not a directory, IO_ERROR when a file does not read,
/// EMPTY when the corpus holds no byte.
std::string corpus_split(const std::string& dir, Split split);

/// How many windows of `sequence` + 1 tokens `bytes` bytes make: (bytes - 1) / sequence (0 for
/// fewer than 2 bytes). Throws std::invalid_argument unless sequence >= 1.
int window_count(std::size_t bytes, int sequence);

/// The first `limit` windows (all when limit < 0 or beyond their count) of `sequence` + 1 byte
/// tokens of `text`, as a Dataset named `name` of width sequence + 1, 256 classes, tokens set.
/// Throws std::invalid_argument unless sequence >= 1.
Dataset token_windows(std::string_view text, int sequence, int limit, const std::string& name);

/// The shape of a split of the corpus in `dir` in windows of `sequence` + 1 tokens (samples =
/// min(limit, windows) for limit >= 0), reading the corpus. Throws DataError as corpus_split,
/// and EMPTY when the split makes no window.
DataShape text_split_shape(const std::string& dir, Split split, int sequence, int limit = -1);

/// The split's windows (see token_windows), named "text-train" or "text-test". Throws DataError
/// as text_split_shape.
Dataset load_text_split(const std::string& dir, Split split, int sequence, int limit = -1);

}  // namespace failsim::models
