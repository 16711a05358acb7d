// The receive engine of an HCA, shared by its ports. Once a packet's tail is in, it checks the
// packet from its bytes, in this order, and drops it with a counted reason at the first failure:
// the link layer's verdict (PHY error, EBP), VCRC, LVer and PktLen, the LIDs (R13), then
//   - VL15: QP0 takes SMPs to the permissive LID or the port (hca_management.h);
//   - the DLID (one of the port's LIDs, or a multicast group the HCA joined), the ICRC;
//   - CNPs go to congestion control, GMPs to QP1 (hca_management.h);
//   - a verbs QP takes the packet through the full transport parser (TVer, lengths, GRH, R14
//     multicast rules, P_Key R37), after its payload has crossed the host interface (receive
//     DMA, in arrival order), and the QP's own rules (queue_pair.h);
//   - anything else must be a UD SEND for a generator QP (or for none): TVer, DestQP (R2, R14),
//     the QP, its Q_Key (R36); the generator's QPs need no receive WQE and no DMA.
// A packet delivered to a QP is shown to the delivery observer, and its buffer space is freed.
// On an Ethernet port (Hca on RoCE v2) a frame is checked by parse_roce_frame (FCS, IP header and
// checksum, UDP port 4791 and length, opcode, PadCnt, ICRC), then its destination IP (the port's),
// its DestQP (a verbs QP: the traffic generator's UD QPs and CNPs are InfiniBand only) and its
// source IP (for a QP with a global path, its SGID, the IPv4-mapped source IP, is what the QP
// checks; otherwise a host the address book knows, whose LID the QP checks), and goes the way of
// a verbs packet from the transport checks on. With DCQCN (roce/hca_dcqcn.h) a CNP goes to the
// reaction point of its DestQP, and a CE-marked packet a QP takes to the notification point. FCS errors count as kVcrcError (the link
// CRC), a bad ICRC as kIcrcError, another IP as kWrongDlid, an unknown source as kInvalidLid.
#pragma once
#include <string>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/ethernet/ip_address.h"
#include "sim/link/lrh.h"
#include "sim/transport/host_interface.h"
#include "sim/transport/transport_packet.h"

namespace ibfsim {

class Hca;
class QueuePair;
class DeliveryObserver;

class ReceiveEngine {
 public:
  ReceiveEngine(Hca& hca, const HostInterfaceConfig& host, unsigned num_ports);
  // Its name in event traces: the HCA's, and the block's.
  std::string name() const;
  ReceiveEngine(const ReceiveEngine&) = delete;
  ReceiveEngine& operator=(const ReceiveEngine&) = delete;

  void set_observer(DeliveryObserver* obs) { observer_ = obs; }
  // Packets received on port n and discarded for `r` (Hca::port_discards).
  std::uint64_t discards(PortNum n, DropReason r) const { return discards_.at(n - 1)[static_cast<int>(r)]; }
  // The link layer of port n discarded `p` before it reached the HCA (PortOwner::on_link_discard).
  void link_discard(PortNum n, Packet* p, DropReason reason);

  // --- events (event.h) ---
  // The tail of packet `p` is in on port n: the checks, then delivery or a drop.
  void tail_arrives(Packet* p, PortNum n);
  // The payload of verbs packet `p` is in host memory: its QP takes it.
  void dma_done(Packet* p, PortNum n);
  // An Ethernet port: the tail of RoCE v2 frame `p` is in on port n,
  // and, after its receive DMA, its payload is in host memory.
  void roce_tail_arrives(Packet* p, PortNum n);
  void roce_dma_done(Packet* p, PortNum n);

 private:
  // QP0's SMPs (hca_management.h); dropped if not for it.
  void take_smp(PortNum n, Packet* p, Lid dlid);
  // A verbs QP's packet: transport header checks, then the receive DMA.
  void take_verbs(PortNum n, Packet* p, QueuePair& q, bool multicast);
  void deliver_verbs(PortNum n, Packet* p, const ParsedPacket& pp);
  void take_cnp(PortNum n, Packet* p);
  // Counts a delivered packet's payload against the pattern it was sent with.
  void check_payload(const Packet& p);
  // The packet reached its consumer: counted, shown to the observer, its buffer freed.
  void delivered(PortNum n, Packet* p);
  void drop(PortNum n, Packet* p, DropReason reason);
  // Frees the receive buffer space of an InfiniBand packet (Ethernet ports have no credits).
  void free_buffer(PortNum n, const Packet& p);
  // The checks of a RoCE frame up to its QP: the transport's view of it, or a drop reason.
  struct RoceArrival {
    ParsedPacket pp;
    QueuePair* q = nullptr;
    std::optional<DropReason> drop;
    bool cnp = false;  // a RoCE CNP for DestQP pp.h.bth.dest_qp (DCQCN): no QP takes it
    bool ce = false;   // marked Congestion Experienced
    IpAddress src;     // the source IP
  };
  RoceArrival check_roce(PortNum n, const Packet& p);

  Hca& hca_;
  DmaPipe dma_;  // the host interface's write direction
  DeliveryObserver* observer_ = nullptr;
  std::vector<std::array<std::uint64_t, static_cast<int>(DropReason::kCount)>> discards_;  // [port-1][reason]
  std::vector<std::uint8_t> frame_;  // a received RoCE frame's bytes, reused frame to frame
};

}  // namespace ibfsim
