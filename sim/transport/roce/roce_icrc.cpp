#include "sim/transport/roce/roce_icrc.h"

#include <algorithm>
#include <array>

#include "sim/core/error.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"

namespace ibfsim {

namespace {
constexpr std::size_t kPseudoLrhBytes = 8;
// Every masked field lies before the end of the BTH: that prefix is copied and patched.
constexpr std::size_t kMaxMasked = kPseudoLrhBytes + kIpv6HeaderBytes + kUdpHeaderBytes + kBthBytes;
}  // namespace

std::uint32_t compute_roce_icrc(const std::uint8_t* ip, std::size_t header_len,
                                std::initializer_list<ByteRun> body) {
  const bool v4 = (ip[0] >> 4) == 4;
  const std::size_t ip_bytes = v4 ? kIpv4HeaderBytes : kIpv6HeaderBytes;
  const std::size_t bth_at = ip_bytes + kUdpHeaderBytes;
  IBFSIM_CHECK(header_len >= bth_at + kBthBytes, "compute_roce_icrc: headers end before the BTH");
  std::array<std::uint8_t, kMaxMasked> m;
  std::fill(m.begin(), m.begin() + kPseudoLrhBytes, 0xFF);
  std::uint8_t* h = m.data() + kPseudoLrhBytes;
  const std::size_t n = bth_at + kBthBytes;
  std::copy(ip, ip + n, h);
  if (v4) {
    h[1] = 0xFF;
    h[8] = 0xFF;
    h[10] = h[11] = 0xFF;
  } else {
    h[0] |= 0x0F;
    h[1] = h[2] = h[3] = 0xFF;
    h[7] = 0xFF;
  }
  h[ip_bytes + 6] = h[ip_bytes + 7] = 0xFF;
  h[bth_at + kBthFecnByte] = 0xFF;
  return icrc_over(m.data(), kPseudoLrhBytes + n, ip + n, header_len - n, body);
}

}  // namespace ibfsim
