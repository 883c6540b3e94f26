// In-memory labelled data sets: normalised float32 images (row-major, one sample per row) or
// windows of token ids (models/text_corpus.hpp), and integer labels, plus the deterministic
// shuffling and sharding the simulator needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/scratch.hpp"

namespace failsim::models {

/// Which part of a data set: the training set or the held-out test set.
enum class Split { TRAIN, TEST };

/// A data set's shape without its samples: what building a model and splitting the training
/// set over workers need, known from file headers or a generator's parameters.
struct DataShape {
  int samples = 0;
  int channels = 1;
  int height = 1;
  int width = 1;
  int num_classes = 0;
  /// Samples are windows of `width` token ids of text, not images, and num_classes is the
  /// vocabulary: a model says which of the two it takes (models/model_spec.hpp).
  bool tokens = false;
};

/// A labelled data set held in memory. Sample i occupies x[i*dim, (i+1)*dim).
struct Dataset {
  std::string name;
  int channels = 1;
  int height = 1;
  int width = 1;
  int num_classes = 0;
  bool tokens = false;  ///< as DataShape::tokens
  FloatBuffer x;        // aligned: see models/scratch.hpp
  std::vector<std::int32_t> y;

  int dim() const { return channels * height * width; }
  DataShape shape() const { return {size(), channels, height, width, num_classes, tokens}; }
  int size() const { return static_cast<int>(y.size()); }
  const float* sample(int i) const { return x.data() + static_cast<std::size_t>(i) * dim(); }
};

/// A view of a mini-batch: n samples, contiguous row-major inputs and their labels.
struct Batch {
  const float* x = nullptr;
  const std::int32_t* y = nullptr;
  int n = 0;
};

/// A reusable batch buffer: gathers samples by index without allocating after construction.
class BatchBuffer {
 public:
  /// Room for `capacity` samples of `dim` floats each; throws std::invalid_argument if either
  /// is not positive.
  BatchBuffer(int capacity, int dim);
  /// Copies the samples `indices` of `data` into the buffer and returns a view of them, valid
  /// until the next gather. Throws std::invalid_argument if there are more indices than the
  /// capacity or data.dim() differs from the buffer's dim, std::out_of_range for a bad index.
  Batch gather(const Dataset& data, std::span<const int> indices);

  int capacity() const { return capacity_; }
  int dim() const { return dim_; }

 private:
  int capacity_;
  int dim_;
  FloatBuffer x_;
  std::vector<std::int32_t> y_;
};

/// The indices 0..n-1 in an order drawn from `seed` (Fisher-Yates with models::Rng), the same
/// on every platform. Throws std::invalid_argument if n < 0.
std::vector<int> shuffled_indices(int n, std::uint64_t seed);

/// Shard `shard` of `num_shards` of a seeded permutation of 0..n-1: contiguous, sizes differ
/// by at most one, every index in exactly one shard (the first n % num_shards shards hold one
/// more). Throws std::invalid_argument unless 0 <= shard < num_shards and n >= 0.
std::vector<int> shard_indices(int n, int shard, int num_shards, std::uint64_t seed);

/// The same shard taken from an already drawn permutation (shard_indices draws it anew on every
/// call: with many shards, draw once and slice).
std::vector<int> shard_of(std::span<const int> permutation, int shard, int num_shards);

/// Normalises raw 8-bit pixels as out[i] = (raw[i]/255 - mean) / std_dev (the study used mean
/// 0.5, std 0.5, which maps [0, 255] onto [-1, 1]). Throws std::invalid_argument if the spans
/// differ in size or std_dev is not positive.
void normalise_pixels(std::span<const std::uint8_t> raw, std::span<float> out, float mean,
                      float std_dev);

}  // namespace failsim::models
