#include "sim/transport/ipoib/ipoib_datagram.h"

namespace ibfsim {

namespace {
IpAddress v4(const std::array<std::uint8_t, 4>& a) { return IpAddress::v4(a[0], a[1], a[2], a[3]); }
}  // namespace

void encode_ipoib_udp_headers(const IpoibUdpDatagram& d, std::uint8_t* out) {
  encode_ipoib_header(IpoibHeader{kEtherTypeIpv4, 0}, out);
  Ipv4Header ip;
  ip.dscp = d.dscp;
  ip.total_length = static_cast<std::uint16_t>(kIpv4HeaderBytes + kUdpHeaderBytes + d.data_bytes);
  ip.identification = d.identification;
  ip.ttl = d.ttl;
  ip.protocol = kIpProtocolUdp;
  ip.src = d.src_ip;
  ip.dst = d.dst_ip;
  encode_ipv4_header(ip, out + kIpoibHeaderBytes);
  std::uint8_t* udp = out + kIpoibHeaderBytes + kIpv4HeaderBytes;
  UdpHeader u;
  u.src_port = d.src_port;
  u.dst_port = d.dst_port;
  u.length = static_cast<std::uint16_t>(kUdpHeaderBytes + d.data_bytes);
  encode_udp_header(u, udp);
  u.checksum = udp_checksum(v4(d.src_ip), v4(d.dst_ip), udp, {ByteRun{nullptr, d.data_bytes}});
  encode_udp_header(u, udp);
}

std::optional<IpoibUdpDatagram> decode_ipoib_udp(const std::uint8_t* payload, std::size_t len) {
  if (len < kIpoibUdpHeadersBytes) return std::nullopt;
  if (decode_ipoib_header(payload).type != kEtherTypeIpv4) return std::nullopt;
  const std::uint8_t* iph = payload + kIpoibHeaderBytes;
  const Ipv4Header ip = decode_ipv4_header(iph);
  if (ip.version != 4 || ip.ihl != 5 || ip.protocol != kIpProtocolUdp || !ipv4_checksum_ok(iph)) return std::nullopt;
  if (ip.total_length != len - kIpoibHeaderBytes) return std::nullopt;
  const UdpHeader u = decode_udp_header(iph + kIpv4HeaderBytes);
  if (u.length != ip.total_length - kIpv4HeaderBytes) return std::nullopt;
  IpoibUdpDatagram d;
  d.src_ip = ip.src;
  d.dst_ip = ip.dst;
  d.src_port = u.src_port;
  d.dst_port = u.dst_port;
  d.identification = ip.identification;
  d.ttl = ip.ttl;
  d.dscp = ip.dscp;
  d.data_bytes = u.length - static_cast<std::uint32_t>(kUdpHeaderBytes);
  return d;
}

}  // namespace ibfsim
