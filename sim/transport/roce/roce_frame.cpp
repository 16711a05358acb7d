#include "sim/transport/roce/roce_frame.h"

#include <algorithm>
#include <array>

#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/transport/icrc.h"
#include "sim/transport/roce/roce_cnp.h"
#include "sim/transport/roce/roce_icrc.h"

namespace ibfsim {

RoceFrameLayout roce_frame_layout(const RoceAddressing& a, std::size_t transport_header_bytes,
                                  std::size_t body) {
  RoceFrameLayout l;
  l.ip_at = kEthernetHeaderBytes + (a.vlan ? kVlanTagBytes : 0);
  l.udp_at = l.ip_at + (a.src_ip.version == IpVersion::kV4 ? kIpv4HeaderBytes : kIpv6HeaderBytes);
  l.bth_at = l.udp_at + kUdpHeaderBytes;
  l.payload_at = l.bth_at + transport_header_bytes;
  l.icrc_at = l.payload_at + body;
  const std::size_t content = l.icrc_at + kIcrcBytes;
  l.fcs_at = content + ethernet_pad_bytes(content);
  l.frame_bytes = l.fcs_at + kEthernetFcsBytes;
  return l;
}

RoceFrameLayout encode_roce_headers(const RoceAddressing& a, std::size_t transport_len, std::size_t body,
                                    std::uint8_t* out) {
  IBFSIM_CHECK(a.src_ip.version == a.dst_ip.version, "RoCE frame: source and destination IP versions differ");
  const bool v4 = a.src_ip.version == IpVersion::kV4;
  const RoceFrameLayout l = roce_frame_layout(a, transport_len, body);
  encode_ethernet_header({a.dst_mac, a.src_mac, a.vlan, v4 ? kEtherTypeIpv4 : kEtherTypeIpv6}, out);
  const std::size_t udp_len = l.icrc_at + kIcrcBytes - l.udp_at;
  IBFSIM_CHECK(udp_len <= 0xFFFF - kIpv4HeaderBytes, "RoCE frame: datagram longer than IP allows");
  if (v4) {
    Ipv4Header ip;
    ip.dscp = a.dscp;
    ip.ecn = a.ecn;
    ip.total_length = static_cast<std::uint16_t>(kIpv4HeaderBytes + udp_len);
    ip.identification = a.ip_identification;
    ip.ttl = a.ttl;
    std::copy(a.src_ip.bytes.begin(), a.src_ip.bytes.begin() + 4, ip.src.begin());
    std::copy(a.dst_ip.bytes.begin(), a.dst_ip.bytes.begin() + 4, ip.dst.begin());
    encode_ipv4_header(ip, out + l.ip_at);
  } else {
    Ipv6Header ip;
    ip.ipver = kIpv6Version;
    ip.tclass = traffic_class_byte(a.dscp, a.ecn);
    ip.flow_label = a.flow_label;
    ip.pay_len = static_cast<std::uint16_t>(udp_len);
    ip.nxt_hdr = kIpProtocolUdp;
    ip.hop_lmt = a.ttl;
    ip.sgid = a.src_ip.bytes;
    ip.dgid = a.dst_ip.bytes;
    encode_ipv6_header(ip, out + l.ip_at);
  }
  encode_udp_header({a.udp_src_port, kRoceV2UdpPort, static_cast<std::uint16_t>(udp_len), 0}, out + l.udp_at);
  return l;
}

std::vector<std::uint8_t> frame_roce_transport(const RoceAddressing& a, const std::uint8_t* transport,
                                               std::size_t transport_len, std::uint32_t payload_len,
                                               const std::uint8_t* payload, std::uint8_t pad) {
  const bool v4 = a.src_ip.version == IpVersion::kV4;
  const RoceFrameLayout probe = roce_frame_layout(a, transport_len, std::size_t{payload_len} + pad);
  std::vector<std::uint8_t> f(probe.frame_bytes, 0);
  std::uint8_t* b = f.data();
  const RoceFrameLayout l = encode_roce_headers(a, transport_len, std::size_t{payload_len} + pad, b);
  std::copy(transport, transport + transport_len, b + l.bth_at);
  if (payload != nullptr) std::copy(payload, payload + payload_len, b + l.payload_at);

  const std::size_t body = l.icrc_at - l.payload_at;
  store_crc32(b + l.icrc_at,
              compute_roce_icrc(b + l.ip_at, l.payload_at - l.ip_at, {ByteRun{b + l.payload_at, body}}));
  if (!v4 || a.udp_checksum_ipv4) {
    const std::uint16_t c = udp_checksum(a.src_ip, a.dst_ip, b + l.udp_at,
                                         {ByteRun{b + l.bth_at, l.icrc_at + kIcrcBytes - l.bth_at}});
    store_be16(b + l.udp_at + 6, c);
  }
  store_crc32(b + l.fcs_at, ethernet_fcs({ByteRun{b, l.fcs_at}}));
  return f;
}

std::vector<std::uint8_t> build_roce_frame(const RoceAddressing& a, const TransportHeaders& h,
                                           std::uint32_t payload_len, const std::uint8_t* payload) {
  const auto layout = opcode_layout(h.bth.opcode);
  IBFSIM_CHECK(layout.has_value(), "build_roce_frame: unsupported opcode");
  IBFSIM_CHECK(layout->payload || payload_len == 0, "build_roce_frame: opcode carries no payload");
  const auto pad = static_cast<std::uint8_t>((4 - payload_len) & 3);
  std::array<std::uint8_t, Packet::kMaxHeaderBytes> transport{};
  const std::size_t n = encode_base_transport(h, layout->headers, pad, transport.data());
  return frame_roce_transport(a, transport.data(), n, payload_len, payload, pad);
}

const char* roce_frame_error_name(RoceFrameError e) {
  switch (e) {
    case RoceFrameError::kNone: return "none";
    case RoceFrameError::kTooShort: return "too_short";
    case RoceFrameError::kBadFcs: return "bad_fcs";
    case RoceFrameError::kNotIp: return "not_ip";
    case RoceFrameError::kBadIpHeader: return "bad_ip_header";
    case RoceFrameError::kBadIpChecksum: return "bad_ip_checksum";
    case RoceFrameError::kNotUdp: return "not_udp";
    case RoceFrameError::kNotRoceV2: return "not_roce_v2";
    case RoceFrameError::kBadLength: return "bad_length";
    case RoceFrameError::kUnsupportedOpcode: return "unsupported_opcode";
    case RoceFrameError::kBadIcrc: return "bad_icrc";
  }
  return "?";
}

ParsedRoceFrame parse_roce_frame(const std::uint8_t* f, std::size_t len) {
  ParsedRoceFrame r;
  const auto fail = [&r](RoceFrameError e) {
    r.error = e;
    return r;
  };
  if (len < kEthernetMinFrameBytes) return fail(RoceFrameError::kTooShort);
  if (!ethernet_fcs_ok(f, len)) return fail(RoceFrameError::kBadFcs);
  const std::size_t content_end = len - kEthernetFcsBytes;
  const auto eth = decode_ethernet_header(f, content_end);
  if (!eth) return fail(RoceFrameError::kTooShort);
  r.eth = *eth;
  RoceFrameLayout& l = r.layout;
  l.ip_at = eth->bytes();
  std::size_t datagram_end = 0;
  if (eth->ether_type == kEtherTypeIpv4) {
    r.ip_version = IpVersion::kV4;
    if (l.ip_at + kIpv4HeaderBytes > content_end) return fail(RoceFrameError::kTooShort);
    r.ipv4 = decode_ipv4_header(f + l.ip_at);
    const Ipv4Header& ip = r.ipv4;
    if (ip.version != 4 || ip.ihl != 5 || ip.more_fragments || ip.fragment_offset != 0 ||
        ip.total_length < kIpv4HeaderBytes)
      return fail(RoceFrameError::kBadIpHeader);
    if (!ipv4_checksum_ok(f + l.ip_at)) return fail(RoceFrameError::kBadIpChecksum);
    if (ip.protocol != kIpProtocolUdp) return fail(RoceFrameError::kNotUdp);
    l.udp_at = l.ip_at + kIpv4HeaderBytes;
    datagram_end = l.ip_at + ip.total_length;
  } else if (eth->ether_type == kEtherTypeIpv6) {
    r.ip_version = IpVersion::kV6;
    if (l.ip_at + kIpv6HeaderBytes > content_end) return fail(RoceFrameError::kTooShort);
    r.ipv6 = decode_ipv6_header(f + l.ip_at);
    if (r.ipv6.ipver != kIpv6Version) return fail(RoceFrameError::kBadIpHeader);
    if (r.ipv6.nxt_hdr != kIpProtocolUdp) return fail(RoceFrameError::kNotUdp);
    l.udp_at = l.ip_at + kIpv6HeaderBytes;
    datagram_end = l.udp_at + r.ipv6.pay_len;
  } else {
    return fail(RoceFrameError::kNotIp);
  }
  if (datagram_end > content_end) return fail(RoceFrameError::kBadIpHeader);
  // Anything after the datagram can only be the pad of a minimum-size frame.
  if (datagram_end < content_end && len != kEthernetMinFrameBytes) return fail(RoceFrameError::kBadLength);
  if (l.udp_at + kUdpHeaderBytes > datagram_end) return fail(RoceFrameError::kBadLength);
  r.udp = decode_udp_header(f + l.udp_at);
  if (r.udp.dst_port != kRoceV2UdpPort) return fail(RoceFrameError::kNotRoceV2);
  if (r.udp.length != datagram_end - l.udp_at) return fail(RoceFrameError::kBadLength);
  l.bth_at = l.udp_at + kUdpHeaderBytes;
  if (l.bth_at + kBthBytes + kIcrcBytes > datagram_end) return fail(RoceFrameError::kBadLength);
  r.h.bth = decode_bth(f + l.bth_at);
  bool carries_payload = false;
  if (r.h.bth.opcode == kOpcodeRoceCnp) {
    r.cnp = true;
    l.payload_at = l.bth_at + kRoceCnpTransportBytes;
  } else {
    const auto layout = opcode_layout(r.h.bth.opcode);
    if (!layout) return fail(RoceFrameError::kUnsupportedOpcode);
    r.ext = layout->headers;
    carries_payload = layout->payload;
    l.payload_at = l.bth_at + base_transport_bytes(r.ext);
  }
  l.icrc_at = datagram_end - kIcrcBytes;
  if (l.icrc_at < l.payload_at) return fail(RoceFrameError::kBadLength);
  const std::size_t body = l.icrc_at - l.payload_at;
  if (body < r.h.bth.pad_cnt || (!carries_payload && body != 0)) return fail(RoceFrameError::kBadLength);
  r.payload_len = static_cast<std::uint32_t>(body - r.h.bth.pad_cnt);
  decode_extended_headers(f + l.bth_at + kBthBytes, r.ext, r.h);
  l.fcs_at = content_end;
  l.frame_bytes = len;
  const std::uint32_t icrc =
      compute_roce_icrc(f + l.ip_at, l.payload_at - l.ip_at, {ByteRun{f + l.payload_at, body}});
  if (icrc != load_crc32(f + l.icrc_at)) return fail(RoceFrameError::kBadIcrc);
  return r;
}

}  // namespace ibfsim
