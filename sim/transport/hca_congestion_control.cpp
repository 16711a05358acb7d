#include "sim/transport/hca_congestion_control.h"

#include "sim/link/credit_counter.h"
#include "sim/transport/cnp.h"
#include "sim/transport/hca.h"
#include "sim/transport/ready_queue_pair.h"

namespace ibfsim {

HcaCongestionControl::HcaCongestionControl(Hca& hca, const CaCongestionConfig& config)
    : hca_(hca), throttle_(config), wake_at_(hca.num_ports(), kTimeNever), cnps_(hca.num_ports()) {}

// --- the source side ---

CcThrottle::Key HcaCongestionControl::key(PortNum n, const Packet& p) const {
  return throttle_.key(p.src_qp, n, lrh_sl(p.header.data()));
}

Time HcaCongestionControl::ready_at(PortNum n, const Packet& p) const { return throttle_.ready_at(key(n, p)); }

void HcaCongestionControl::sent(PortNum n, const Packet& p) {
  const LinkPort& port = hca_.link(n);
  throttle_.sent(key(n, p), lrh_sl(p.header.data()), port.clock().cycle_at_or_after(p.injected),
                 port.symbols_for(p.wire_bytes()), port.clock());
}

void HcaCongestionControl::pick_front(PortNum n, std::deque<QueuePair*>& ring) {
  bring_ready_qp_to_front(ring, hca_.now(), [this, n](const QueuePair& q) {
    return throttle_.ready_at(throttle_.key(q.qpn(), n, q.attr().ah_attr.sl));
  });
}

void HcaCongestionControl::wake(PortNum n, Time at) {
  if (at >= wake_at_[n - 1]) return;  // an earlier wake is pending
  wake_at_[n - 1] = at;
  hca_.schedule<&HcaCongestionControl::delay_over>(at, this, n);
}

void HcaCongestionControl::on_becn(PortNum n, Qpn qpn, std::uint8_t sl) {
  const CcThrottle::Key k = throttle_.key(qpn, n, sl);
  if (auto at = throttle_.on_becn(k, sl, hca_.now())) hca_.schedule<&HcaCongestionControl::timer_expired>(*at, this, k);
}

void HcaCongestionControl::timer_expired(std::uint32_t k) {
  if (auto next = throttle_.on_timer(static_cast<CcThrottle::Key>(k), hca_.now()))
    hca_.schedule<&HcaCongestionControl::timer_expired>(*next, this, k);
}

void HcaCongestionControl::delay_over(PortNum n) {
  if (wake_at_[n - 1] <= hca_.now()) wake_at_[n - 1] = kTimeNever;
  hca_.engine(n).try_send();
}

// --- CNPs ---

void HcaCongestionControl::send_cnp(PortNum n, const CnpFields& f) {
  Packet* p = hca_.pool().acquire();
  hca_.stamp_new_packet(*p);
  p->measured = false;
  p->flow = 0;
  p->src_qp = 0;  // a CNP is never throttled
  build_cnp(*p, f);
  hca_.ledger().created();
  SendEngine& engine = hca_.engine(n);
  if (f.vl == kVl15 || f.vl >= hca_.link(n).op_vls()) return engine.drop_unsent(p, DropReason::kSlToVlDrop);
  cnps_[n - 1].push_back(p);
  engine.try_send();
}

// CNPs go ahead of data (they are what lets the congestion clear), each when its VL has credits.
bool HcaCongestionControl::transmit_cnp(PortNum n, PortOutput& out) {
  auto& q = cnps_[n - 1];
  if (q.empty()) return false;
  Packet* p = q.front();
  const std::uint8_t vl = lrh_vl(p->header.data());
  if (!out.port().may_send(vl, credits_for_bytes(p->wire_bytes()))) return false;  // on_credits retries
  q.pop_front();
  p->injected = out.send(p);  // outside VL arbitration, like management traffic
  hca_.ledger().injected();
  if (SendObserver* o = hca_.send_observer()) o->on_injected(hca_, *p);
  return true;
}

std::size_t HcaCongestionControl::queued_cnps() const {
  std::size_t n = 0;
  for (const auto& q : cnps_) n += q.size();
  return n;
}

// --- the destination side ---

void HcaCongestionControl::on_cnp(PortNum n, Qpn dest_qp, std::uint8_t sl) {
  if (!hca_.verbs_resources().find(dest_qp)) return;
  ++counters_[dest_qp].cnp_received;
  on_becn(n, dest_qp, sl);
}

void HcaCongestionControl::answer_datagram_fecn(PortNum n, Qpn local, const Lrh& lrh, const Bth& bth, Qpn src_qp) {
  CcQpCounters& c = counters_[local];
  ++c.fecn_received;
  ++c.cnp_sent;
  send_cnp(n, cnp_for(lrh, std::nullopt, bth, src_qp, hca_.lid(n), hca_.sl_to_vl(n, lrh.sl), hca_.port_grh_source(n).sgid));
}

void HcaCongestionControl::on_verbs_packet(PortNum n, Qpn qpn, QueuePair& q, const ParsedPacket& pp, bool response) {
  if (pp.h.bth.becn) {
    ++counters_[qpn].becn_received;
    on_becn(n, qpn, pp.h.lrh.sl);
  }
  if (!pp.h.bth.fecn) return;
  CcQpCounters& c = counters_[qpn];
  ++c.fecn_received;
  if (becn_carrier(!response && q.carry_becn()) == BecnCarrier::kResponse) {
    ++c.becn_on_response;
    return;
  }
  ++c.cnp_sent;
  const Qpn source = (pp.ext & kExtDeth) ? pp.h.deth.src_qp : q.attr().dest_qp_num;
  send_cnp(n, cnp_for(pp.h.lrh, pp.h.grh, pp.h.bth, source, hca_.lid(n), hca_.sl_to_vl(n, pp.h.lrh.sl),
                      hca_.port_grh_source(n).sgid));
}

std::string HcaCongestionControl::name() const { return std::string(hca_.name()) + "/cc"; }

}  // namespace ibfsim
