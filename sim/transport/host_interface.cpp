#include "sim/transport/host_interface.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace ibfsim {

double host_interface_bytes_per_second(const HostInterfaceConfig& c) {
  // Per-lane transfer rate and line code of PCIe generations 1-5.
  static const double kGts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
  IBFSIM_CHECK(c.pcie_gen >= 1 && c.pcie_gen <= 5, "PCIe generation must be 1..5");
  const double code = c.pcie_gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  const double tlp = static_cast<double>(c.max_payload) / (c.max_payload + 24.0);
  return kGts[c.pcie_gen] * 1e9 * code * c.pcie_width / 8.0 * tlp;
}

DmaPipe::DmaPipe(const HostInterfaceConfig& c) {
  if (c.unlimited) return;
  fs_per_kib_ = static_cast<Time>(std::llround(1024.0 * 1e15 / host_interface_bytes_per_second(c)));
}

Time DmaPipe::transfer(Time at, std::uint64_t bytes) {
  if (fs_per_kib_ == 0 || bytes == 0) return at;
  const Time start = std::max(at, free_at_);
  free_at_ = start + (bytes * fs_per_kib_ + 1023) / 1024;
  return free_at_;
}

}  // namespace ibfsim
