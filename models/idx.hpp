// Reader (and a small writer) for IDX files, the format of MNIST and Fashion-MNIST
// (http://yann.lecun.com/exdb/mnist/): magic bytes 0x00 0x00 <type code> <ndims>, then ndims
// big-endian uint32 dimensions, then the elements in row-major order. Files may be raw or
// gzip-compressed; gzip is recognised by its magic bytes 1f 8b, not by the file name.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dataset.hpp"
#include "models/fashion_mnist.hpp"

namespace failsim::models {

/// What went wrong while loading a data file; lets callers and tests tell cases apart
/// without parsing the message.
enum class DataErrorKind {
  MISSING_FILE,        ///< the file does not exist or cannot be opened
  IO_ERROR,            ///< the operating system failed a read or a write
  CORRUPT_GZIP,        ///< the gzip stream is damaged or cut short
  TRUNCATED,           ///< header or data shorter than the header's dimensions say
  TRAILING_DATA,       ///< bytes left after the data the dimensions describe
  BAD_MAGIC,           ///< the first bytes are not an IDX magic number
  UNSUPPORTED_TYPE,    ///< an element type other than 0x08 (unsigned byte)
  BAD_SHAPE,           ///< wrong number of dimensions, or sizes too large
  COUNT_MISMATCH,      ///< image and label files hold different numbers of items
  LABEL_OUT_OF_RANGE,  ///< a label is not below the number of classes
  EMPTY,               ///< a text corpus without text, or too little for one window of a split
};

/// A data file that cannot be loaded. The message names the file, what was expected and
/// what was found.
class DataError : public std::runtime_error {
 public:
  DataError(DataErrorKind kind, std::string path, const std::string& message);
  DataErrorKind kind() const { return kind_; }
  /// The file at fault (for a count mismatch, the labels file).
  const std::string& path() const { return path_; }

 private:
  DataErrorKind kind_;
  std::string path_;
};

/// An IDX array of unsigned bytes (type code 0x08): its dimensions and its row-major data.
struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;

  /// Number of items: the first dimension.
  std::size_t items() const { return dims.empty() ? 0 : dims[0]; }
  /// Elements per item: the product of the other dimensions (1 for a 1-D array).
  std::size_t item_size() const;
};

/// Reads the header only and returns the dimensions (validates magic and type code).
std::vector<std::uint32_t> read_idx_dims(const std::string& path);

/// Reads an IDX file of unsigned bytes, raw or gzipped. With max_items >= 0 only the first
/// min(max_items, dims[0]) items are read, dims[0] is set to that count, and the rest of the
/// file is not checked; otherwise the whole file is read and bytes after the data are an
/// error. Throws DataError (see DataErrorKind) for every bad file.
IdxArray read_idx(const std::string& path, std::int64_t max_items = -1);

/// Writes `array` as an IDX file of type 0x08, gzip-compressed if `gzip`. Throws DataError
/// (IO_ERROR) if the file cannot be written, std::invalid_argument if data.size() does not
/// match the dimensions. Used to make fixtures and subsets.
void write_idx(const std::string& path, const IdxArray& array, bool gzip);

/// Loads an image/label IDX pair as a Dataset. Images have shape (n, height, width),
/// (n, channels, height, width) or (n, dim); labels shape (n). Pixels are normalised as
/// (p/255 - mean) / std_dev; every label must be below num_classes. With limit >= 0 only the
/// first `limit` images are read (all labels are still checked, the image file's tail is
/// not). Images are decompressed and normalised chunk by chunk, never held as bytes.
Dataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                      const std::string& name, float mean = 0.5f, float std_dev = 0.5f,
                      int limit = -1, int num_classes = 10);

/// The shape of a split of an MNIST-layout directory (the files load_idx_split() reads) from
/// the two files' headers only: samples = min(limit, n) for limit >= 0, 10 classes. Throws
/// DataError for a missing file, a bad header or an image/label count mismatch; the data
/// itself is checked only when it is loaded.
DataShape read_idx_split_shape(const std::string& dir, Split split, int limit = -1);

/// Loads a split of an MNIST-layout directory: train-{images-idx3,labels-idx1}-ubyte or
/// t10k-..., each taken as `<file>.gz` if present, else the uncompressed `<file>`. The
/// Dataset is named "<name>-train" or "<name>-test". Mean 0.5, std 0.5, 10 classes.
Dataset load_idx_split(const std::string& dir, Split split, const std::string& name,
                       int limit = -1);

/// Fashion-MNIST (60000 train / 10000 test images of 28x28, 10 classes), normalised to
/// [-1, 1] with mean 0.5 and std 0.5 as in the study.
Dataset load_fashion_mnist(Split split, const std::string& dir = FASHION_MNIST_DIR, int limit = -1);

}  // namespace failsim::models
