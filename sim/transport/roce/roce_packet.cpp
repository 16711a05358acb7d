#include "sim/transport/roce/roce_packet.h"

#include <algorithm>

#include "sim/core/big_endian.h"
#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/transport/roce/roce_icrc.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"

namespace ibfsim {

RoceFrameError load_roce_frame(Packet& p, const std::uint8_t* f, std::size_t len, bool carry_payload) {
  const ParsedRoceFrame r = parse_roce_frame(f, len);
  if (!r.ok()) return r.error;
  const RoceFrameLayout& l = r.layout;
  // A CNP's 16 reserved bytes follow the BTH as its body.
  const std::size_t header_len = r.cnp ? l.bth_at + kBthBytes : l.payload_at;
  IBFSIM_CHECK(header_len <= Packet::kMaxHeaderBytes, "load_roce_frame: headers longer than a Packet holds");
  p.framing = Framing::kEthernet;
  p.header_len = static_cast<std::uint16_t>(header_len);
  std::copy(f, f + header_len, p.header.begin());
  const std::size_t body = l.icrc_at - header_len;
  const std::size_t pad = r.cnp ? 0 : r.h.bth.pad_cnt;
  p.payload_len = static_cast<std::uint32_t>(body - pad);
  p.pad_len = static_cast<std::uint8_t>(pad);
  const std::uint8_t* payload = f + header_len;
  if (carry_payload) {
    p.payload.assign(payload, payload + p.payload_len);
  } else {
    p.payload.clear();
    IBFSIM_CHECK(std::all_of(payload, payload + p.payload_len, [](std::uint8_t b) { return b == 0; }),
                 "load_roce_frame: an elided payload must be zeros");
  }
  p.has_icrc = true;
  std::copy(f + l.icrc_at, f + l.icrc_at + kIcrcBytes, p.icrc.begin());
  p.eth_pad_len = static_cast<std::uint8_t>(l.fcs_at - (l.icrc_at + kIcrcBytes));
  std::copy(f + l.fcs_at, f + l.fcs_at + kEthernetFcsBytes, p.fcs.begin());
  return RoceFrameError::kNone;
}

void build_roce_packet(Packet& p, const RoceAddressing& a, const TransportHeaders& h, std::uint32_t payload_len,
                       const std::uint8_t* payload) {
  const auto layout = opcode_layout(h.bth.opcode);
  IBFSIM_CHECK(layout.has_value(), "build_roce_packet: unsupported opcode");
  IBFSIM_CHECK(layout->payload || payload_len == 0, "build_roce_packet: opcode carries no payload");
  const auto pad = static_cast<std::uint8_t>((4 - payload_len) & 3);
  const std::size_t transport_len = base_transport_bytes(layout->headers);
  const RoceFrameLayout l = roce_frame_layout(a, transport_len, std::size_t{payload_len} + pad);
  IBFSIM_CHECK(l.payload_at <= Packet::kMaxHeaderBytes, "build_roce_packet: headers longer than a Packet holds");
  std::uint8_t* b = p.header.data();
  encode_roce_headers(a, transport_len, std::size_t{payload_len} + pad, b);
  encode_base_transport(h, layout->headers, pad, b + l.bth_at);
  p.framing = Framing::kEthernet;
  p.header_len = static_cast<std::uint16_t>(l.payload_at);
  p.payload_len = payload_len;
  p.pad_len = pad;
  if (payload != nullptr) p.payload.assign(payload, payload + payload_len);
  else p.payload.clear();
  p.has_icrc = true;
  store_crc32(p.icrc.data(), compute_roce_icrc(b + l.ip_at, l.payload_at - l.ip_at, {p.body_payload(), p.body_pad()}));
  if (a.src_ip.version == IpVersion::kV6 || a.udp_checksum_ipv4) {
    const std::uint16_t c = udp_checksum(a.src_ip, a.dst_ip, b + l.udp_at,
                                         {ByteRun{b + l.bth_at, transport_len}, p.body_payload(), p.body_pad(),
                                          ByteRun{p.icrc.data(), kIcrcBytes}});
    store_be16(b + l.udp_at + 6, c);
  }
  p.eth_pad_len = static_cast<std::uint8_t>(l.fcs_at - (l.icrc_at + kIcrcBytes));
  store_crc32(p.fcs.data(), packet_fcs(p));
}

}  // namespace ibfsim
