// The HCA's host interface: PCIe generation x width, which DMA moves payloads through. Each
// direction is a pipe of fixed bandwidth: a payload of n bytes that starts when the pipe is free
// takes n / bandwidth. Bandwidth = GT/s x encoding x lanes / 8 x TLP efficiency, with the TLP
// efficiency MPS / (MPS + 24 bytes of TLP header, sequence number, LCRC and framing).
#pragma once
#include <algorithm>
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

struct HostInterfaceConfig {
  unsigned pcie_gen = 3;       // 1-5
  unsigned pcie_width = 16;    // lanes: 1, 2, 4, 8, 16
  unsigned max_payload = 256;  // PCIe Max_Payload_Size, bytes
  bool unlimited = false;      // no DMA delay at all (an ideal host)
};

// Bytes per second the configuration carries in one direction.
double host_interface_bytes_per_second(const HostInterfaceConfig& c);

// One direction of the interface.
class DmaPipe {
 public:
  explicit DmaPipe(const HostInterfaceConfig& c);
  // A transfer of `bytes` that may start at `at`: returns when it is done.
  Time transfer(Time at, std::uint64_t bytes);
  // When the transfers started so far are done (`at` if that is earlier): what something that
  // must stay behind them, with nothing to move itself, waits for.
  Time drained(Time at) const { return fs_per_kib_ == 0 ? at : std::max(at, free_at_); }
  Time fs_per_byte_times_1024() const { return fs_per_kib_; }

 private:
  Time fs_per_kib_ = 0;  // femtoseconds per 1024 bytes (exact enough: rounding below 1 fs/byte)
  Time free_at_ = 0;
};

}  // namespace ibfsim
