// Congestion control of an HCA (IBA Annex A10, rule R42), both roles:
//   - as a destination, it answers a FECN-marked packet with a BECN: on the response its QP owes
//     (RC), or in a CNP (becn_responder.h, cnp.h) that goes out ahead of data, outside VL
//     arbitration, once its VL has credits;
//   - as a source, the BECNs it receives (on responses, in CNPs) raise the CCTI of the flow (per
//     QP, or per port and SL), whose inter-packet delay then holds the flow's next packet in its
//     send queue (cc_throttle.h); a timer lowers the CCTI again.
// The HCA creates this block when congestion control is first configured: until then every hook
// in the send and receive engines is one null test.
#pragma once
#include <string>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/link/port_output.h"
#include "sim/link/lrh.h"
#include "sim/transport/becn_responder.h"
#include "sim/transport/cc_throttle.h"
#include "sim/transport/transport_packet.h"

namespace ibfsim {

class Hca;
class QueuePair;

class HcaCongestionControl {
 public:
  HcaCongestionControl(Hca& hca, const CaCongestionConfig& config);
  // Its name in event traces: the HCA's, and the block's.
  std::string name() const;

  // A new configuration (CACongestionSetting, CongestionControlTable Sets).
  void set_config(const CaCongestionConfig& config) { throttle_.set_config(config); }
  const CcThrottle& throttle() const { return throttle_; }
  // Per-QP counters, by local QPN.
  const std::map<Qpn, CcQpCounters>& counters() const { return counters_; }

  // --- the source side: hooks of the send engine of port n ---
  // When packet p (built by QP p.src_qp) may start: its flow's inter-packet delay.
  Time ready_at(PortNum n, const Packet& p) const;
  // Packet p of a QP started on the wire: its flow's next packet waits the delay after it.
  void sent(PortNum n, const Packet& p);
  // Puts first in `ring` (the QPs with something to send on one VL) a QP whose next packet may go
  // now, keeping the others' order; if every QP waits for its delay, the one that may go soonest.
  void pick_front(PortNum n, std::deque<QueuePair*>& ring);
  // The send engine of port n must look again at `at`, when a held packet's delay is over.
  void wake(PortNum n, Time at);
  // CNPs waiting for port n, and sending the first one through `out` if its VL has credits.
  bool cnp_waiting(PortNum n) const { return !cnps_[n - 1].empty(); }
  bool transmit_cnp(PortNum n, PortOutput& out);
  std::size_t queued_cnps() const;

  // --- the destination side: hooks of the receive engine ---
  // A CNP to QP `dest_qp` arrived on port n on SL `sl`: a BECN for that QP's flow.
  void on_cnp(PortNum n, Qpn dest_qp, std::uint8_t sl);
  // A generator QP `local` accepted a FECN-marked UD SEND (LRH `lrh`, BTH `bth`) from QP
  // `src_qp`: it owes no response, so the BECN goes back in a CNP.
  void answer_datagram_fecn(PortNum n, Qpn local, const Lrh& lrh, const Bth& bth, Qpn src_qp);
  // Verbs QP q (number `qpn`) took packet `pp`, which carries a BECN or a FECN: a BECN throttles
  // the QP; a FECN is answered on the response the QP owes (`response`: pp is itself a response,
  // which owes nothing), or with a CNP.
  void on_verbs_packet(PortNum n, Qpn qpn, QueuePair& q, const ParsedPacket& pp, bool response);

  // --- events (event.h) ---
  // The CCTI timer of throttle `key` expired.
  void timer_expired(std::uint32_t key);
  // A delay that held a packet on port n is over: its send engine looks again.
  void delay_over(PortNum n);

 private:
  CcThrottle::Key key(PortNum n, const Packet& p) const;
  void on_becn(PortNum n, Qpn qpn, std::uint8_t sl);
  void send_cnp(PortNum n, const CnpFields& f);

  Hca& hca_;
  CcThrottle throttle_;
  std::map<Qpn, CcQpCounters> counters_;
  std::vector<Time> wake_at_;              // per port: the pending delay_over
  std::vector<std::deque<Packet*>> cnps_;  // per port: CNPs to send, ahead of data
};

}  // namespace ibfsim
