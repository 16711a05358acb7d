// The decoders a RoCE v2 receiver runs on a frame's bytes: the Ethernet header and tag, IPv4 or
// IPv6, UDP, the BTH and extended headers, PadCnt, ICRC and FCS (parse_roce_frame), on any bytes.
// A frame that parses is built again from what was decoded: the same headers must come out.
//
// Input: the frame, destination MAC through FCS.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/transport/roce/roce_frame.h"

using namespace ibfsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)decode_ethernet_header(data, size);
  if (size >= kIpv4HeaderBytes) (void)ipv4_checksum_ok(data);
  const ParsedRoceFrame p = parse_roce_frame(data, size);
  if (!p.ok() || p.cnp) return 0;
  RoceAddressing a;
  a.dst_mac = p.eth.dst;
  a.src_mac = p.eth.src;
  a.vlan = p.eth.vlan;
  a.udp_src_port = p.udp.src_port;
  if (p.ip_version == IpVersion::kV4) {
    std::copy(p.ipv4.src.begin(), p.ipv4.src.end(), a.src_ip.bytes.begin());
    std::copy(p.ipv4.dst.begin(), p.ipv4.dst.end(), a.dst_ip.bytes.begin());
    a.dscp = p.ipv4.dscp, a.ecn = p.ipv4.ecn, a.ttl = p.ipv4.ttl;
    a.ip_identification = p.ipv4.identification;
  } else {
    a.src_ip = IpAddress::v6(p.ipv6.sgid);
    a.dst_ip = IpAddress::v6(p.ipv6.dgid);
    a.dscp = traffic_class_dscp(p.ipv6.tclass), a.ecn = traffic_class_ecn(p.ipv6.tclass);
    a.ttl = p.ipv6.hop_lmt, a.flow_label = p.ipv6.flow_label;
  }
  const auto f = build_roce_frame(a, p.h, p.payload_len, data + p.layout.payload_at);
  // Headers from the IP header through the last extended header, but the fields the builder
  // chooses itself (IPv4 flags and checksum, UDP checksum) and the BTH's reserved bits.
  const ParsedRoceFrame q = parse_roce_frame(f.data(), f.size());
  if (!q.ok() || q.payload_len != p.payload_len || q.h.bth.opcode != p.h.bth.opcode ||
      q.h.bth.dest_qp != p.h.bth.dest_qp || q.h.bth.psn != p.h.bth.psn || q.ext != p.ext ||
      q.layout.payload_at != p.layout.payload_at)
    std::abort();
  return 0;
}
