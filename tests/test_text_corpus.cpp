// The text corpus (models/text_corpus.hpp) on small corpora written to a temporary directory:
// which files it reads and in which order, its records, its split and its windows, each
// worked out by hand; and Debian's fortunes, when installed, as docs/scenario-format.md
// describes them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "models/evaluate.hpp"
#include "models/idx.hpp"
#include "models/text_corpus.hpp"
#include "models/transformer.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using failsim::models::corpus_files;
using failsim::models::corpus_records;
using failsim::models::corpus_split;
using failsim::models::DataError;
using failsim::models::DataErrorKind;
using failsim::models::Split;
using failsim::testing::TempDir;

namespace {

void write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name), std::ios::binary) << text;
}

DataErrorKind error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.kind();
  }
  FAIL("no DataError");
  return DataErrorKind::IO_ERROR;
}

}  // namespace

TEST_CASE("the corpus is the plain-text files in byte order of their names", "[models][text]") {
  TempDir dir;
  for (const char* name : {"b", "a", "a.dat", "a.u8", ".hidden", "B", "b-c"}) write(dir, name, "x");
  std::filesystem::create_directory(dir.file("sub"));
  CHECK(corpus_files(dir.path()) ==
        std::vector<std::string>{dir.file("B"), dir.file("a"), dir.file("b"), dir.file("b-c")});
  CHECK(error_kind([&] { corpus_files(dir.file("none")); }) == DataErrorKind::MISSING_FILE);
}

TEST_CASE("a record runs to and including its next line holding only %", "[models][text]") {
  using V = std::vector<std::string_view>;
  CHECK(corpus_records("one\n%\ntwo\nlines\n%\nthree") ==
        V{"one\n%\n", "two\nlines\n%\n", "three"});
  CHECK(corpus_records("a %\n%%\n%\n") == V{"a %\n%%\n%\n"});
  CHECK(corpus_records("%\nx\n%") == V{"%\n", "x\n%"});
  CHECK(corpus_records("no separator") == V{"no separator"});
  CHECK(corpus_records("").empty());
}

TEST_CASE("every tenth record of the corpus, counted across files, is validation",
          "[models][text]") {
  TempDir dir;
  // 12 records: 7 in "a" (0..6), 5 in "b" (7..11); record 9 (the tenth) is validation.
  write(dir, "a", "0\n%\n1\n%\n2\n%\n3\n%\n4\n%\n5\n%\n6\n%\n");
  write(dir, "b", "7\n%\n8\n%\n9\n%\n10\n%\n11\n");
  CHECK(corpus_split(dir.path(), Split::TEST) == "9\n%\n");
  CHECK(corpus_split(dir.path(), Split::TRAIN) ==
        "0\n%\n1\n%\n2\n%\n3\n%\n4\n%\n5\n%\n6\n%\n7\n%\n8\n%\n10\n%\n11\n");
  TempDir empty;
  write(empty, "a.dat", "index");
  write(empty, "a", "");
  CHECK(error_kind([&] { corpus_split(empty.path(), Split::TRAIN); }) == DataErrorKind::EMPTY);
}

TEST_CASE("windows of T + 1 byte tokens share one byte with the next", "[models][text]") {
  // "abcdefghij": 10 bytes, T = 3: windows [0, 4), [3, 7), [6, 10); (10 - 1) / 3 = 3.
  const auto data = failsim::models::token_windows("abcdefghij", 3, -1, "w");
  REQUIRE(data.size() == 3);
  CHECK(data.dim() == 4);
  CHECK(data.num_classes == 256);
  CHECK(data.tokens);
  const std::vector<float> expected{'a', 'b', 'c', 'd', 'd', 'e', 'f', 'g', 'g', 'h', 'i', 'j'};
  CHECK(std::vector<float>(data.x.begin(), data.x.end()) == expected);
  CHECK(data.y == std::vector<std::int32_t>{'d', 'g', 'j'});
  // A byte above 127 is its unsigned value; the limit keeps the first windows; 9 bytes make 2.
  const auto high =
      failsim::models::token_windows("\xff\x01\x02\x03\x04\x05\x06\x07\x08", 3, 1, "h");
  REQUIRE(high.size() == 1);
  CHECK(high.x[0] == 255.0f);
  CHECK(failsim::models::window_count(9, 3) == 2);
  CHECK(failsim::models::window_count(1, 3) == 0);
}

TEST_CASE("a split too short for one window is refused, naming the corpus", "[models][text]") {
  // Nine training records of 4 bytes, then the validation record "v\n%\n": 4 bytes, one short of
  // a window of 5 tokens.
  TempDir dir;
  write(dir, "a", "1\n%\n2\n%\n3\n%\n4\n%\n5\n%\n6\n%\n7\n%\n8\n%\n9\n%\nv\n%\n");
  const auto shape = failsim::models::text_split_shape(dir.path(), Split::TRAIN, 4);
  CHECK(shape.tokens);
  CHECK(shape.width == 5);
  try {
    failsim::models::text_split_shape(dir.path(), Split::TEST, 4);
    FAIL("no error");
  } catch (const DataError& e) {
    CHECK(e.kind() == DataErrorKind::EMPTY);
    CHECK(e.path() == dir.path());
    CHECK_THAT(e.what(), Catch::Contains("validation split of at least one window of 5 tokens, "
                                         "found 4 bytes"));
  }
}

TEST_CASE("Debian's fortunes: 43 files, 2,576,674 bytes, split as docs/scenario-format.md says",
          "[models][text]") {
  if (!std::filesystem::exists(failsim::models::FORTUNES_DIR)) {
    FAILSIM_SKIP("the Debian package fortunes is not installed");
  }
  CHECK(corpus_files(failsim::models::FORTUNES_DIR).size() == 43);
  const std::string train = corpus_split(failsim::models::FORTUNES_DIR, Split::TRAIN);
  const std::string test = corpus_split(failsim::models::FORTUNES_DIR, Split::TEST);
  CHECK(train.size() + test.size() == 2576674);
  // Worked out apart from this code, with a Python regular expression for the separator lines:
  // 15,221 records.
  CHECK(train.size() == 2319785);
  CHECK(test.size() == 256889);
}

TEST_CASE("a language model's evaluation is its training loss over every position",
          "[models][text]") {
  // 40 windows of T = 8 from a text, two chunks of 32 and 8: the evaluation's loss is the mean
  // next-token cross-entropy over all 40 x 8 positions, the training loss of the same windows.
  std::string text;
  for (int k = 0; text.size() < 400; ++k) text += "fortune " + std::to_string(k * k) + "\n%\n";
  const auto data = failsim::models::token_windows(text, 8, 40, "eval");
  REQUIRE(data.size() == 40);
  failsim::models::Transformer model({256, 8, 1, 16, 2, 4, true});
  std::vector<float> params(model.num_params()), grad(model.num_params());
  model.init(params, 5);
  // Trained a little, so the positions' losses differ from each other and from ln 256.
  const failsim::models::Batch all{data.x.data(), data.y.data(), data.size()};
  for (int step = 0; step < 20; ++step) {
    model.loss_and_gradient(params, all, grad, 0);
    for (std::size_t i = 0; i < params.size(); ++i) params[i] -= 0.5f * grad[i];
  }
  const float training = model.loss_and_gradient(params, all, grad, 0);
  failsim::models::Evaluator evaluator(model, 32);
  const auto r = evaluator.evaluate(params, data);
  CHECK(r.samples == 40);
  CHECK(r.loss == Approx(training).epsilon(1e-5));
  CHECK(r.loss < std::log(256.0) - 0.5);
  // The accuracy is the last position's: the arg-max of logits() against Batch::y.
  std::vector<float> logits(40 * 256);
  model.logits(params, data.x.data(), 40, logits.data());
  int right = 0;
  for (int b = 0; b < 40; ++b) {
    const float* row = logits.data() + b * 256;
    right += std::max_element(row, row + 256) - row == data.y[static_cast<std::size_t>(b)];
  }
  CHECK(r.accuracy == Approx(right / 40.0));
}
