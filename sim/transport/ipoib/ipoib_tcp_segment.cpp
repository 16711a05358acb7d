#include "sim/transport/ipoib/ipoib_tcp_segment.h"

namespace ibfsim {

namespace {
IpAddress v4(const std::array<std::uint8_t, 4>& a) { return IpAddress::v4(a[0], a[1], a[2], a[3]); }
}  // namespace

std::size_t ipoib_tcp_headers_bytes(const IpoibTcpSegment& s) {
  return kIpoibHeaderBytes + kIpv4HeaderBytes + tcp_header_bytes(s.tcp);
}

std::vector<std::uint8_t> encode_ipoib_tcp_segment(const IpoibTcpSegment& s) {
  const std::size_t tcp_len = tcp_header_bytes(s.tcp);
  std::vector<std::uint8_t> out(ipoib_tcp_headers_bytes(s) + s.data_bytes, 0);
  encode_ipoib_header(IpoibHeader{kEtherTypeIpv4, 0}, out.data());
  Ipv4Header ip;
  ip.dscp = s.dscp;
  ip.total_length = static_cast<std::uint16_t>(kIpv4HeaderBytes + tcp_len + s.data_bytes);
  ip.identification = s.identification;
  ip.ttl = s.ttl;
  ip.protocol = kIpProtocolTcp;
  ip.src = s.src_ip;
  ip.dst = s.dst_ip;
  encode_ipv4_header(ip, out.data() + kIpoibHeaderBytes);
  std::uint8_t* tcp = out.data() + kIpoibHeaderBytes + kIpv4HeaderBytes;
  TcpHeader h = s.tcp;
  h.checksum = 0;
  encode_tcp_header(h, tcp);
  h.checksum = tcp_checksum(v4(s.src_ip), v4(s.dst_ip), tcp, tcp_len, {ByteRun{nullptr, s.data_bytes}});
  encode_tcp_header(h, tcp);
  return out;
}

std::optional<IpoibTcpSegment> decode_ipoib_tcp_segment(const std::uint8_t* payload, std::size_t len) {
  if (len < kIpoibHeaderBytes + kIpv4HeaderBytes + kTcpHeaderBytes) return std::nullopt;
  if (decode_ipoib_header(payload).type != kEtherTypeIpv4) return std::nullopt;
  const std::uint8_t* iph = payload + kIpoibHeaderBytes;
  const Ipv4Header ip = decode_ipv4_header(iph);
  if (ip.version != 4 || ip.ihl != 5 || ip.protocol != kIpProtocolTcp || !ipv4_checksum_ok(iph)) return std::nullopt;
  if (ip.total_length != len - kIpoibHeaderBytes) return std::nullopt;
  const std::uint8_t* tcp = iph + kIpv4HeaderBytes;
  const std::size_t tcp_total = ip.total_length - kIpv4HeaderBytes;
  auto h = decode_tcp_header(tcp, tcp_total);
  if (!h) return std::nullopt;
  const std::size_t hlen = tcp_data_offset(tcp);
  const std::uint8_t* data = tcp + hlen;
  const std::uint16_t sum = tcp_checksum(v4(ip.src), v4(ip.dst), tcp, hlen, {ByteRun{data, tcp_total - hlen}});
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
