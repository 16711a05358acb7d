#include "sim/transport/ipoib/ipoib_datagram.h"

#include "sim/transport/ipoib/ipoib_ipv4.h"

namespace ibfsim {

void encode_ipoib_udp_headers(const IpoibUdpDatagram& d, std::uint8_t* out) {
  encode_ipoib_ipv4({d.src_ip, d.dst_ip, d.identification, d.ttl, d.dscp}, kIpProtocolUdp,
                    static_cast<std::uint32_t>(kUdpHeaderBytes) + d.data_bytes, out);
  std::uint8_t* udp = out + kIpoibHeaderBytes + kIpv4HeaderBytes;
  UdpHeader u;
  u.src_port = d.src_port;
  u.dst_port = d.dst_port;
  u.length = static_cast<std::uint16_t>(kUdpHeaderBytes + d.data_bytes);
  encode_udp_header(u, udp);
  u.checksum = udp_checksum(ip_address_of(d.src_ip), ip_address_of(d.dst_ip), udp, {ByteRun{nullptr, d.data_bytes}});
  encode_udp_header(u, udp);
}

std::optional<IpoibUdpDatagram> decode_ipoib_udp(const std::uint8_t* payload, std::size_t len) {
  if (len < kIpoibUdpHeadersBytes) return std::nullopt;
  const std::optional<Ipv4Header> ipv4 = decode_ipoib_ipv4(payload, len, kIpProtocolUdp);
  if (!ipv4) return std::nullopt;
  const Ipv4Header& ip = *ipv4;
  const UdpHeader u = decode_udp_header(payload + kIpoibHeaderBytes + kIpv4HeaderBytes);
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
