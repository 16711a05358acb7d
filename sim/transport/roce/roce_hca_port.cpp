#include "sim/transport/roce/roce_hca_port.h"

#include <algorithm>
#include <vector>

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"
#include "sim/link/lrh.h"
#include "sim/transport/roce/roce_packet.h"
#include "sim/transport/roce/roce_udp_port.h"

namespace ibfsim {

namespace {
constexpr std::array<std::uint8_t, 12> kV4MappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
}  // namespace

std::array<std::uint8_t, 16> roce_gid(const IpAddress& ip) {
  if (ip.version == IpVersion::kV6) return ip.bytes;
  std::array<std::uint8_t, 16> g{};
  std::copy(kV4MappedPrefix.begin(), kV4MappedPrefix.end(), g.begin());
  std::copy(ip.bytes.begin(), ip.bytes.begin() + 4, g.begin() + 12);
  return g;
}

IpAddress roce_gid_ip(const std::array<std::uint8_t, 16>& gid) {
  if (!std::equal(kV4MappedPrefix.begin(), kV4MappedPrefix.end(), gid.begin())) return IpAddress::v6(gid);
  return IpAddress::v4(gid[12], gid[13], gid[14], gid[15]);
}

std::optional<RoceAddressing> roce_addressing_for(const Packet& ib, const RocePortConfig& port,
                                                  const RoceAddressBook& book) {
  const Lrh lrh = decode_lrh(ib.header.data());
  RoceAddressing a;
  a.src_mac = port.mac;
  a.dst_mac = port.gateway_mac;
  if (port.pcp) a.vlan = VlanTag{*port.pcp, false, 0};
  a.src_ip = port.ip;
  a.dscp = port.dscp;
  std::size_t bth_at = kLrhBytes;
  if (lrh.lnh == kLnhIbaGlobal) {
    const Grh g = decode_grh(ib.header.data() + kLrhBytes);
    a.dst_ip = roce_gid_ip(g.dgid);
    a.dscp = traffic_class_dscp(g.tclass);
    a.ecn = traffic_class_ecn(g.tclass);
    if (g.hop_lmt != 0) a.ttl = g.hop_lmt;
    a.flow_label = g.flow_label;
    bth_at += kGrhBytes;
  } else {
    const auto ip = book.ip_of(lrh.dlid);
    if (!ip) return std::nullopt;
    a.dst_ip = *ip;
  }
  if (a.dst_ip.version != a.src_ip.version) return std::nullopt;
  const Qpn dest_qp = bth_dest_qp(ib.header.data() + bth_at);
  const std::uint32_t label = roce_flow_label(ib.src_qp, dest_qp);
  a.udp_src_port = roce_udp_source_port(label);
  if (a.src_ip.version == IpVersion::kV6 && a.flow_label == 0) a.flow_label = label;
  return a;
}

std::uint64_t roce_frame_bytes(const RocePortConfig& port, std::uint64_t ib_wire_bytes) {
  const std::uint64_t ip = port.ip.version == IpVersion::kV4 ? kIpv4HeaderBytes : kIpv6HeaderBytes;
  const std::uint64_t frame = kEthernetHeaderBytes + (port.pcp ? kVlanTagBytes : 0) + ip + kUdpHeaderBytes +
                              (ib_wire_bytes - kLrhBytes - 2) + kEthernetFcsBytes;
  return std::max<std::uint64_t>(frame, kEthernetMinFrameBytes);
}

void reframe_as_roce(Packet& p, const RoceAddressing& a) {
  const ParsedPacket pp = parse_transport_packet(p);
  IBFSIM_CHECK(pp.ok(), "reframe_as_roce: the QP's packet does not parse");
  // build_roce_packet assigns the payload from its argument: a copy, never the packet's own vector.
  std::vector<std::uint8_t> payload;
  if (!p.payload.empty()) payload.assign(p.payload.begin(), p.payload.begin() + pp.payload_len);
  build_roce_packet(p, a, pp.h, pp.payload_len, payload.empty() ? nullptr : payload.data());
  p.vcrc = {};
}

ParsedPacket roce_transport_view(const ParsedRoceFrame& f, Lid slid, Lid dlid, bool with_grh) {
  ParsedPacket pp;
  pp.h = f.h;
  pp.ext = f.ext;
  pp.payload_len = f.payload_len;
  pp.h.lrh.slid = slid;
  pp.h.lrh.dlid = dlid;
  pp.h.lrh.sl = f.eth.vlan ? f.eth.vlan->pcp : 0;
  pp.h.lrh.lnh = with_grh ? kLnhIbaGlobal : kLnhIbaLocal;
  pp.h.grh.reset();
  if (with_grh) {
    Grh g;
    const bool v4 = f.ip_version == IpVersion::kV4;
    IpAddress src, dst;
    if (v4) {
      src = IpAddress::v4(f.ipv4.src[0], f.ipv4.src[1], f.ipv4.src[2], f.ipv4.src[3]);
      dst = IpAddress::v4(f.ipv4.dst[0], f.ipv4.dst[1], f.ipv4.dst[2], f.ipv4.dst[3]);
      g.tclass = traffic_class_byte(f.ipv4.dscp, f.ipv4.ecn);
      g.hop_lmt = f.ipv4.ttl;
    } else {
      src = IpAddress::v6(f.ipv6.sgid);
      dst = IpAddress::v6(f.ipv6.dgid);
      g.tclass = f.ipv6.tclass;
      g.hop_lmt = f.ipv6.hop_lmt;
      g.flow_label = f.ipv6.flow_label;
    }
    g.sgid = roce_gid(src);
    g.dgid = roce_gid(dst);
    pp.h.grh = g;
  }
  return pp;
}

}  // namespace ibfsim
