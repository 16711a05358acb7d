#include "sim/network/fecn_marker.h"

#include "sim/link/vcrc.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"

namespace ibfsim {

namespace {
constexpr std::size_t kBthFecnByte = 4;  // BTH byte 4: FECN (7) | BECN (6) | reserved
constexpr std::size_t kBthBytes = 12;

// Offset of BTH byte 4, or 0 when the packet has no BTH.
std::size_t fecn_byte(const Packet& p) {
  const std::uint8_t lnh = lrh_lnh(p.header.data());
  const std::size_t bth = lnh == kLnhIbaLocal ? kLrhBytes : lnh == kLnhIbaGlobal ? kLrhBytes + kGrhBytes : 0;
  if (bth == 0 || p.header_len < bth + kBthBytes) return 0;
  return bth + kBthFecnByte;
}
}  // namespace

bool mark_fecn(Packet& p, bool rewrite_vcrc) {
  const std::size_t at = fecn_byte(p);
  if (at == 0) return false;
  p.header[at] |= 0x80;
  if (rewrite_vcrc) write_vcrc(p);
  return true;
}

bool packet_fecn(const Packet& p) {
  const std::size_t at = fecn_byte(p);
  return at != 0 && (p.header[at] & 0x80);
}

}  // namespace ibfsim
