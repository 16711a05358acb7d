#include "sim/transport/ipoib/ipoib_tcp_segment.h"

#include "sim/transport/ipoib/ipoib_ipv4.h"

namespace ibfsim {

std::size_t ipoib_tcp_headers_bytes(const IpoibTcpSegment& s) {
  return kIpoibHeaderBytes + kIpv4HeaderBytes + tcp_header_bytes(s.tcp);
}

std::vector<std::uint8_t> encode_ipoib_tcp_segment(const IpoibTcpSegment& s) {
  const std::size_t tcp_len = tcp_header_bytes(s.tcp);
  std::vector<std::uint8_t> out(ipoib_tcp_headers_bytes(s) + s.data_bytes, 0);
  encode_ipoib_ipv4({s.src_ip, s.dst_ip, s.identification, s.ttl, s.dscp}, kIpProtocolTcp,
                    static_cast<std::uint32_t>(tcp_len) + s.data_bytes, out.data());
  std::uint8_t* tcp = out.data() + kIpoibHeaderBytes + kIpv4HeaderBytes;
  TcpHeader h = s.tcp;
  h.checksum = 0;
  encode_tcp_header(h, tcp);
  h.checksum = tcp_checksum(ip_address_of(s.src_ip), ip_address_of(s.dst_ip), tcp, tcp_len, {ByteRun{nullptr, s.data_bytes}});
  encode_tcp_header(h, tcp);
  return out;
}

std::optional<IpoibTcpSegment> decode_ipoib_tcp_segment(const std::uint8_t* payload, std::size_t len) {
  if (len < kIpoibHeaderBytes + kIpv4HeaderBytes + kTcpHeaderBytes) return std::nullopt;
  const std::optional<Ipv4Header> ipv4 = decode_ipoib_ipv4(payload, len, kIpProtocolTcp);
  if (!ipv4) return std::nullopt;
  const Ipv4Header& ip = *ipv4;
  const std::uint8_t* tcp = payload + kIpoibHeaderBytes + kIpv4HeaderBytes;
  const std::size_t tcp_total = ip.total_length - kIpv4HeaderBytes;
  auto h = decode_tcp_header(tcp, tcp_total);
  if (!h) return std::nullopt;
  const std::size_t hlen = tcp_data_offset(tcp);
  const std::uint8_t* data = tcp + hlen;
  const std::uint16_t sum = tcp_checksum(ip_address_of(ip.src), ip_address_of(ip.dst), tcp, hlen, {ByteRun{data, tcp_total - hlen}});
  if (sum != h->checksum) return std::nullopt;
  IpoibTcpSegment s;
  s.src_ip = ip.src;
  s.dst_ip = ip.dst;
  s.identification = ip.identification;
  s.ttl = ip.ttl;
  s.dscp = ip.dscp;
  s.tcp = std::move(*h);
  s.data_bytes = static_cast<std::uint32_t>(tcp_total - hlen);
  return s;
}

}  // namespace ibfsim
