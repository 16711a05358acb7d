#include "sim/ethernet/ecmp.h"

#include <algorithm>
#include <array>

#include "sim/core/big_endian.h"
#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"

namespace ibfsim {

std::optional<FiveTuple> five_tuple_of(const std::uint8_t* frame, std::size_t len) {
  const auto eth = decode_ethernet_header(frame, len);
  if (!eth) return std::nullopt;
  const std::size_t ip = eth->bytes();
  FiveTuple t;
  std::size_t udp = 0;
  if (eth->ether_type == kEtherTypeIpv4) {
    if (len < ip + kIpv4HeaderBytes || frame[ip] != 0x45) return std::nullopt;
    t.src.version = t.dst.version = IpVersion::kV4;
    std::copy(frame + ip + 12, frame + ip + 16, t.src.bytes.begin());
    std::copy(frame + ip + 16, frame + ip + 20, t.dst.bytes.begin());
    t.protocol = frame[ip + 9];
    udp = ip + kIpv4HeaderBytes;
  } else if (eth->ether_type == kEtherTypeIpv6) {
    if (len < ip + kIpv6HeaderBytes || frame[ip] >> 4 != kIpv6Version) return std::nullopt;
    t.src.version = t.dst.version = IpVersion::kV6;
    std::copy(frame + ip + 8, frame + ip + 24, t.src.bytes.begin());
    std::copy(frame + ip + 24, frame + ip + 40, t.dst.bytes.begin());
    t.protocol = frame[ip + 6];
    udp = ip + kIpv6HeaderBytes;
  } else {
    return std::nullopt;
  }
  if (t.protocol != kIpProtocolUdp || len < udp + kUdpHeaderBytes) return std::nullopt;
  t.src_port = load_be16(frame + udp);
  t.dst_port = load_be16(frame + udp + 2);
  return t;
}

std::uint32_t ecmp_hash(const FiveTuple& t, std::uint32_t seed) {
  std::array<std::uint8_t, 4 + 16 + 16 + 1 + 2 + 2> b{};
  std::size_t n = 0;
  store_be32(b.data(), seed);
  n += 4;
  std::copy(t.src.bytes.begin(), t.src.bytes.begin() + t.src.size(), b.begin() + n);
  n += t.src.size();
  std::copy(t.dst.bytes.begin(), t.dst.bytes.begin() + t.dst.size(), b.begin() + n);
  n += t.dst.size();
  b[n++] = t.protocol;
  store_be16(b.data() + n, t.src_port);
  store_be16(b.data() + n + 2, t.dst_port);
  n += 4;
  return crc32_runs({ByteRun{b.data(), n}});
}

PortNum ecmp_select(const NextHops& next_hops, const FiveTuple& t, std::uint32_t seed) {
  IBFSIM_CHECK(!next_hops.empty(), "ecmp_select: no next hop");
  return next_hops[ecmp_hash(t, seed) % next_hops.size()];
}

}  // namespace ibfsim
