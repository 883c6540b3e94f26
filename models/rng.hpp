// Deterministic random numbers for models/: the same seed gives the same stream on every
// platform and standard library (std:: distributions are implementation-defined, so we
// draw floats and integers ourselves).
#pragma once

#include <cstdint>

namespace failsim::models {

/// SplitMix64 step: used to seed and to derive independent seeds from (seed, stream ids).
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// A seed derived from a parent seed and a stream id, e.g. (run seed, worker) -> worker seed.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t s = seed ^ (0xD1B54A32D192ED03ULL * (stream + 1));
  splitmix64(s);
  return splitmix64(s);
}

/// xoshiro256** generator (Blackman & Vigna): fast, 256-bit state, good statistical quality.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform float in [0, 1) with 24 random bits.
  float uniform_float() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }

  /// Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using Wide = unsigned __int128;  // GCC/Clang extension, hence __extension__
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
  }

  /// Standard normal by Box-Muller (one of the pair; simple and deterministic).
  double normal();

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace failsim::models
