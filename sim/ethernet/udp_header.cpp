#include "sim/ethernet/udp_header.h"

#include "sim/core/big_endian.h"
#include "sim/ethernet/internet_checksum.h"
#include "sim/ethernet/ipv4_header.h"

namespace ibfsim {

void encode_udp_header(const UdpHeader& h, std::uint8_t* out) {
  store_be16(out, h.src_port);
  store_be16(out + 2, h.dst_port);
  store_be16(out + 4, h.length);
  store_be16(out + 6, h.checksum);
}

UdpHeader decode_udp_header(const std::uint8_t* in) {
  return UdpHeader{load_be16(in), load_be16(in + 2), load_be16(in + 4), load_be16(in + 6)};
}

std::uint16_t udp_checksum(const IpAddress& src, const IpAddress& dst, const std::uint8_t* udp8,
                           std::initializer_list<ByteRun> data) {
  // Pseudo-header: the addresses, the protocol and the UDP length (IPv4: 0, 17, 16-bit length;
  // IPv6: 32-bit length, 3 zero bytes, 17). Both sum to the same words.
  InternetSum s;
  s.add(src.bytes.data(), src.size());
  s.add(dst.bytes.data(), dst.size());
  s.add_be16(kIpProtocolUdp);
  s.add_be16(load_be16(udp8 + 4));
  s.add(udp8, 6);  // ports and length; the checksum field counts as 0
  for (const ByteRun& r : data) {
    if (r.data == nullptr) s.add_zeros(r.len);
    else s.add(r.data, r.len);
  }
  const std::uint16_t c = s.checksum();
  return c == 0 ? 0xFFFF : c;
}

}  // namespace ibfsim
