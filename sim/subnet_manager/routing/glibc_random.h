// The numbers C's rand() returns in a process that never called srand(), as glibc computes them
// (its default TYPE_3 generator: an additive lagged-Fibonacci r[i] = r[i-3] + r[i-31] mod 2^32 over a
// state seeded from 1 by the Park-Miller step, the first 310 values discarded, each output r >> 1).
// OpenSM's lash balances its layers with rand() and never seeds it, so its choices are this
// stream's (Debian 12, glibc 2.36; every glibc since 2.0 computes the same numbers).
#pragma once
#include <array>
#include <cstdint>

namespace ibfsim {

class GlibcRandom {
 public:
  explicit GlibcRandom(std::uint32_t seed = 1) {
    std::array<std::int32_t, 34> r{};
    r[0] = static_cast<std::int32_t>(seed == 0 ? 1 : seed);
    for (int i = 1; i < 31; ++i) {
      // 16807 * r[i-1] mod (2^31 - 1) without overflow, as glibc's srandom_r writes it.
      const std::int32_t hi = r[i - 1] / 127773;
      const std::int32_t lo = r[i - 1] % 127773;
      std::int32_t word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    for (int i = 31; i < 34; ++i) r[i] = r[i - 31];
    // The ring holds r[3..33] (31 words); front_ and rear_ walk it as glibc's fptr and rptr.
    for (int i = 0; i < 31; ++i) state_[i] = static_cast<std::uint32_t>(r[i + 3]);
    front_ = 0;   // r[i-31] for the next i
    rear_ = 28;   // r[i-3]
    for (int i = 34; i < 344; ++i) next_word();
  }

  // The next rand(): 0 .. 2^31-1.
  std::int32_t next() { return static_cast<std::int32_t>(next_word() >> 1); }

 private:
  std::uint32_t next_word() {
    const std::uint32_t v = state_[front_] + state_[rear_];
    state_[front_] = v;
    front_ = (front_ + 1) % 31;
    rear_ = (rear_ + 1) % 31;
    return v;
  }
  std::array<std::uint32_t, 31> state_{};
  unsigned front_ = 0, rear_ = 0;
};

}  // namespace ibfsim
