#include "sim/ethernet/pfc_ingress.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

void PfcIngress::configure(const EthernetPfcConfig& c, std::uint64_t buffer_bytes,
                           const std::vector<std::uint64_t>& headroom) {
  config_ = c;
  headroom_ = headroom;
  const std::size_t ports = headroom.size();
  states_.assign(ports * kPfcClasses, State{});
  fifo_.resize(ports);
  sending_.assign(ports, Sending{});
  if (c.lossless) {
    IBFSIM_CHECK(c.pause_quanta >= 2, "PFC: pause_quanta must be at least 2 (XOFF is refreshed every half pause)");
    IBFSIM_CHECK(c.xon_bytes <= c.xoff_bytes && c.xoff_bytes > 0,
                 fmt::format("PFC: xon_bytes ({}) must not exceed xoff_bytes ({}), which must be > 0", c.xon_bytes,
                             c.xoff_bytes));
  }
  std::uint64_t reserved_total = 0;
  for (PortNum p = 1; p <= ports; ++p) reserved_total += reserved(p);
  IBFSIM_CHECK(reserved_total <= buffer_bytes,
               fmt::format("PFC: the lossless reservations ({} bytes) exceed the switch's buffer ({} bytes)",
                           reserved_total, buffer_bytes));
  lossy_pool_ = buffer_bytes - reserved_total;
  configured_ = true;
}

std::uint64_t PfcIngress::reserved(PortNum in) const {
  unsigned n = 0;
  for (unsigned prio = 0; prio < kPfcClasses; ++prio) n += config_.on(prio);
  return n * (config_.xoff_bytes + config_.mtu_frame_bytes + headroom_[in - 1]);
}

PfcIngress::Admission PfcIngress::admit(PortNum in, std::uint8_t prio, std::uint64_t bytes) {
  Admission a;
  a.charge.in = in;
  if (!config_.on(prio)) {
    if (lossy_used_ + bytes > lossy_pool_) return a;
    lossy_used_ += bytes;
    a.admitted = true;
    return a;
  }
  State& s = state(in, prio);
  if (s.region < config_.xoff_bytes && bytes <= config_.mtu_frame_bytes) {
    s.region += bytes;
  } else if (s.headroom + bytes <= headroom_[in - 1]) {
    s.headroom += bytes;
    s.headroom_peak = std::max(s.headroom_peak, s.headroom);
    a.charge.headroom = true;
  } else {
    a.lossless_overflow = true;
    return a;
  }
  a.admitted = true;
  if (!s.xoff && s.region >= config_.xoff_bytes) {
    s.xoff = true;
    a.signal = Signal::kXoff;
  }
  return a;
}

void PfcIngress::started(PortNum out, std::uint8_t prio) {
  auto& q = fifo_[out - 1][prio];
  IBFSIM_CHECK(!q.empty(), "PfcIngress: a frame started that was never queued");
  sending_[out - 1] = Sending{q.front(), prio};
  q.pop_front();
}

PfcIngress::Release PfcIngress::left(PortNum out, std::uint64_t bytes) {
  const Sending& f = sending_[out - 1];
  Release r{f.charge.in, f.prio, Signal::kNone};
  if (!config_.on(f.prio)) {
    lossy_used_ -= bytes;
    return r;
  }
  State& s = state(f.charge.in, f.prio);
  (f.charge.headroom ? s.headroom : s.region) -= bytes;
  if (s.xoff && s.region + s.headroom <= config_.xon_bytes) {
    s.xoff = false;
    r.signal = Signal::kXon;
  }
  return r;
}

bool PfcIngress::holds(PortNum out, std::uint8_t prio, PortNum in) const {
  if (!configured_) return false;
  const RingQueue<PfcCharge>& q = fifo_[out - 1][prio];
  for (std::size_t i = 0; i < q.size(); ++i)
    if (q.at(i).in == in) return true;
  return false;
}

}  // namespace ibfsim
