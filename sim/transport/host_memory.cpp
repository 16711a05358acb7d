#include "sim/transport/host_memory.h"

#include <cstring>

#include "sim/core/error.h"

namespace ibfsim {

std::uint64_t HostMemory::alloc(std::uint64_t len, std::uint64_t align) {
  IBFSIM_CHECK(align != 0 && (align & (align - 1)) == 0, "host memory alignment must be a power of two");
  const std::uint64_t addr = (next_ + align - 1) & ~(align - 1);
  buffers_[addr].assign(len, 0);
  next_ = addr + len + 64;  // a gap, so that running off a buffer's end is never inside the next
  return addr;
}

bool HostMemory::contains(std::uint64_t addr, std::uint64_t len) const {
  auto it = buffers_.upper_bound(addr);
  if (it == buffers_.begin()) return false;
  --it;
  return addr - it->first <= it->second.size() && len <= it->second.size() - (addr - it->first);
}

std::uint8_t* HostMemory::bytes(std::uint64_t addr, std::uint64_t len) {
  IBFSIM_CHECK(contains(addr, len), "host memory access outside any buffer");
  auto it = std::prev(buffers_.upper_bound(addr));
  return it->second.data() + (addr - it->first);
}

const std::uint8_t* HostMemory::bytes(std::uint64_t addr, std::uint64_t len) const {
  return const_cast<HostMemory*>(this)->bytes(addr, len);
}

std::uint64_t HostMemory::load64(std::uint64_t addr) const {
  std::uint64_t v;
  std::memcpy(&v, bytes(addr, 8), 8);
  return v;
}

void HostMemory::store64(std::uint64_t addr, std::uint64_t v) { std::memcpy(bytes(addr, 8), &v, 8); }

}  // namespace ibfsim
