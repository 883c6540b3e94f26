// IDX reading: round trips of raw and gzipped files written into a per-test temporary
// directory, one test per kind of bad file (asserting the kind and what the message says),
// and the real Fashion-MNIST files (tag [fashion]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "models/idx.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using failsim::models::DataError;
using failsim::models::DataErrorKind;
using failsim::models::Dataset;
using failsim::models::IdxArray;
using failsim::models::Split;
using failsim::testing::TempDir;
using Bytes = std::vector<std::uint8_t>;

namespace {

// IDX bytes built by hand (big-endian dims), independent of write_idx.
Bytes idx_bytes(std::uint8_t type, const std::vector<std::uint32_t>& dims, const Bytes& data) {
  Bytes out{0, 0, type, static_cast<std::uint8_t>(dims.size())};
  for (const std::uint32_t d : dims) {
    out.push_back(static_cast<std::uint8_t>(d >> 24));
    out.push_back(static_cast<std::uint8_t>(d >> 16));
    out.push_back(static_cast<std::uint8_t>(d >> 8));
    out.push_back(static_cast<std::uint8_t>(d));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Bytes iota_bytes(std::size_t n, std::uint8_t start = 0) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(start + i);
  return out;
}

// Bytes that are not periodic with any small period, so misplaced reads show.
Bytes patterned_bytes(std::size_t n) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i * 7 + i / 300);
  return out;
}

std::uint32_t crc32(const Bytes& bytes) {
  std::uint32_t crc = 0xFFFFFFFFU;
  for (const std::uint8_t b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1U)));
  }
  return ~crc;
}

void put_le32(Bytes& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// A gzip file (RFC 1952) holding `payload` in stored deflate blocks, built by hand so the
// reader is also tested on gzip that our own writer did not produce.
Bytes gzip_stored(const Bytes& payload) {
  Bytes out{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  std::size_t done = 0;
  do {
    const std::size_t len = std::min<std::size_t>(payload.size() - done, 65535);
    const bool last = done + len == payload.size();
    out.push_back(last ? 1 : 0);
    out.push_back(static_cast<std::uint8_t>(len));
    out.push_back(static_cast<std::uint8_t>(len >> 8));
    out.push_back(static_cast<std::uint8_t>(~len));
    out.push_back(static_cast<std::uint8_t>(~len >> 8));
    out.insert(out.end(), payload.begin() + static_cast<std::ptrdiff_t>(done),
               payload.begin() + static_cast<std::ptrdiff_t>(done + len));
    done += len;
  } while (done < payload.size());
  put_le32(out, crc32(payload));
  put_le32(out, static_cast<std::uint32_t>(payload.size()));
  return out;
}

// The DataError `f` throws, if any; any other exception propagates and fails the test.
template <class F>
std::optional<DataError> data_error(F&& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e;
  }
  return std::nullopt;
}

// A valid pair: 5 images of 2x3 with pixels 0, 8, 16, ..., 232 and labels 0..4.
struct Pair {
  IdxArray images{{5, 2, 3}, {}};
  IdxArray labels{{5}, {3, 0, 4, 1, 2}};
  Pair() {
    for (int i = 0; i < 30; ++i) images.data.push_back(static_cast<std::uint8_t>(8 * i));
  }
};

}  // namespace

TEST_CASE("read_idx reads a hand-written raw IDX file", "[idx]") {
  TempDir dir;
  const std::string path = dir.file("a.idx");
  write_bytes(path, idx_bytes(0x08, {3, 2, 2}, iota_bytes(12, 200)));
  const IdxArray array = failsim::models::read_idx(path);
  CHECK(array.dims == std::vector<std::uint32_t>{3, 2, 2});
  CHECK(array.items() == 3);
  CHECK(array.item_size() == 4);
  CHECK(array.data == iota_bytes(12, 200));
  CHECK(failsim::models::read_idx_dims(path) == std::vector<std::uint32_t>{3, 2, 2});
}

TEST_CASE("read_idx with max_items reads only the first items", "[idx]") {
  TempDir dir;
  const std::string path = dir.file("a.idx");
  write_bytes(path, idx_bytes(0x08, {4, 3}, iota_bytes(12)));
  const IdxArray two = failsim::models::read_idx(path, 2);
  CHECK(two.dims == std::vector<std::uint32_t>{2, 3});
  CHECK(two.data == iota_bytes(6));
  CHECK(failsim::models::read_idx(path, 0).data.empty());
  CHECK(failsim::models::read_idx(path, 99).dims[0] == 4);
}

TEST_CASE("write_idx writes the IDX format, raw or gzipped", "[idx]") {
  TempDir dir;
  const IdxArray array{{2, 3, 1}, iota_bytes(6, 7)};
  failsim::models::write_idx(dir.file("raw.idx"), array, false);
  CHECK(read_bytes(dir.file("raw.idx")) == idx_bytes(0x08, {2, 3, 1}, iota_bytes(6, 7)));

  failsim::models::write_idx(dir.file("z.idx.gz"), array, true);
  const Bytes gz = read_bytes(dir.file("z.idx.gz"));
  REQUIRE(gz.size() >= 2);
  CHECK(gz[0] == 0x1f);
  CHECK(gz[1] == 0x8b);
  const IdxArray back = failsim::models::read_idx(dir.file("z.idx.gz"));
  CHECK(back.dims == array.dims);
  CHECK(back.data == array.data);

  CHECK_THROWS_AS(failsim::models::write_idx(dir.file("bad"), IdxArray{{2, 2}, {1, 2, 3}}, false),
                  std::invalid_argument);
}

TEST_CASE("load_idx_pair round trip of a raw and a gzipped pair", "[idx]") {
  const bool gzip = GENERATE(false, true);
  CAPTURE(gzip);
  TempDir dir;
  const Pair pair;
  // Gzip is detected from the content, so the names deliberately carry no .gz.
  failsim::models::write_idx(dir.file("images"), pair.images, gzip);
  failsim::models::write_idx(dir.file("labels"), pair.labels, gzip);
  const Dataset data =
      failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"), "tiny");
  CHECK(data.name == "tiny");
  CHECK(data.size() == 5);
  CHECK(data.channels == 1);
  CHECK(data.height == 2);
  CHECK(data.width == 3);
  CHECK(data.num_classes == 10);
  CHECK(data.y == std::vector<std::int32_t>{3, 0, 4, 1, 2});
  REQUIRE(data.x.size() == 30);
  for (std::size_t i = 0; i < 30; ++i) {
    CHECK(data.x[i] == Approx((8.0 * static_cast<double>(i) / 255.0 - 0.5) / 0.5).margin(1e-6));
  }
  CHECK(data.sample(4)[5] == Approx((232.0 / 255.0 - 0.5) / 0.5).margin(1e-6));

  SECTION("custom normalisation and classes") {
    const Dataset other = failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"),
                                                         "tiny", 0.25f, 2.0f, -1, 5);
    CHECK(other.num_classes == 5);
    CHECK(other.x[7] == Approx((56.0 / 255.0 - 0.25) / 2.0).margin(1e-6));
  }
  SECTION("limit keeps the first samples") {
    const Dataset two = failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"),
                                                       "tiny", 0.5f, 0.5f, 2);
    CHECK(two.size() == 2);
    CHECK(two.y == std::vector<std::int32_t>{3, 0});
    CHECK(std::equal(two.x.begin(), two.x.end(), data.x.begin()));
  }
}

TEST_CASE("load_idx_pair accepts (n, dim) and (n, channels, height, width) images", "[idx]") {
  TempDir dir;
  failsim::models::write_idx(dir.file("labels"), IdxArray{{2}, {1, 0}}, false);

  failsim::models::write_idx(dir.file("flat"), IdxArray{{2, 6}, iota_bytes(12)}, false);
  const Dataset flat = failsim::models::load_idx_pair(dir.file("flat"), dir.file("labels"), "f");
  CHECK((flat.channels == 1 && flat.height == 1 && flat.width == 6));

  failsim::models::write_idx(dir.file("rgb"), IdxArray{{2, 3, 2, 1}, iota_bytes(12)}, true);
  const Dataset rgb = failsim::models::load_idx_pair(dir.file("rgb"), dir.file("labels"), "r");
  CHECK((rgb.channels == 3 && rgb.height == 2 && rgb.width == 1));
  CHECK(rgb.dim() == 6);
}

TEST_CASE("load_idx_split takes the .gz file if present, else the uncompressed one", "[idx]") {
  TempDir dir;
  const Pair pair;
  failsim::models::write_idx(dir.file("t10k-images-idx3-ubyte"), pair.images, false);
  failsim::models::write_idx(dir.file("t10k-labels-idx1-ubyte"), pair.labels, false);
  const Dataset raw = failsim::models::load_idx_split(dir.path(), Split::TEST, "set");
  CHECK(raw.name == "set-test");
  CHECK(raw.y == std::vector<std::int32_t>{3, 0, 4, 1, 2});

  // A .gz with different labels next to the raw file must win.
  failsim::models::write_idx(dir.file("t10k-labels-idx1-ubyte.gz"), IdxArray{{5}, {9, 9, 9, 9, 9}},
                             true);
  const Dataset gz = failsim::models::load_idx_split(dir.path(), Split::TEST, "set", 3);
  CHECK(gz.y == std::vector<std::int32_t>{9, 9, 9});

  const auto e = data_error([&] { failsim::models::load_fashion_mnist(Split::TRAIN, dir.path()); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::MISSING_FILE);
  CHECK_THAT(e->what(), Contains(dir.file("train-images-idx3-ubyte.gz")) &&
                            Contains(dir.file("train-images-idx3-ubyte") + " to exist"));
}

TEST_CASE("IDX errors: missing file", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("nothing-here.idx");
  const auto e = data_error([&] { failsim::models::read_idx(path); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::MISSING_FILE);
  CHECK(e->path() == path);
  CHECK_THAT(e->what(), Contains(path) && Contains("expected an existing readable file") &&
                            Contains("No such file or directory"));
}

TEST_CASE("IDX errors: a directory instead of a file", "[idx][errors]") {
  TempDir dir;
  const auto e = data_error([&] { failsim::models::read_idx(dir.path()); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::IO_ERROR);
  CHECK_THAT(e->what(), Contains(dir.path()) && Contains("Is a directory"));
}

TEST_CASE("IDX errors: truncated header", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("short.idx");

  SECTION("empty file") {
    write_bytes(path, {});
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::TRUNCATED);
    CHECK_THAT(e->what(),
               Contains(path) && Contains("expected a 4-byte magic number, found 0 byte(s)"));
  }
  SECTION("dimensions cut short") {
    write_bytes(path, {0, 0, 8, 3, 0, 0, 0});
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::TRUNCATED);
    CHECK_THAT(e->what(), Contains(path) && Contains("3 dimension(s) declared") &&
                              Contains("expected 12 bytes of sizes, found 3"));
  }
}

TEST_CASE("read_idx reads a hand-made gzip file", "[idx]") {
  TempDir dir;
  const std::string path = dir.file("stored.gz");
  const Bytes data = patterned_bytes(70000);  // more than one stored block
  write_bytes(path, gzip_stored(idx_bytes(0x08, {700, 100}, data)));
  const IdxArray array = failsim::models::read_idx(path);
  CHECK(array.dims == std::vector<std::uint32_t>{700, 100});
  CHECK(array.data == data);
}

TEST_CASE("IDX errors: data shorter than the dimensions say", "[idx][errors]") {
  const bool gzip = GENERATE(false, true);
  CAPTURE(gzip);
  TempDir dir;
  const std::string path = dir.file("short.idx");
  // The header promises 3x2x2 = 12 bytes; only 10 follow (in an intact gzip stream if gzip).
  const Bytes bytes = idx_bytes(0x08, {3, 2, 2}, iota_bytes(10));
  write_bytes(path, gzip ? gzip_stored(bytes) : bytes);
  const auto e = data_error([&] { failsim::models::read_idx(path); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::TRUNCATED);
  CHECK_THAT(e->what(), Contains(path) && Contains("truncated IDX data") &&
                            Contains("dimensions 3x2x2 need 12 bytes") && Contains("found 10"));
  // Reading only the items that are complete succeeds.
  CHECK(failsim::models::read_idx(path, 2).data == iota_bytes(8));
}

TEST_CASE("IDX errors: bytes after the data", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("long.idx");
  write_bytes(path, idx_bytes(0x08, {3, 2, 2}, iota_bytes(15)));
  const auto e = data_error([&] { failsim::models::read_idx(path); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::TRAILING_DATA);
  CHECK_THAT(e->what(), Contains(path) &&
                            Contains("expected the file to end after 12 data bytes") &&
                            Contains("found 3 more bytes"));
}

TEST_CASE("IDX errors: wrong magic number", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("bad-magic.idx");
  SECTION("non-zero leading bytes") {
    write_bytes(path, {0x00, 0x01, 0x08, 0x01, 0, 0, 0, 1, 5});
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::BAD_MAGIC);
    CHECK_THAT(e->what(), Contains(path) && Contains("expected an IDX file starting 00 00") &&
                              Contains("found 00 01 08 01"));
  }
  SECTION("a text file") {
    write_bytes(path, {'h', 'e', 'l', 'l', 'o', '\n'});
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::BAD_MAGIC);
    CHECK_THAT(e->what(), Contains(path) && Contains("found 68 65 6c 6c"));
  }
}

TEST_CASE("IDX errors: unsupported type code", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("floats.idx");
  SECTION("float32, a valid IDX type we do not read") {
    write_bytes(path, idx_bytes(0x0D, {1}, {0, 0, 0, 0}));
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::UNSUPPORTED_TYPE);
    CHECK_THAT(e->what(), Contains(path) && Contains("expected 0x08 (unsigned byte)") &&
                              Contains("found 0x0d (float32)"));
  }
  SECTION("a code that is not an IDX type") {
    write_bytes(path, idx_bytes(0x07, {1}, {0}));
    const auto e = data_error([&] { failsim::models::read_idx_dims(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::UNSUPPORTED_TYPE);
    CHECK_THAT(e->what(), Contains(path) && Contains("found 0x07 (not an IDX type)"));
  }
}

TEST_CASE("IDX errors: bad shapes", "[idx][errors]") {
  TempDir dir;
  SECTION("zero dimensions") {
    const std::string path = dir.file("scalar.idx");
    write_bytes(path, {0, 0, 8, 0});
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::BAD_SHAPE);
    CHECK_THAT(e->what(), Contains(path) && Contains("expected at least 1 dimension, found 0"));
  }
  SECTION("a header claiming more data than any file holds") {
    const std::string path = dir.file("huge.idx");
    write_bytes(path, idx_bytes(0x08, {0xFFFFFFFFU, 0xFFFFFFFFU, 0xFFFFFFFFU}, {}));
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::BAD_SHAPE);
    CHECK_THAT(e->what(), Contains(path) && Contains("found dimensions 4294967295x"));
  }
  SECTION("large but plausible dimensions with little data are truncated, not an allocation") {
    const std::string path = dir.file("big.idx");
    write_bytes(path, idx_bytes(0x08, {100000, 1000, 1000}, iota_bytes(5)));
    const auto e = data_error([&] { failsim::models::read_idx(path); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::TRUNCATED);
    CHECK_THAT(e->what(), Contains("need 100000000000 bytes") && Contains("found 5"));
  }
  SECTION("images and labels swapped") {
    const Pair pair;
    failsim::models::write_idx(dir.file("images"), pair.images, false);
    failsim::models::write_idx(dir.file("labels"), pair.labels, false);
    const auto e = data_error(
        [&] { failsim::models::load_idx_pair(dir.file("labels"), dir.file("images"), "swapped"); });
    REQUIRE(e);
    CHECK(e->kind() == DataErrorKind::BAD_SHAPE);
    CHECK(e->path() == dir.file("images"));
    CHECK_THAT(e->what(), Contains("bad labels file: expected 1 dimension (n), found 3 "
                                   "(dimensions 5x2x3)"));
  }
}

TEST_CASE("IDX errors: image/label count mismatch", "[idx][errors]") {
  TempDir dir;
  const Pair pair;
  failsim::models::write_idx(dir.file("images"), pair.images, false);
  failsim::models::write_idx(dir.file("labels"), IdxArray{{4}, {1, 2, 3, 4}}, false);
  const auto e = data_error(
      [&] { failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"), "m"); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::COUNT_MISMATCH);
  CHECK(e->path() == dir.file("labels"));
  CHECK_THAT(e->what(), Contains(dir.file("labels")) && Contains(dir.file("images")) &&
                            Contains("expected as many labels as the 5 images") &&
                            Contains("found 4 labels"));
}

TEST_CASE("IDX errors: label out of range", "[idx][errors]") {
  TempDir dir;
  const Pair pair;
  failsim::models::write_idx(dir.file("images"), pair.images, false);
  failsim::models::write_idx(dir.file("labels"), IdxArray{{5}, {0, 9, 2, 10, 1}}, false);
  const auto e = data_error(
      [&] { failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"), "r"); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::LABEL_OUT_OF_RANGE);
  CHECK_THAT(e->what(), Contains(dir.file("labels")) && Contains("at index 3") &&
                            Contains("expected 0 <= label < 10, found 10"));
  // With 11 classes the same files are valid.
  const Dataset ok = failsim::models::load_idx_pair(dir.file("images"), dir.file("labels"), "r",
                                                    0.5f, 0.5f, -1, 11);
  CHECK(ok.y[3] == 10);
}

TEST_CASE("IDX errors: corrupted gzip", "[idx][errors]") {
  TempDir dir;
  const std::string path = dir.file("broken.gz");
  // Large enough (several stored blocks) that damage can lie past the first read.
  const Bytes payload = idx_bytes(0x08, {700, 100}, patterned_bytes(70000));
  Bytes gz = gzip_stored(payload);
  std::string zlib_says;
  SECTION("checksum does not match") {
    gz[gz.size() - 8] ^= 0xFF;  // first byte of the CRC-32 trailer
    zlib_says = "incorrect data check";
  }
  SECTION("a data byte flipped") {
    gz[gz.size() - 9] ^= 0x01;  // last payload byte: the data still parse, the CRC does not
    zlib_says = "incorrect data check";
  }
  SECTION("stream cut short in the middle of the data") {
    gz.resize(gz.size() / 2);
    zlib_says = "unexpected end of file";
  }
  SECTION("unknown compression method") {
    gz[2] = 7;
    zlib_says = "unknown compression method";
  }
  SECTION("compressed by zlib, then cut short") {
    failsim::models::write_idx(path, IdxArray{{700, 100}, patterned_bytes(70000)}, true);
    gz = read_bytes(path);
    gz.resize(gz.size() - 6);
    zlib_says = "unexpected end of file";
  }
  write_bytes(path, gz);
  const auto e = data_error([&] { failsim::models::read_idx(path); });
  REQUIRE(e);
  CHECK(e->kind() == DataErrorKind::CORRUPT_GZIP);
  CHECK_THAT(e->what(),
             Contains(path) && Contains("expected a valid gzip file") && Contains(zlib_says));
}

TEST_CASE("Fashion-MNIST train set loads", "[idx][fashion]") {
  const auto start = std::chrono::steady_clock::now();
  const Dataset train = failsim::models::load_fashion_mnist(Split::TRAIN);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Shown with -s; a bound here would make the test flaky on a loaded machine.
  INFO("load time " << seconds << " s");
  CHECK(train.name == "fashion-mnist-train");
  CHECK(train.size() == 60000);
  CHECK((train.channels == 1 && train.height == 28 && train.width == 28));
  CHECK(train.num_classes == 10);
  REQUIRE(train.x.size() == std::size_t{60000} * 784);
  const auto [lo, hi] = std::minmax_element(train.x.begin(), train.x.end());
  CHECK(*lo == -1.0f);
  CHECK(*hi == 1.0f);
  CHECK(std::all_of(train.x.begin(), train.x.end(), [](float v) { return std::isfinite(v); }));
  // Fashion-MNIST's training set is balanced: 6000 of each class.
  std::vector<int> counts(10, 0);
  for (const std::int32_t label : train.y) ++counts[static_cast<std::size_t>(label)];
  CHECK(counts == std::vector<int>(10, 6000));
  // The first labels of the published file (9 = ankle boot).
  CHECK(std::vector<std::int32_t>(train.y.begin(), train.y.begin() + 10) ==
        std::vector<std::int32_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5});
  // Sum of the first image's raw pixels is 76247: sum((p/255 - 0.5)/0.5) = 2*76247/255 - 784.
  double first = 0;
  for (int j = 0; j < 784; ++j) first += train.sample(0)[j];
  CHECK(first == Approx(2.0 * 76247 / 255 - 784).epsilon(1e-5));

  const Dataset head =
      failsim::models::load_fashion_mnist(Split::TRAIN, failsim::models::FASHION_MNIST_DIR, 100);
  CHECK(head.size() == 100);
  CHECK(std::equal(head.x.begin(), head.x.end(), train.x.begin()));
  CHECK(std::equal(head.y.begin(), head.y.end(), train.y.begin()));
}

TEST_CASE("Fashion-MNIST test set loads", "[idx][fashion]") {
  const Dataset test = failsim::models::load_fashion_mnist(Split::TEST);
  CHECK(test.name == "fashion-mnist-test");
  CHECK(test.size() == 10000);
  CHECK(test.dim() == 784);
  CHECK(test.num_classes == 10);
  const auto [lo, hi] = std::minmax_element(test.x.begin(), test.x.end());
  CHECK(*lo >= -1.0f);
  CHECK(*hi <= 1.0f);
  std::vector<int> counts(10, 0);
  for (const std::int32_t label : test.y) ++counts[static_cast<std::size_t>(label)];
  CHECK(counts == std::vector<int>(10, 1000));
  CHECK(std::vector<std::int32_t>(test.y.begin(), test.y.begin() + 5) ==
        std::vector<std::int32_t>{9, 2, 1, 1, 6});
}
