// DCQCN in an HCA whose ports are Ethernet (HcaConfig::dcqcn), both roles:
//   - notification point: a CE-marked RoCE packet taken by one of its QPs makes a CNP
//     (roce_cnp.h) to the QP that sent it, unless that QP's last CNP went less than N ago
//     (dcqcn_notification_point.h); CNPs go out ahead of data, Not-ECT, with the CNP DSCP;
//   - reaction point: a CNP to one of its QPs creates or cuts that QP's rate
//     (dcqcn_reaction_point.h), and while the QP is limited its packets are spaced at that rate:
//     the next may start once the previous one's line time (preamble, frame, gap) at the current
//     rate has passed since its start. The alpha and rate-increase timers are events on the HCA's
//     calendar, scheduled only while some QP is limited.
// Data frames of an HCA with DCQCN are sent ECN-capable (ECT(0)), as ConnectX does on a priority
// with RoCE congestion control on. The send and receive engines call the hooks below; with DCQCN
// off every hook is one null test.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/ethernet/ip_address.h"
#include "sim/transport/roce/dcqcn_config.h"
#include "sim/transport/roce/dcqcn_notification_point.h"
#include "sim/transport/roce/dcqcn_reaction_point.h"

namespace ibfsim {

class Hca;
class QueuePair;

class HcaDcqcn {
 public:
  HcaDcqcn(Hca& hca, const DcqcnConfig& config);
  HcaDcqcn(const HcaDcqcn&) = delete;
  HcaDcqcn& operator=(const HcaDcqcn&) = delete;
  // Its name in event traces: the HCA's, and the block's.
  std::string name() const;
  const DcqcnConfig& config() const { return config_; }

  // --- the reaction point: hooks of the send engines ---
  // The earliest start of QP `qp`'s next packet (0: not limited).
  Time ready_at(Qpn qp) const {
    const auto it = flows_.find(qp);
    return it == flows_.end() ? 0 : it->second.ready_at;
  }
  // Packet p of QP p.src_qp (a RoCE frame) started on port n at `start`.
  void sent(PortNum n, const Packet& p, Time start);
  // Puts first in `ring` a QP whose next packet may go now, keeping the others' order; if every
  // QP waits for its rate, the one that may go soonest.
  void pick_front(std::deque<QueuePair*>& ring) const;
  // Port n's send engine must look again at `at`, when a held packet may go.
  void wake(PortNum n, Time at);

  // --- CNPs out (the send engine's Ethernet output, when the port is idle) ---
  bool transmit_cnp(PortNum n);
  std::size_t queued_cnps() const;

  // --- the notification point and CNPs in: hooks of the receive engine ---
  // QP q took a CE-marked packet on port n from (`src_ip`, QP `src_qp`).
  void on_ce_marked(PortNum n, const QueuePair& q, const IpAddress& src_ip, Qpn src_qp);
  // A CNP to local QP `dest_qp` arrived on port n.
  void on_cnp(PortNum n, Qpn dest_qp);

  // --- events (event.h) ---
  void alpha_timer(Qpn qp);
  void increase_timer(Qpn qp);
  // A rate delay that held a packet on port n is over: its send engine looks again.
  void delay_over(PortNum n);

  // --- state, for statistics and tests ---
  // QP qp's reaction point; nullptr before its first CNP.
  const DcqcnReactionPoint* reaction_point(Qpn qp) const {
    const auto it = flows_.find(qp);
    return it == flows_.end() ? nullptr : &it->second.rp;
  }
  // QP qp's current rate: the line rate of port n while not limited.
  std::uint64_t rate_bps(Qpn qp, PortNum n = 1) const;
  const DcqcnNotificationPoint& notification_point() const { return np_; }
  struct Counters {
    std::uint64_t cnps_sent = 0;      // CNPs put on the wire
    std::uint64_t cnps_received = 0;  // CNPs to a QP of this HCA
    std::uint64_t cnps_no_qp = 0;     // CNPs to a QP it does not have (ignored)
    std::uint64_t paced_packets = 0;  // packets sent while their QP was limited
  };
  const Counters& counters() const { return counters_; }
  // Every QP that has received a CNP, by QPN, with its reaction point.
  template <class F>
  void for_each_reaction_point(F f) const {
    for (const auto& [qp, flow] : flows_) f(qp, flow.rp);
  }

 private:
  struct Flow {
    Flow(const DcqcnConfig& c, std::uint64_t line) : rp(c, line) {}
    DcqcnReactionPoint rp;
    Time ready_at = 0;
    Time alpha_scheduled = kTimeNever;     // the pending alpha_timer event
    Time increase_scheduled = kTimeNever;  // the pending increase_timer event
  };
  std::uint64_t line_rate_bps(PortNum n) const;
  // Schedules the flow's timers whose deadlines have no event yet.
  void arm(Qpn qp, Flow& f);

  Hca& hca_;
  DcqcnConfig config_;
  DcqcnNotificationPoint np_;
  std::map<Qpn, Flow> flows_;              // by local QPN, from the QP's first CNP
  std::vector<Time> wake_at_;              // per port: the pending delay_over
  std::vector<std::deque<Packet*>> cnps_;  // per port: CNPs to send, ahead of data
  Counters counters_;
};

}  // namespace ibfsim
