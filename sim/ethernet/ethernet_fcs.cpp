#include "sim/ethernet/ethernet_fcs.h"

#include "sim/core/crc32.h"

namespace ibfsim {

std::uint32_t ethernet_fcs(std::initializer_list<ByteRun> runs) { return crc32_runs(runs); }

void append_ethernet_fcs(std::vector<std::uint8_t>& frame) {
  frame.resize(frame.size() + ethernet_pad_bytes(frame.size()), 0);
  const std::uint32_t fcs = ethernet_fcs({ByteRun{frame.data(), frame.size()}});
  const std::size_t at = frame.size();
  frame.resize(at + kEthernetFcsBytes);
  store_crc32(frame.data() + at, fcs);
}

bool ethernet_fcs_ok(const std::uint8_t* frame, std::size_t len) {
  if (len < kEthernetFcsBytes) return false;
  const std::size_t n = len - kEthernetFcsBytes;
  return ethernet_fcs({ByteRun{frame, n}}) == load_crc32(frame + n);
}

}  // namespace ibfsim
