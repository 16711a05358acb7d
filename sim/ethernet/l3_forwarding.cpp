#include "sim/ethernet/l3_forwarding.h"

#include <algorithm>

#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/ethernet/ecmp.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ip_traffic_class.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"

namespace ibfsim {

const char* l3_verdict_name(L3Verdict v) {
  switch (v) {
    case L3Verdict::kForward: return "forward";
    case L3Verdict::kNotIp: return "not_ip";
    case L3Verdict::kNoRoute: return "no_route";
    case L3Verdict::kTtlExpired: return "ttl_expired";
  }
  return "?";
}

namespace {
struct IpAt {
  bool ok = false;
  bool v4 = false;
  std::size_t ip = 0;   // offset of the IP header
  std::size_t end = 0;  // after the IP header
};

IpAt locate_ip(const std::uint8_t* frame, std::size_t len) {
  IpAt r;
  const auto eth = decode_ethernet_header(frame, len);
  if (!eth) return r;
  r.ip = eth->bytes();
  if (eth->ether_type == kEtherTypeIpv4) {
    r.v4 = true;
    r.end = r.ip + kIpv4HeaderBytes;
    r.ok = len >= r.end && frame[r.ip] == 0x45;
  } else if (eth->ether_type == kEtherTypeIpv6) {
    r.end = r.ip + kIpv6HeaderBytes;
    r.ok = len >= r.end && frame[r.ip] >> 4 == kIpv6Version;
  }
  return r;
}
}  // namespace

std::size_t l3_decision_bytes(const std::uint8_t* frame, std::size_t len) {
  const IpAt at = locate_ip(frame, len);
  if (!at.ok) return std::min<std::size_t>(len, kEthernetHeaderBytes + kVlanTagBytes);
  return at.end + 4;  // the UDP ports, for ECMP
}

L3Decision l3_decide(const std::uint8_t* frame, std::size_t len, const RouteTable& routes, std::uint32_t ecmp_seed) {
  const IpAt at = locate_ip(frame, len);
  if (!at.ok) return {L3Verdict::kNotIp, 0};
  IpAddress dst;
  std::uint8_t ttl = 0;
  if (at.v4) {
    std::copy(frame + at.ip + 16, frame + at.ip + 20, dst.bytes.begin());
    ttl = ipv4_ttl(frame + at.ip);
  } else {
    dst.version = IpVersion::kV6;
    std::copy(frame + at.ip + 24, frame + at.ip + 40, dst.bytes.begin());
    ttl = ipv6_hop_limit(frame + at.ip);
  }
  const NextHops* hops = routes.lookup(dst);
  if (hops == nullptr) return {L3Verdict::kNoRoute, 0};
  if (ttl <= 1) return {L3Verdict::kTtlExpired, 0};
  if (hops->size() == 1) return {L3Verdict::kForward, hops->front()};
  const auto tuple = five_tuple_of(frame, len);
  return {L3Verdict::kForward, tuple ? ecmp_select(*hops, *tuple, ecmp_seed) : hops->front()};
}

void l3_rewrite(std::vector<std::uint8_t>& frame, const MacAddress& src, const MacAddress& next_hop) {
  const IpAt at = locate_ip(frame.data(), frame.size());
  IBFSIM_CHECK(at.ok && frame.size() >= kEthernetMinFrameBytes, "l3_rewrite: not an IP frame");
  std::copy(next_hop.begin(), next_hop.end(), frame.begin());
  std::copy(src.begin(), src.end(), frame.begin() + 6);
  std::uint8_t* ip = frame.data() + at.ip;
  if (at.v4) set_ipv4_ttl(ip, static_cast<std::uint8_t>(ipv4_ttl(ip) - 1));
  else set_ipv6_hop_limit(ip, static_cast<std::uint8_t>(ipv6_hop_limit(ip) - 1));
  const std::size_t fcs_at = frame.size() - kEthernetFcsBytes;
  store_crc32(frame.data() + fcs_at, ethernet_fcs({ByteRun{frame.data(), fcs_at}}));
}

std::uint32_t packet_fcs(const Packet& p) {
  return ethernet_fcs({ByteRun{p.header.data(), p.header_len}, p.body_payload(), p.body_pad(),
                       ByteRun{p.has_icrc ? p.icrc.data() : nullptr, p.has_icrc ? 4u : 0u},
                       ByteRun{nullptr, p.eth_pad_len}});
}

void l3_rewrite(Packet& p, const MacAddress& src, const MacAddress& next_hop) {
  const IpAt at = locate_ip(p.header.data(), p.header_len);
  IBFSIM_CHECK(p.ethernet() && at.ok, "l3_rewrite: not an IP frame");
  std::copy(next_hop.begin(), next_hop.end(), p.header.begin());
  std::copy(src.begin(), src.end(), p.header.begin() + 6);
  std::uint8_t* ip = p.header.data() + at.ip;
  if (at.v4) set_ipv4_ttl(ip, static_cast<std::uint8_t>(ipv4_ttl(ip) - 1));
  else set_ipv6_hop_limit(ip, static_cast<std::uint8_t>(ipv6_hop_limit(ip) - 1));
  store_crc32(p.fcs.data(), packet_fcs(p));
}

std::uint8_t frame_priority(const std::uint8_t* frame, std::size_t len) {
  const auto eth = decode_ethernet_header(frame, len);
  if (!eth) return 0;
  if (eth->vlan) return eth->vlan->pcp & 7;
  const IpAt at = locate_ip(frame, len);
  if (!at.ok) return 0;
  // IPv4: the ToS byte is byte 1; IPv6: the traffic class spans bytes 0-1 (bits 11-4).
  const std::uint8_t tc = at.v4 ? frame[at.ip + 1]
                                : static_cast<std::uint8_t>((frame[at.ip] & 0x0F) << 4 | frame[at.ip + 1] >> 4);
  return traffic_class_dscp(tc) >> 3;
}

}  // namespace ibfsim
