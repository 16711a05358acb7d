// An IPoIB interface in datagram mode (RFC 4391), `ib0` on port 1 of an HCA: a UD QP, an IPv4
// address, the partition's broadcast group and an ARP cache.
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

namespace ibfsim {

using Ipv4Bytes = std::array<std::uint8_t, 4>;

struct IpoibConfig {
  Ipv4Bytes address{};
  std::uint16_t p_key = 0xFFFF;
  std::uint8_t sl = 0;
  std::uint32_t ib_mtu = 2048;  // the broadcast group's MTU, which sets the IPoIB MTU
  Time arp_retry = 10 * kUs;    // an unanswered ARP request is sent again after this
};

struct IpoibStats {
  std::uint64_t arp_requests_sent = 0, arp_replies_sent = 0, arp_retries = 0;
  std::uint64_t arp_requests_received = 0, arp_replies_received = 0;
  std::uint64_t udp_sent = 0, udp_received = 0;
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

  IpoibInterface(Hca& hca, SmaShell& sma, Guid port_guid, IpoibConfig config);

  // Sends the broadcast group's join now (on the HCA's calendar).
  void start();
  bool up() const { return mlid_ != 0; }
  Qpn qpn() const { return qpn_; }
  const Ipv4Bytes& address() const { return config_.address; }
  std::uint32_t mtu() const { return ipoib_mtu(config_.ib_mtu); }
  const IpoibHwAddress& hw_address() const { return hw_; }
  Lid broadcast_mlid() const { return mlid_; }

  // The neighbour at `ip`, if resolved; otherwise starts resolving it (once; at once if the
  // interface is up, else when it comes up) and returns nullptr.
  const Neighbour* resolve(const Ipv4Bytes& ip);
  void set_on_resolved(Resolved r) { on_resolved_ = std::move(r); }
  void set_on_up(std::function<void()> f) { on_up_ = std::move(f); }

  // One UDP datagram of `data_bytes` to resolved neighbour `to`; returns the packet id.
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

  Hca& hca_;
  std::unique_ptr<SaClient> sa_;
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
