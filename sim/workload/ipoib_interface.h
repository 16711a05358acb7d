// An IPoIB interface (RFC 4391; connected mode, RFC 4755, below), `ib0` on port 1 of an HCA: a UD
// QP, an IPv4 address, the partition's broadcast group and an ARP cache.
//   - start(): joins the IPv4 broadcast group of its P_Key (ipoib_header.h) with an MCMemberRecord
//     Set through its SA client, in band; the SA's answer names the MLID and Q_Key, the QP attaches
//     to the MLID (as ipoib does with ibv_attach_mcast), and the interface is up.
//   - resolve(ip): an ARP request to the broadcast group (the MLID, DestQP 0xFFFFFF); the owner of
//     the address answers with a unicast reply to the requester's QPN, at the LID the request came
//     from (its LRH SLID: the simulator does not ask the SA for a PathRecord to the requester's
//     GID, as Linux's ipoib does; on one subnet the two agree). Both sides cache the other's
//     hardware address and LID; an entry never ages. A request not answered within `arp_retry` is
//     sent again, until it is (one sent before the target's join reached the MFT is lost).
//   - send_udp(): one UDP datagram over IPv4 (at most the IPoIB MTU, no fragmentation) as a UD
//     SEND to a resolved neighbour: the IPoIB header, IPv4 and UDP headers and zero data,
//     carried as real bytes so that a capture decodes.
//   - send_tcp(): one TCP segment over IPv4 the same way (ipoib_tcp_segment.h).
//   - on_delivered(): a packet delivered to the interface's QP (unicast or broadcast): ARP is
//     handled here; an IPv4 UDP datagram is returned to the caller. on_delivered_tcp(): an IPv4
//     TCP segment for this address, returned to the caller (anything else: call on_delivered).
// Connected mode (IpoibConfig::connected_mtu nonzero; ipoib_connected_mode.h): the interface's
// hardware address offers it (flags bit 7), and an IPv4 packet to a neighbour whose address offers
// it too goes over an RC connection the node's CM agent makes, up to the connected MTU; what
// arrives over one is handed to the on_connected_* callbacks. The interface's SA client is then
// the CM agent's (one GSI client per node). ARP and the broadcast group stay on the UD QP.
// The interface lives on its HCA's calendar; it learns everything from the packets and MADs that
// reach it.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/subnet_manager/sa/sa_client.h"
#include "sim/transport/hca.h"
#include "sim/transport/ipoib/ipoib_arp.h"
#include "sim/transport/ipoib/ipoib_datagram.h"
#include "sim/transport/ipoib/ipoib_tcp_segment.h"
#include "sim/workload/ipoib_connected_mode.h"

namespace ibfsim {

using Ipv4Bytes = std::array<std::uint8_t, 4>;

struct IpoibConfig {
  Ipv4Bytes address{};
  std::uint16_t p_key = 0xFFFF;
  std::uint8_t sl = 0;
  std::uint32_t ib_mtu = 2048;  // the broadcast group's MTU, which sets the IPoIB MTU
  Time arp_retry = 10 * kUs;    // an unanswered ARP request is sent again after this
  std::uint32_t connected_mtu = 0;  // connected mode's IPoIB MTU; 0: datagram mode
  std::uint8_t packet_life_time = 0;  // connected mode: the path's PacketLifeTime code (the CM's timeouts)
};

struct IpoibStats {
  std::uint64_t arp_requests_sent = 0, arp_replies_sent = 0, arp_retries = 0;
  std::uint64_t arp_requests_received = 0, arp_replies_received = 0;
  std::uint64_t udp_sent = 0, udp_received = 0;
  // Datagrams larger than their path's MTU (a connected-mode interface's to a datagram-mode peer),
  // dropped as Linux drops them (ipoib_cm_skb_too_long; its ICMP "fragmentation needed" is not
  // modelled).
  std::uint64_t udp_too_long = 0;
  std::uint64_t tcp_sent = 0, tcp_received = 0;
  std::uint64_t dropped_not_ours = 0;  // ARP for another address, or not IPv4/ARP
  Time joined_at = kTimeNever;         // when the SA's answer to the join arrived
};

class IpoibInterface {
 public:
  // The neighbour behind an address, as ARP resolved it.
  struct Neighbour {
    IpoibHwAddress hw;
    Lid lid = 0;
  };
  // Told when the interface is up (joined) and when an address resolves.
  using Resolved = std::function<void(const Ipv4Bytes& ip)>;

  // `cm`: the node's CM agent, required in connected mode (its SA client serves the interface).
  IpoibInterface(Hca& hca, SmaShell& sma, Guid port_guid, IpoibConfig config, CmAgent* cm = nullptr);
  ~IpoibInterface();
  IpoibInterface(const IpoibInterface&) = delete;
  IpoibInterface& operator=(const IpoibInterface&) = delete;

  // Sends the broadcast group's join now (on the HCA's calendar).
  void start();
  bool up() const { return mlid_ != 0; }
  Qpn qpn() const { return qpn_; }
  const Ipv4Bytes& address() const { return config_.address; }
  // The largest IP datagram: the connected MTU in connected mode, else the IB MTU less 4.
  std::uint32_t mtu() const { return connected() ? config_.connected_mtu : ipoib_mtu(config_.ib_mtu); }
  bool connected() const { return config_.connected_mtu != 0; }
  // Whether a packet to `to` goes over a connection (both ends in connected mode).
  bool over_connection_to(const Neighbour& to) const { return cm_ && (to.hw.flags & kIpoibHwConnected); }
  // The largest IP datagram to `to`: the connected MTU over a connection, else (a datagram-mode
  // peer, or this interface in datagram mode) the UD path's, the IB MTU less 4, as Linux's
  // ipoib_send bounds it whatever the interface's own MTU.
  std::uint32_t path_mtu(const Neighbour& to) const {
    return over_connection_to(to) ? config_.connected_mtu : ipoib_mtu(config_.ib_mtu);
  }
  const IpoibConnectedMode* connected_mode() const { return cm_.get(); }
  // Connected mode: a TCP segment or a UDP datagram for this address arrived over a connection.
  void set_on_connected_tcp(std::function<void(const IpoibTcpSegment&)> f) { on_cm_tcp_ = std::move(f); }
  void set_on_connected_udp(std::function<void(const IpoibUdpDatagram&)> f) { on_cm_udp_ = std::move(f); }
  const IpoibHwAddress& hw_address() const { return hw_; }
  Lid broadcast_mlid() const { return mlid_; }

  // The neighbour at `ip`, if resolved; otherwise starts resolving it (once; at once if the
  // interface is up, else when it comes up) and returns nullptr.
  const Neighbour* resolve(const Ipv4Bytes& ip);
  void set_on_resolved(Resolved r) { on_resolved_ = std::move(r); }
  void set_on_up(std::function<void()> f) { on_up_ = std::move(f); }

  // One UDP datagram of `data_bytes` to resolved neighbour `to`; returns the packet id (0 over a
  // connection, or when dropped: larger than path_mtu(to)).
  std::uint64_t send_udp(const Neighbour& to, const IpoibUdpDatagram& d, bool measured, std::uint16_t flow,
                         Time created);

  // One TCP segment (its IP packet within the IPoIB MTU) to resolved neighbour `to`; the source
  // address and IPv4 identification are the interface's. Returns the packet id.
  std::uint64_t send_tcp(const Neighbour& to, const IpoibTcpSegment& s, bool measured, std::uint16_t flow,
                         Time created);

  // A packet the HCA delivered to this interface's QP: handles ARP (nullopt) or returns the UDP
  // datagram it carries.
  std::optional<IpoibUdpDatagram> on_delivered(const Packet& p);
  // The TCP segment for this interface's address that `p` carries, if it does.
  std::optional<IpoibTcpSegment> on_delivered_tcp(const Packet& p);

  const IpoibStats& stats() const { return stats_; }
  std::string name() const { return std::string(hca_.name()) + "/ib0"; }  // in event traces
  // Event (event.h): the ARP request for `ip` (its 4 bytes, big-endian) may need sending again.
  void arp_timeout(std::uint32_t ip);
  const std::map<Ipv4Bytes, Neighbour>& arp_cache() const { return cache_; }

 private:
  void joined(const SaMad* answer);
  void send_arp(const IpoibArp& a, Lid dlid, Qpn dest_qp);
  void send_arp_request(const Ipv4Bytes& ip);
  void learn(const IpoibArp& a, Lid lid);
  // Connected mode, to a neighbour that offers it: the packet in buf_ goes over its connection.
  bool over_connection(const Neighbour& to);
  void connected_received(const std::uint8_t* bytes, std::uint32_t len);

  Hca& hca_;
  std::unique_ptr<SaClient> own_sa_;
  SaClient* sa_ = nullptr;  // own_sa_, or the CM agent's in connected mode
  std::unique_ptr<IpoibConnectedMode> cm_;
  std::function<void(const IpoibTcpSegment&)> on_cm_tcp_;
  std::function<void(const IpoibUdpDatagram&)> on_cm_udp_;
  IpoibConfig config_;
  Qpn qpn_ = 0;
  IpoibHwAddress hw_;
  Lid mlid_ = 0;
  std::uint32_t q_key_ = kIpoibDefaultQKey;
  std::map<Ipv4Bytes, Neighbour> cache_;
  std::set<Ipv4Bytes> asked_, waiting_up_;  // requests sent; to send once up
  Resolved on_resolved_;
  std::function<void()> on_up_;
  std::vector<std::uint8_t> buf_;
  std::uint16_t next_id_ = 0;  // IPv4 identification
  IpoibStats stats_;
};

}  // namespace ibfsim
