// What an HCA port on Ethernet adds to the transport: the RoCE v2 framing of the packets its
// queue pairs build and the reading of the frames it receives. The transport itself (queue pairs,
// send and receive engines, verbs) is the same on either fabric: a QP builds an InfiniBand packet
// (LRH, [GRH], BTH, extended headers, payload, ICRC, VCRC) addressed by LID; an Ethernet port
// replaces LRH, GRH and both CRCs with Ethernet II, [802.1Q], IPv4 or IPv6, UDP, the RoCE ICRC and
// the FCS just before the frame goes on the wire, and a received frame is checked (FCS, IP, UDP,
// ICRC: parse_roce_frame) and shown to the QP as the transport headers it carries.
//
// Addresses. Each Ethernet port has a MAC and an IP address; every frame goes to its gateway's MAC
// (the leaf switch port it is cabled to: there is no ARP on a routed fabric). A QP names its peer
// as it does on InfiniBand: by the peer's LID, which on Ethernet is only a handle the fabric gives
// every host port and maps to its IP address (RoceAddressBook), or by a GID when its address
// vector is global: RoCE v2's GIDs are IPv4-mapped IPv6 addresses (::ffff:a.b.c.d), and the GRH's
// traffic class, hop limit and flow label become the IP header's DSCP/ECN, TTL and flow label.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ip_address.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/transport_packet.h"

namespace ibfsim {

// One HCA port on Ethernet.
struct RocePortConfig {
  MacAddress mac{};
  MacAddress gateway_mac{};  // the destination MAC of every frame the port sends
  IpAddress ip;
  std::uint8_t dscp = 0;      // of every frame (when the QP's address vector is not global)
  std::optional<std::uint8_t> pcp;  // 802.1Q priority: frames tagged (VLAN 0) when set
};

// Host ports of a fabric by LID and by IP address (both unique).
class RoceAddressBook {
 public:
  void add(Lid lid, const IpAddress& ip) {
    ip_of_[lid] = ip;
    lid_of_[ip.bytes] = lid;
  }
  std::optional<IpAddress> ip_of(Lid lid) const {
    const auto it = ip_of_.find(lid);
    return it == ip_of_.end() ? std::nullopt : std::optional<IpAddress>(it->second);
  }
  std::optional<Lid> lid_of(const IpAddress& ip) const {
    const auto it = lid_of_.find(ip.bytes);
    return it == lid_of_.end() ? std::nullopt : std::optional<Lid>(it->second);
  }

 private:
  std::map<Lid, IpAddress> ip_of_;
  std::map<std::array<std::uint8_t, 16>, Lid> lid_of_;
};

// RoCE v2's GID of an IP address: an IPv4 address mapped into IPv6 (::ffff:a.b.c.d), an IPv6
// address as it is.
std::array<std::uint8_t, 16> roce_gid(const IpAddress& ip);
// The IP address a RoCE v2 GID stands for.
IpAddress roce_gid_ip(const std::array<std::uint8_t, 16>& gid);

// The addressing of the RoCE frame that carries InfiniBand packet `ib` (as a QP built it) out of
// `port`: to the GRH's DGID when it has one, else to the IP address of its DLID; nullopt when the
// book knows no such LID. The UDP source port is the connection's (roce_udp_port.h): from the
// packet's source QP (`ib.src_qp`) and its DestQP.
std::optional<RoceAddressing> roce_addressing_for(const Packet& ib, const RocePortConfig& port,
                                                  const RoceAddressBook& book);

// The bytes (destination MAC .. FCS) of the RoCE v2 frame `port` sends for a QP's packet that is
// `ib_wire_bytes` long on InfiniBand without a GRH (LRH .. VCRC): the LRH (8) and VCRC (2) give
// way to Ethernet II (14, and 4 with an 802.1Q tag when the port has a PCP), IPv4 (20) or IPv6
// (40) by the port's address, UDP (8) and the FCS (4); at least the 64-byte minimum frame. What
// workloads count a packet's time on an Ethernet link by (ethernet_frame_timing.h adds the
// preamble, SFD and gap).
std::uint64_t roce_frame_bytes(const RocePortConfig& port, std::uint64_t ib_wire_bytes);

// Rewrites InfiniBand packet `p` in place as the RoCE v2 frame with the same transport headers
// and payload (build_roce_packet): Ethernet framing, new ICRC, FCS. Its bookkeeping is kept.
void reframe_as_roce(Packet& p, const RoceAddressing& a);

// The transport's view of a good RoCE frame (parse_roce_frame said ok) for a QP: the transport
// headers it carries, with an LRH that says where it came from and went to as LIDs (`slid`,
// `dlid`; the SL is the frame's priority) and, when `with_grh`, a GRH whose SGID and DGID are the
// RoCE GIDs of its IP addresses.
ParsedPacket roce_transport_view(const ParsedRoceFrame& f, Lid slid, Lid dlid, bool with_grh);

}  // namespace ibfsim
