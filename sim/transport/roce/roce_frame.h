// A RoCE v2 frame (IBA Annex A17): an IB transport packet without LRH, GRH or VCRC, carried in
// UDP/IP over Ethernet:
//   Ethernet II | [802.1Q tag] | IPv4 or IPv6 | UDP (dst 4791) | BTH | extended headers |
//   payload | pad | ICRC | [Ethernet pad to 64 bytes] | FCS
// The BTH and extended headers are written and read by the same code as IB's
// (transport_packet.h); the Ethernet, IP and UDP headers by sim/ethernet; the ICRC by
// roce_icrc.h. A frame here is the bytes from the destination MAC through the FCS (the preamble,
// SFD and inter-frame gap are the link's: ethernet/ethernet_frame_timing.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ip_address.h"
#include "sim/ethernet/ip_traffic_class.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"
#include "sim/transport/roce/roce_udp_port.h"
#include "sim/transport/transport_packet.h"

namespace ibfsim {

// Everything below the BTH that a RoCE v2 sender chooses for one frame.
struct RoceAddressing {
  MacAddress dst_mac{};
  MacAddress src_mac{};
  std::optional<VlanTag> vlan;  // PCP: the frame's priority on a lossless (PFC) Ethernet
  IpAddress src_ip;             // both of one version: it selects IPv4 or IPv6
  IpAddress dst_ip;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = ecn::kNotEct;
  std::uint8_t ttl = 64;                 // IPv4 TTL or IPv6 Hop Limit
  std::uint32_t flow_label = 0;          // IPv6 only
  std::uint16_t ip_identification = 0;   // IPv4 only
  std::uint16_t udp_src_port = kRoceUdpSourcePortMin;  // roce_udp_port.h
  // Whether to compute the UDP checksum over IPv4 (otherwise 0, "none", what RoCE v2 senders
  // send). Receivers ignore it: the ICRC masks it. IPv6 does not allow 0 (RFC 8200): over IPv6 it
  // is always computed.
  bool udp_checksum_ipv4 = false;
};

// Offsets of the parts of one frame, from its destination MAC.
struct RoceFrameLayout {
  std::size_t ip_at = 0;       // after the Ethernet header and tag
  std::size_t udp_at = 0;
  std::size_t bth_at = 0;
  std::size_t payload_at = 0;  // after the last extended header
  std::size_t icrc_at = 0;     // after payload and pad
  std::size_t fcs_at = 0;      // after the ICRC and any Ethernet pad
  std::size_t frame_bytes = 0; // through the FCS
};

// The layout of a frame with `transport_header_bytes` of BTH and extended headers and `body`
// bytes of payload and pad.
RoceFrameLayout roce_frame_layout(const RoceAddressing& a, std::size_t transport_header_bytes,
                                  std::size_t body);

// Writes the Ethernet header (and tag), the IP header and the UDP header (checksum 0) of a frame
// with `transport_len` bytes of BTH and extended headers and `body` bytes of payload and pad, at
// `out` (at least layout.bth_at bytes); returns the frame's layout.
RoceFrameLayout encode_roce_headers(const RoceAddressing& a, std::size_t transport_len, std::size_t body,
                                    std::uint8_t* out);

// The frame around BTH and extended headers already encoded (`transport`, `transport_len` bytes),
// followed by the payload (`payload_len` bytes, zeros when `payload` is null) and `pad` zeros.
std::vector<std::uint8_t> frame_roce_transport(const RoceAddressing& a, const std::uint8_t* transport,
                                               std::size_t transport_len, std::uint32_t payload_len,
                                               const std::uint8_t* payload, std::uint8_t pad);

// The whole frame: headers, the payload (`payload` bytes, or zeros when null), pad, ICRC, FCS.
// h.bth's opcode must be one ibfsim's transports implement (transport_packet.h); PadCnt is
// computed. h.lrh and h.grh are not used.
std::vector<std::uint8_t> build_roce_frame(const RoceAddressing& a, const TransportHeaders& h,
                                           std::uint32_t payload_len, const std::uint8_t* payload);

// Why a frame is not a good RoCE v2 frame, in the order a receiver checks.
enum class RoceFrameError : std::uint8_t {
  kNone,
  kTooShort,          // shorter than 64 bytes or than its headers
  kBadFcs,
  kNotIp,             // EtherType neither IPv4 nor IPv6
  kBadIpHeader,       // version, IHL (options), fragment, or a length beyond the frame
  kBadIpChecksum,
  kNotUdp,
  kNotRoceV2,         // UDP destination port not 4791
  kBadLength,         // UDP length, PadCnt, or bytes after the datagram other than the minimum pad
  kUnsupportedOpcode,
  kBadIcrc,
};
const char* roce_frame_error_name(RoceFrameError e);

struct ParsedRoceFrame {
  EthernetHeader eth;
  IpVersion ip_version = IpVersion::kV4;
  Ipv4Header ipv4;  // when IPv4
  Ipv6Header ipv6;  // when IPv6
  UdpHeader udp;
  TransportHeaders h;  // bth and the extended headers (lrh, grh unused)
  std::uint8_t ext = 0;  // ExtHeader bits present
  bool cnp = false;      // a RoCE CNP (opcode 0x81, roce_cnp.h): no extended header, no payload
  RoceFrameLayout layout;
  std::uint32_t payload_len = 0;
  RoceFrameError error = RoceFrameError::kNone;
  bool ok() const { return error == RoceFrameError::kNone; }
};

// Decodes and checks a frame (destination MAC .. FCS, `len` bytes): FCS, IP header and checksum,
// UDP port and length, opcode, PadCnt, ICRC. The UDP checksum is not checked (receivers ignore
// it). On an error, the fields decoded before it are set.
ParsedRoceFrame parse_roce_frame(const std::uint8_t* frame, std::size_t len);

}  // namespace ibfsim
