// The simulated host memory behind one HCA: buffers an application allocates and registers, and
// which RDMA reads, writes and atomics touch. Bytes are real (a rejected request must provably
// leave them unchanged, and atomics return real values); whether message payloads move through
// them is the HCA's choice (data checking on: yes; off: length only, see Packet).
#pragma once
#include <cstdint>
#include <map>
#include <vector>

namespace ibfsim {

class HostMemory {
 public:
  // A zeroed buffer of `len` bytes at an address aligned to `align` (a power of two), never 0.
  std::uint64_t alloc(std::uint64_t len, std::uint64_t align = 64);
  // True if [addr, addr+len) lies inside one allocated buffer.
  bool contains(std::uint64_t addr, std::uint64_t len) const;
  // Pointer to [addr, addr+len); the range must be inside one buffer (checked).
  std::uint8_t* bytes(std::uint64_t addr, std::uint64_t len);
  const std::uint8_t* bytes(std::uint64_t addr, std::uint64_t len) const;
  std::uint64_t load64(std::uint64_t addr) const;  // host (little-endian) order
  void store64(std::uint64_t addr, std::uint64_t v);

 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> buffers_;  // by start address
  std::uint64_t next_ = 0x10000;
};

}  // namespace ibfsim
