// IDX reading and writing (see idx.hpp). Every bad file ends in a DataError that names the
// file, the expectation and what was found; data are read in large chunks so that the 47 MB
// of Fashion-MNIST's training images load in a fraction of a second.
#include "models/idx.hpp"

#include <sys/mman.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace failsim::models {

DataError::DataError(DataErrorKind kind, std::string path, const std::string& message)
    : std::runtime_error(path + ": " + message), kind_(kind), path_(std::move(path)) {}

std::size_t IdxArray::item_size() const {
  std::size_t size = 1;
  for (std::size_t d = 1; d < dims.size(); ++d) size *= dims[d];
  return size;
}

namespace {

constexpr std::size_t HEADER_MAGIC_BYTES = 4;
constexpr std::uint8_t TYPE_UNSIGNED_BYTE = 0x08;
// Read in steps this large: few calls into zlib, and a chunk of pixels stays in cache
// between decompression and normalisation.
constexpr std::size_t CHUNK_BYTES = std::size_t{1} << 20;
// Elements (bytes or floats) reserved up front, untouched until data arrive: the largest
// IDX files we read (47 MB) never reallocate, and no header is trusted beyond this.
constexpr std::size_t MAX_RESERVE = std::size_t{64} << 20;
// No IDX data set we handle comes near this; a larger header is corrupt, not data.
constexpr std::uint64_t MAX_DATA_BYTES = std::uint64_t{1} << 40;

std::string errno_text(int error) { return std::generic_category().message(error); }

std::string dims_text(const std::vector<std::uint32_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

const char* type_name(std::uint8_t code) {
  switch (code) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return nullptr;
  }
}

// A file read as a plain byte stream, whether it is raw or gzip-compressed.
class ByteSource {
 public:
  explicit ByteSource(std::string path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "rb");
    if (file_ == nullptr) {
      throw DataError(DataErrorKind::MISSING_FILE, path_,
                      fmt::format("cannot open IDX file: expected an existing readable file, "
                                  "found: {}",
                                  errno_text(errno)));
    }
    std::uint8_t magic[2] = {0, 0};
    const std::size_t got = read_raw(magic, 2);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      std::fclose(std::exchange(file_, nullptr));
      gz_ = gzopen(path_.c_str(), "rb");
      if (gz_ == nullptr) {
        throw DataError(DataErrorKind::IO_ERROR, path_,
                        fmt::format("cannot open gzip file: {}", errno_text(errno)));
      }
      // A larger input buffer than zlib's 8 KiB default halves the time spent in read().
      gzbuffer(gz_, 1U << 20);
    } else if (std::fseek(file_, 0, SEEK_SET) != 0) {
      throw DataError(DataErrorKind::IO_ERROR, path_,
                      fmt::format("cannot rewind file: {}", errno_text(errno)));
    }
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource() {
    if (file_ != nullptr) std::fclose(file_);
    if (gz_ != nullptr) gzclose(gz_);
  }

  // Reads up to n bytes; returns fewer only at the end of the (decompressed) stream.
  std::size_t read(std::uint8_t* buffer, std::size_t n) {
    return gz_ != nullptr ? read_gzip(buffer, n) : read_raw(buffer, n);
  }

 private:
  std::size_t read_raw(std::uint8_t* buffer, std::size_t n) {
    const std::size_t got = std::fread(buffer, 1, n, file_);
    if (got < n && std::ferror(file_)) {
      throw DataError(DataErrorKind::IO_ERROR, path_,
                      fmt::format("read failed: {}", errno_text(errno)));
    }
    return got;
  }

  std::size_t read_gzip(std::uint8_t* buffer, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      // gzread takes an unsigned and returns an int: stay well inside both.
      const auto want = static_cast<unsigned>(std::min<std::size_t>(n - got, 1U << 30));
      const int r = gzread(gz_, buffer + got, want);
      if (r > 0) {
        got += static_cast<std::size_t>(r);
        continue;
      }
      // r == 0 is either a clean end of stream or a stream cut short (Z_BUF_ERROR);
      // r < 0 is a damaged stream or a failed read.
      int code = Z_OK;
      const char* message = gzerror(gz_, &code);
      if (code == Z_ERRNO) {
        throw DataError(DataErrorKind::IO_ERROR, path_,
                        fmt::format("read failed: {}", errno_text(errno)));
      }
      if (r < 0 || code != Z_OK) {
        throw DataError(DataErrorKind::CORRUPT_GZIP, path_,
                        fmt::format("corrupted gzip stream after {} decompressed bytes: "
                                    "expected a valid gzip file, zlib says: {}",
                                    gz_offset(), message));
      }
      break;
    }
    return got;
  }

  long long gz_offset() const { return static_cast<long long>(gztell(gz_)); }

  std::string path_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
};

struct Header {
  std::vector<std::uint32_t> dims;
  std::size_t bytes = 0;  // header length, to report offsets
};

Header read_header(ByteSource& source, const std::string& path) {
  std::uint8_t magic[HEADER_MAGIC_BYTES];
  const std::size_t got = source.read(magic, HEADER_MAGIC_BYTES);
  if (got < HEADER_MAGIC_BYTES) {
    throw DataError(DataErrorKind::TRUNCATED, path,
                    fmt::format("truncated IDX header: expected a {}-byte magic number, "
                                "found {} byte(s)",
                                HEADER_MAGIC_BYTES, got));
  }
  if (magic[0] != 0 || magic[1] != 0) {
    throw DataError(DataErrorKind::BAD_MAGIC, path,
                    fmt::format("wrong magic number: expected an IDX file starting "
                                "00 00 <type> <ndims>, found {:02x} {:02x} {:02x} {:02x}",
                                magic[0], magic[1], magic[2], magic[3]));
  }
  const std::uint8_t type = magic[2];
  if (type != TYPE_UNSIGNED_BYTE) {
    const char* name = type_name(type);
    throw DataError(DataErrorKind::UNSUPPORTED_TYPE, path,
                    fmt::format("unsupported IDX type code: expected 0x08 (unsigned byte), "
                                "found 0x{:02x} ({})",
                                type, name != nullptr ? name : "not an IDX type"));
  }
  const std::size_t ndims = magic[3];
  if (ndims == 0) {
    throw DataError(DataErrorKind::BAD_SHAPE, path,
                    "bad IDX header: expected at least 1 dimension, found 0");
  }
  std::vector<std::uint8_t> raw(4 * ndims);
  const std::size_t got_dims = source.read(raw.data(), raw.size());
  if (got_dims < raw.size()) {
    throw DataError(DataErrorKind::TRUNCATED, path,
                    fmt::format("truncated IDX header: {} dimension(s) declared, expected {} "
                                "bytes of sizes, found {}",
                                ndims, raw.size(), got_dims));
  }
  Header header;
  header.dims.resize(ndims);
  for (std::size_t d = 0; d < ndims; ++d) {
    const std::uint8_t* b = raw.data() + 4 * d;
    header.dims[d] = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                     (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
  }
  header.bytes = HEADER_MAGIC_BYTES + raw.size();
  // Products of uint32 dims overflow 64 bits quickly: check against the cap as we go.
  std::uint64_t total = 1;
  for (const std::uint32_t d : header.dims) {
    if (d != 0 && total > MAX_DATA_BYTES / d) {
      throw DataError(DataErrorKind::BAD_SHAPE, path,
                      fmt::format("bad IDX header: expected at most {} data bytes, found "
                                  "dimensions {}",
                                  MAX_DATA_BYTES, dims_text(header.dims)));
    }
    total *= d;
  }
  return header;
}

// Reads up to `expected` bytes (fewer only if the file ends first). The buffer grows by
// chunks as data arrive, so a corrupt header claiming terabytes fails as truncated rather
// than as an allocation failure, and memory is reserved but not touched ahead of the data.
std::vector<std::uint8_t> read_data(ByteSource& source, std::size_t expected) {
  std::vector<std::uint8_t> data;
  data.reserve(std::min(expected, MAX_RESERVE));
  std::size_t got = 0;
  while (got < expected) {
    const std::size_t want = std::min(expected - got, CHUNK_BYTES);
    data.resize(got + want);
    const std::size_t r = source.read(data.data() + got, want);
    got += r;
    if (r < want) break;
  }
  data.resize(got);
  return data;
}

void check_complete(const std::string& path, const std::vector<std::uint32_t>& dims,
                    const Header& header, bool whole, std::size_t expected, std::size_t got) {
  if (got < expected) {
    throw DataError(DataErrorKind::TRUNCATED, path,
                    fmt::format("truncated IDX data: dimensions {} need {} bytes after the "
                                "{}-byte header{}, found {}",
                                dims_text(dims), expected, header.bytes,
                                whole ? "" : " (for the items requested)", got));
  }
}

// Called after the last data byte: anything more means the dims and the file disagree.
// Reading on also makes zlib check the gzip trailer (CRC-32 and length).
void check_no_trailing(ByteSource& source, const std::string& path,
                       const std::vector<std::uint32_t>& dims, std::size_t expected) {
  std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
  std::size_t extra = 0;
  for (;;) {
    const std::size_t r = source.read(buffer.data(), buffer.size());
    extra += r;
    if (r < buffer.size()) break;
  }
  if (extra > 0) {
    throw DataError(DataErrorKind::TRAILING_DATA, path,
                    fmt::format("unexpected data after the array: expected the file to end "
                                "after {} data bytes (dimensions {}), found {} more bytes",
                                expected, dims_text(dims), extra));
  }
}

// Asks Linux to back [p, p + bytes) with transparent huge pages. Filling ~190 MB of fresh
// 4 KiB pages costs ~46000 page faults, which dominate the load time on virtual machines
// (0.8 s against 0.03 s on the test VM); PyTorch's CPU allocator does the same for large
// tensors. Only the 2 MiB-aligned interior can use huge pages; a refusal changes nothing.
void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t HUGE_PAGE = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(HUGE_PAGE - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

[[noreturn]] void throw_write_error(const std::string& path, const char* what) {
  throw DataError(DataErrorKind::IO_ERROR, path,
                  fmt::format("cannot write IDX file: {}: {}", what, errno_text(errno)));
}

std::filesystem::path pick_file(const std::filesystem::path& dir, const std::string& base) {
  std::error_code error;
  const auto gz = dir / (base + ".gz");
  if (std::filesystem::exists(gz, error)) return gz;
  const auto raw = dir / base;
  if (std::filesystem::exists(raw, error)) return raw;
  throw DataError(
      DataErrorKind::MISSING_FILE, gz.string(),
      fmt::format("cannot open IDX file: expected it or {} to exist, found neither", raw.string()));
}

}  // namespace

std::vector<std::uint32_t> read_idx_dims(const std::string& path) {
  ByteSource source(path);
  return read_header(source, path).dims;
}

IdxArray read_idx(const std::string& path, std::int64_t max_items) {
  ByteSource source(path);
  const Header header = read_header(source, path);
  IdxArray array;
  array.dims = header.dims;
  const bool whole = max_items < 0 || static_cast<std::uint64_t>(max_items) >= array.dims[0];
  if (!whole) array.dims[0] = static_cast<std::uint32_t>(max_items);
  const std::size_t expected = array.items() * array.item_size();
  array.data = read_data(source, expected);
  check_complete(path, array.dims, header, whole, expected, array.data.size());
  if (max_items < 0) check_no_trailing(source, path, array.dims, expected);
  return array;
}

void write_idx(const std::string& path, const IdxArray& array, bool gzip) {
  if (array.dims.empty() || array.dims.size() > 255) {
    throw std::invalid_argument(
        fmt::format("write_idx: expected 1 to 255 dimensions, found {}", array.dims.size()));
  }
  if (array.items() * array.item_size() != array.data.size()) {
    throw std::invalid_argument(fmt::format("write_idx: dimensions {} need {} bytes, found {}",
                                            dims_text(array.dims),
                                            array.items() * array.item_size(), array.data.size()));
  }
  std::vector<std::uint8_t> bytes{0, 0, TYPE_UNSIGNED_BYTE,
                                  static_cast<std::uint8_t>(array.dims.size())};
  for (const std::uint32_t d : array.dims) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes.push_back(static_cast<std::uint8_t>(d >> shift));
    }
  }
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  if (gzip) {
    gzFile gz = gzopen(path.c_str(), "wb");
    if (gz == nullptr) throw_write_error(path, "open failed");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const auto want = static_cast<unsigned>(std::min<std::size_t>(bytes.size() - done, 1U << 30));
      const int r = gzwrite(gz, bytes.data() + done, want);
      if (r <= 0) {
        gzclose(gz);
        throw_write_error(path, "gzwrite failed");
      }
      done += static_cast<std::size_t>(r);
    }
    if (gzclose(gz) != Z_OK) throw_write_error(path, "close failed");
  } else {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) throw_write_error(path, "open failed");
    const std::size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
    const bool closed = std::fclose(file) == 0;
    if (written != bytes.size() || !closed) throw_write_error(path, "write failed");
  }
}

namespace {
/// The shape that an images file's dimensions and its labels file's describe (checked against
/// each other), with at most `limit` samples when limit >= 0.
DataShape image_shape(const std::string& images_path, const std::vector<std::uint32_t>& image_dims,
                      const std::string& labels_path, const std::vector<std::uint32_t>& label_dims,
                      int limit, int num_classes) {
  if (label_dims.size() != 1) {
    throw DataError(DataErrorKind::BAD_SHAPE, labels_path,
                    fmt::format("bad labels file: expected 1 dimension (n), found {} "
                                "(dimensions {})",
                                label_dims.size(), dims_text(label_dims)));
  }
  if (image_dims.size() < 2 || image_dims.size() > 4) {
    throw DataError(DataErrorKind::BAD_SHAPE, images_path,
                    fmt::format("bad images file: expected 2 to 4 dimensions (n, dim), "
                                "(n, height, width) or (n, channels, height, width), found {} "
                                "(dimensions {})",
                                image_dims.size(), dims_text(image_dims)));
  }
  if (image_dims[0] != label_dims[0]) {
    throw DataError(DataErrorKind::COUNT_MISMATCH, labels_path,
                    fmt::format("image/label count mismatch: expected as many labels as the "
                                "{} images in {}, found {} labels",
                                image_dims[0], images_path, label_dims[0]));
  }
  std::uint64_t sample_size = 1;
  for (std::size_t d = 1; d < image_dims.size(); ++d) sample_size *= image_dims[d];
  if (image_dims[0] > static_cast<std::uint32_t>(INT_MAX) || sample_size > INT_MAX) {
    throw DataError(DataErrorKind::BAD_SHAPE, images_path,
                    fmt::format("images too large: expected at most {} images of at most {} "
                                "pixels, found dimensions {}",
                                INT_MAX, INT_MAX, dims_text(image_dims)));
  }
  DataShape shape;
  shape.num_classes = num_classes;
  const bool whole = limit < 0 || static_cast<std::uint32_t>(limit) >= image_dims[0];
  shape.samples = static_cast<int>(whole ? image_dims[0] : static_cast<std::uint32_t>(limit));
  switch (image_dims.size()) {
    case 2:
      shape.width = static_cast<int>(image_dims[1]);
      break;
    case 3:
      shape.height = static_cast<int>(image_dims[1]);
      shape.width = static_cast<int>(image_dims[2]);
      break;
    default:
      shape.channels = static_cast<int>(image_dims[1]);
      shape.height = static_cast<int>(image_dims[2]);
      shape.width = static_cast<int>(image_dims[3]);
      break;
  }
  return shape;
}
}  // namespace

Dataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                      const std::string& name, float mean, float std_dev, int limit,
                      int num_classes) {
  if (num_classes <= 0) {
    throw std::invalid_argument(
        fmt::format("load_idx_pair: num_classes must be positive, found {}", num_classes));
  }
  const IdxArray labels = read_idx(labels_path);
  ByteSource images(images_path);
  const Header header = read_header(images, images_path);
  const std::vector<std::uint32_t>& image_dims = header.dims;
  const DataShape shape =
      image_shape(images_path, image_dims, labels_path, labels.dims, limit, num_classes);
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= num_classes) {
      throw DataError(DataErrorKind::LABEL_OUT_OF_RANGE, labels_path,
                      fmt::format("label out of range at index {}: expected 0 <= label < {}, "
                                  "found {}",
                                  i, num_classes, labels.data[i]));
    }
  }
  const bool whole = limit < 0 || static_cast<std::uint32_t>(limit) >= image_dims[0];
  std::vector<std::uint32_t> dims = image_dims;
  if (!whole) dims[0] = static_cast<std::uint32_t>(limit);
  std::uint64_t sample_size = 1;
  for (std::size_t d = 1; d < image_dims.size(); ++d) sample_size *= image_dims[d];

  Dataset data;
  data.name = name;
  data.num_classes = num_classes;
  data.channels = shape.channels;
  data.height = shape.height;
  data.width = shape.width;
  // Decompress and normalise chunk by chunk straight into the floats: the raw bytes of the
  // whole set (47 MB for Fashion-MNIST) are never held, and each chunk is still in cache
  // when it is normalised.
  const std::size_t expected = std::size_t{dims[0]} * sample_size;
  data.x.reserve(std::min(expected, MAX_RESERVE));
  advise_huge_pages(data.x.data(), data.x.capacity() * sizeof(float));
  std::vector<std::uint8_t> chunk(std::min(expected, CHUNK_BYTES));
  std::size_t got = 0;
  while (got < expected) {
    const std::size_t want = std::min(expected - got, CHUNK_BYTES);
    const std::size_t r = images.read(chunk.data(), want);
    data.x.resize(got + r);
    normalise_pixels(std::span(chunk.data(), r), std::span(data.x.data() + got, r), mean, std_dev);
    got += r;
    if (r < want) break;
  }
  check_complete(images_path, dims, header, whole, expected, got);
  if (limit < 0) check_no_trailing(images, images_path, dims, expected);
  data.y.assign(labels.data.begin(), labels.data.begin() + static_cast<std::ptrdiff_t>(dims[0]));
  return data;
}

Dataset load_idx_split(const std::string& dir, Split split, const std::string& name, int limit) {
  const std::string prefix = split == Split::TRAIN ? "train" : "t10k";
  const std::filesystem::path root(dir);
  const auto images = pick_file(root, prefix + "-images-idx3-ubyte");
  const auto labels = pick_file(root, prefix + "-labels-idx1-ubyte");
  return load_idx_pair(images.string(), labels.string(),
                       name + (split == Split::TRAIN ? "-train" : "-test"), 0.5f, 0.5f, limit, 10);
}

DataShape read_idx_split_shape(const std::string& dir, Split split, int limit) {
  const std::string prefix = split == Split::TRAIN ? "train" : "t10k";
  const std::filesystem::path root(dir);
  const std::string images = pick_file(root, prefix + "-images-idx3-ubyte").string();
  const std::string labels = pick_file(root, prefix + "-labels-idx1-ubyte").string();
  return image_shape(images, read_idx_dims(images), labels, read_idx_dims(labels), limit, 10);
}

Dataset load_fashion_mnist(Split split, const std::string& dir, int limit) {
  return load_idx_split(dir, split, "fashion-mnist", limit);
}

}  // namespace failsim::models
