// The Internet checksum (RFC 1071): the one's complement of the one's complement sum of the data
// as 16-bit big-endian words. The IPv4 header checksum and the UDP checksum are both this sum.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

// A running sum over pieces of any length, as if they were one buffer (a piece may end in the
// middle of a 16-bit word; the next one continues it).
class InternetSum {
 public:
  void add(const std::uint8_t* data, std::size_t len);
  // `len` zero bytes: nothing to add, but they move the word boundary when len is odd.
  void add_zeros(std::size_t len) { odd_ ^= (len & 1u) != 0; }
  void add_be16(std::uint16_t v) {
    const std::uint8_t b[2] = {static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
    add(b, 2);
  }
  // The checksum to write: carries folded into 16 bits, complemented.
  std::uint16_t checksum() const;

 private:
  std::uint64_t sum_ = 0;
  bool odd_ = false;  // the next byte is the low byte of a word
};

// The checksum of one buffer.
std::uint16_t internet_checksum(const std::uint8_t* data, std::size_t len);

}  // namespace ibfsim
