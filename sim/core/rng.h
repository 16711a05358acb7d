// Deterministic random streams. Every consumer (one per host generator, ...) gets its own stream
// derived from the scenario seed and a stream id, so adding a consumer never shifts another's
// numbers. The algorithms are fixed here (splitmix64 seeding, xoshiro256**), not left to the
// standard library's implementation-defined distributions, so a seed means the same run everywhere.
#pragma once
#include <cstdint>

namespace ibfsim {

class RngStream {
 public:
  RngStream(std::uint64_t seed, std::uint64_t stream_id);

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform integer in [0, n), unbiased (rejection). n must be > 0.
  std::uint64_t below(std::uint64_t n);
  // Exponentially distributed with the given mean.
  double exponential(double mean);

 private:
  std::uint64_t s_[4];
};

}  // namespace ibfsim
