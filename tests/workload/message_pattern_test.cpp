// The pattern checked verbs messages carry: the index in the first bytes, every byte a function
// of (stream, index, offset), so one wrong byte, another message or another stream is detected.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/workload/message_pattern.h"

using namespace ibfsim;

TEST_CASE("message pattern: the first 8 bytes are the index, little-endian", "[workload][pattern]") {
  std::vector<std::uint8_t> m(20);
  fill_pattern(m.data(), 7, 0x0102030405060708ull, 20);
  CHECK(m[0] == 0x08);
  CHECK(m[7] == 0x01);
  CHECK(pattern_index(m.data(), 20, 0) == 0x0102030405060708ull);
  CHECK(pattern_matches(m.data(), 7, 0x0102030405060708ull, 20));
}

TEST_CASE("message pattern: a changed byte, another index and another stream all fail to match", "[workload][pattern]") {
  std::vector<std::uint8_t> m(4096);
  fill_pattern(m.data(), 11, 42, 4096);
  CHECK(pattern_matches(m.data(), 11, 42, 4096));
  CHECK_FALSE(pattern_matches(m.data(), 11, 43, 4096));
  CHECK_FALSE(pattern_matches(m.data(), 12, 42, 4096));
  m[4000] ^= 1;
  CHECK_FALSE(pattern_matches(m.data(), 11, 42, 4096));
  // A zero-length message matches anything.
  CHECK(pattern_matches(m.data(), 1, 2, 0));
}

TEST_CASE("message pattern: a short message carries the low bytes of its index, the rest comes from the expected one",
          "[workload][pattern]") {
  std::vector<std::uint8_t> m(2);
  fill_pattern(m.data(), 3, 0x1234, 2);
  CHECK(m[0] == 0x34);
  CHECK(m[1] == 0x12);
  CHECK(pattern_index(m.data(), 2, 0xAB0000) == 0xAB1234);
  // Tail bytes of a message that is not a multiple of 8 come from the hash word: a 13-byte message
  // is a prefix of the 16-byte one with the same stream and index.
  std::vector<std::uint8_t> a(13), b(16);
  fill_pattern(a.data(), 5, 9, 13);
  fill_pattern(b.data(), 5, 9, 16);
  CHECK(std::equal(a.begin(), a.end(), b.begin()));
}
