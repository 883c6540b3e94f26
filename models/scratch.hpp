// Float buffers for parameters, gradients and scratch space.
//
// Why aligned: Eigen's vectorised loops handle the elements before the first SIMD-aligned
// address with scalar code (no FMA, other summation order), so the same computation on
// differently aligned copies of the same numbers can differ in the last bit. Aligning every
// buffer to Eigen's maximum alignment makes results independent of where malloc put them,
// which the simulator's byte-identical determinism needs.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace failsim::models {

using FloatBuffer = std::vector<float, Eigen::aligned_allocator<float>>;

/// Pointer to at least n floats of `buffer`, growing it only when it is too small, so a model's
/// steady state never allocates.
inline float* scratch(FloatBuffer& buffer, std::size_t n) {
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace failsim::models
