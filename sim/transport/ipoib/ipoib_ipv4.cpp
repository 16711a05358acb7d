#include "sim/transport/ipoib/ipoib_ipv4.h"

#include "sim/transport/ipoib/ipoib_header.h"

namespace ibfsim {

void encode_ipoib_ipv4(const IpoibIpv4Fields& f, std::uint8_t protocol, std::uint32_t l4_bytes, std::uint8_t* out) {
  encode_ipoib_header(IpoibHeader{kEtherTypeIpv4, 0}, out);
  Ipv4Header ip;
  ip.dscp = f.dscp;
  ip.total_length = static_cast<std::uint16_t>(kIpv4HeaderBytes + l4_bytes);
  ip.identification = f.identification;
  ip.ttl = f.ttl;
  ip.protocol = protocol;
  ip.src = f.src_ip;
  ip.dst = f.dst_ip;
  encode_ipv4_header(ip, out + kIpoibHeaderBytes);
}

std::optional<Ipv4Header> decode_ipoib_ipv4(const std::uint8_t* payload, std::size_t len, std::uint8_t protocol) {
  if (decode_ipoib_header(payload).type != kEtherTypeIpv4) return std::nullopt;
  const std::uint8_t* iph = payload + kIpoibHeaderBytes;
  const Ipv4Header ip = decode_ipv4_header(iph);
  if (ip.version != 4 || ip.ihl != 5 || ip.protocol != protocol || !ipv4_checksum_ok(iph)) return std::nullopt;
  if (ip.total_length != len - kIpoibHeaderBytes) return std::nullopt;
  return ip;
}

}  // namespace ibfsim
