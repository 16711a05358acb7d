#include "sim/transport/roce/hca_dcqcn.h"

#include <vector>

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/transport/hca.h"
#include "sim/transport/ready_queue_pair.h"
#include "sim/transport/roce/roce_cnp.h"
#include "sim/transport/roce/roce_packet.h"
#include "sim/transport/roce/roce_udp_port.h"

namespace ibfsim {

HcaDcqcn::HcaDcqcn(Hca& hca, const DcqcnConfig& config)
    : hca_(hca), config_(config), np_(config.min_cnp_interval), wake_at_(hca.num_ports(), kTimeNever),
      cnps_(hca.num_ports()) {
  IBFSIM_CHECK(hca.ethernet(), "DCQCN needs an HCA whose ports are Ethernet");
}

std::string HcaDcqcn::name() const { return std::string(hca_.name()) + "/dcqcn"; }

std::uint64_t HcaDcqcn::line_rate_bps(PortNum n) const {
  return std::uint64_t{hca_.ethernet_port(n).rate().info().data_gbps} * 1'000'000'000ull;
}

std::uint64_t HcaDcqcn::rate_bps(Qpn qp, PortNum n) const {
  const DcqcnReactionPoint* rp = reaction_point(qp);
  return rp ? rp->rate_bps() : line_rate_bps(n);
}

// --- the reaction point ---

namespace {
// ceil(bits x 1 s / rate) in femtoseconds, without overflow: bits x (1 s / rate) plus the rounded
// up share of the remainder (bits x remainder < bits x rate stays far below 2^64).
Time line_time(std::uint64_t bits, std::uint64_t rate_bps) {
  const std::uint64_t q = kSec / rate_bps, r = kSec % rate_bps;
  return bits * q + (bits * r + rate_bps - 1) / rate_bps;
}
}  // namespace

void HcaDcqcn::sent(PortNum, const Packet& p, Time start) {
  const auto it = flows_.find(p.src_qp);
  if (it == flows_.end()) return;
  Flow& f = it->second;
  const std::uint64_t bytes = p.wire_bytes();
  if (f.rp.limited()) {
    // The frame's whole time on the line (preamble, frame, gap) at the current rate, rounded up
    // to the femtosecond: at the line rate exactly its time on the wire, so no gap is added.
    f.ready_at = start + line_time(ethernet_wire_edges(bytes) * 8, f.rp.rate_bps());
    ++counters_.paced_packets;
  }
  f.rp.on_bytes_sent(bytes, hca_.now());
  arm(p.src_qp, f);
}

void HcaDcqcn::pick_front(std::deque<QueuePair*>& ring) const {
  bring_ready_qp_to_front(ring, hca_.now(), [this](const QueuePair& q) { return ready_at(q.qpn()); });
}

void HcaDcqcn::wake(PortNum n, Time at) {
  if (at >= wake_at_[n - 1]) return;  // an earlier wake is pending
  wake_at_[n - 1] = at;
  hca_.schedule<&HcaDcqcn::delay_over>(at, this, n);
}

void HcaDcqcn::delay_over(PortNum n) {
  if (wake_at_[n - 1] <= hca_.now()) wake_at_[n - 1] = kTimeNever;
  hca_.engine(n).try_send();
}

void HcaDcqcn::arm(Qpn qp, Flow& f) {
  const Time a = f.rp.alpha_deadline();
  if (a != kTimeNever && a != f.alpha_scheduled) {
    f.alpha_scheduled = a;
    hca_.schedule<&HcaDcqcn::alpha_timer>(a, this, qp);
  }
  const Time i = f.rp.increase_deadline();
  if (i != kTimeNever && i != f.increase_scheduled) {
    f.increase_scheduled = i;
    hca_.schedule<&HcaDcqcn::increase_timer>(i, this, qp);
  }
}

void HcaDcqcn::alpha_timer(Qpn qp) {
  const auto it = flows_.find(qp);
  if (it == flows_.end()) return;
  Flow& f = it->second;
  const Time now = hca_.now();
  if (f.alpha_scheduled == now) f.alpha_scheduled = kTimeNever;
  f.rp.on_alpha_timer(now);
  arm(qp, f);
}

void HcaDcqcn::increase_timer(Qpn qp) {
  const auto it = flows_.find(qp);
  if (it == flows_.end()) return;
  Flow& f = it->second;
  const Time now = hca_.now();
  if (f.increase_scheduled == now) f.increase_scheduled = kTimeNever;
  f.rp.on_increase_timer(now);
  arm(qp, f);
}

void HcaDcqcn::on_cnp(PortNum n, Qpn dest_qp) {
  const QueuePair* q = hca_.verbs_resources().find(dest_qp);
  if (q == nullptr) {
    ++counters_.cnps_no_qp;
    return;
  }
  ++counters_.cnps_received;
  auto it = flows_.try_emplace(dest_qp, config_, line_rate_bps(n)).first;
  it->second.rp.on_cnp(hca_.now());
  arm(dest_qp, it->second);
}

// --- the notification point ---

void HcaDcqcn::on_ce_marked(PortNum n, const QueuePair& q, const IpAddress& src_ip, Qpn src_qp) {
  if (!np_.on_ce_marked(q.qpn(), hca_.now())) return;
  const RocePortConfig& port = hca_.roce_port(n);
  RoceAddressing a;
  a.src_mac = port.mac;
  a.dst_mac = port.gateway_mac;
  if (port.pcp) a.vlan = VlanTag{*port.pcp, false, 0};
  a.src_ip = port.ip;
  a.dst_ip = src_ip;
  a.dscp = config_.cnp_dscp;
  a.ecn = ecn::kNotEct;
  a.udp_src_port = roce_udp_source_port(q.qpn(), src_qp);
  const std::vector<std::uint8_t> frame = build_roce_cnp(a, src_qp);
  Packet* p = hca_.pool().acquire();
  const RoceFrameError e = load_roce_frame(*p, frame.data(), frame.size(), hca_.carry_payload());
  IBFSIM_CHECK(e == RoceFrameError::kNone, "HcaDcqcn: a CNP that does not parse");
  hca_.stamp_new_packet(*p);
  p->measured = false;
  p->flow = 0;
  p->src_qp = 0;  // a CNP is never paced
  hca_.ledger().created();
  cnps_[n - 1].push_back(p);
  hca_.engine(n).try_send();
}

bool HcaDcqcn::transmit_cnp(PortNum n) {
  auto& q = cnps_[n - 1];
  if (q.empty()) return false;
  Packet* p = q.front();
  q.pop_front();
  p->injected = hca_.ethernet_port(n).transmit(p);
  ++counters_.cnps_sent;
  hca_.ledger().injected();
  if (SendObserver* o = hca_.send_observer()) o->on_injected(hca_, *p);
  return true;
}

std::size_t HcaDcqcn::queued_cnps() const {
  std::size_t n = 0;
  for (const auto& q : cnps_) n += q.size();
  return n;
}

}  // namespace ibfsim
