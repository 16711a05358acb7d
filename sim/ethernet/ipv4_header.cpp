#include "sim/ethernet/ipv4_header.h"

#include <algorithm>

#include "sim/core/big_endian.h"
#include "sim/ethernet/internet_checksum.h"
#include "sim/ethernet/ip_traffic_class.h"

namespace ibfsim {

namespace {
constexpr std::size_t kChecksumAt = 10;

void refresh_checksum(std::uint8_t* ip) {
  store_be16(ip + kChecksumAt, 0);
  store_be16(ip + kChecksumAt, internet_checksum(ip, kIpv4HeaderBytes));
}
}  // namespace

void encode_ipv4_header(const Ipv4Header& h, std::uint8_t* out) {
  out[0] = 0x45;
  out[1] = traffic_class_byte(h.dscp, h.ecn);
  store_be16(out + 2, h.total_length);
  store_be16(out + 4, h.identification);
  store_be16(out + 6, static_cast<std::uint16_t>(h.dont_fragment << 14 | h.more_fragments << 13 |
                                                 (h.fragment_offset & 0x1FFF)));
  out[8] = h.ttl;
  out[9] = h.protocol;
  std::copy(h.src.begin(), h.src.end(), out + 12);
  std::copy(h.dst.begin(), h.dst.end(), out + 16);
  refresh_checksum(out);
}

Ipv4Header decode_ipv4_header(const std::uint8_t* in) {
  Ipv4Header h;
  h.version = in[0] >> 4;
  h.ihl = in[0] & 0x0F;
  h.dscp = traffic_class_dscp(in[1]);
  h.ecn = traffic_class_ecn(in[1]);
  h.total_length = load_be16(in + 2);
  h.identification = load_be16(in + 4);
  const std::uint16_t frag = load_be16(in + 6);
  h.dont_fragment = frag & 0x4000;
  h.more_fragments = frag & 0x2000;
  h.fragment_offset = frag & 0x1FFF;
  h.ttl = in[8];
  h.protocol = in[9];
  h.checksum = load_be16(in + kChecksumAt);
  std::copy(in + 12, in + 16, h.src.begin());
  std::copy(in + 16, in + 20, h.dst.begin());
  return h;
}

bool ipv4_checksum_ok(const std::uint8_t* hdr, std::size_t header_bytes) {
  // The sum over a header that includes its right checksum is 0xFFFF: its complement is 0.
  return internet_checksum(hdr, header_bytes) == 0;
}

void set_ipv4_ttl(std::uint8_t* ip, std::uint8_t ttl) {
  ip[8] = ttl;
  refresh_checksum(ip);
}

void set_ipv4_ecn(std::uint8_t* ip, std::uint8_t e) {
  ip[1] = static_cast<std::uint8_t>((ip[1] & 0xFC) | (e & 0x03));
  refresh_checksum(ip);
}

}  // namespace ibfsim
