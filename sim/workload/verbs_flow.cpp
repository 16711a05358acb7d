// A verbs flow's state (verbs_flow.h): its two sides, their buffer layout (message and receive
// slots) and when it is done.
#include "sim/workload/verbs_flow.h"

#include <algorithm>

#include "sim/workload/message_pattern.h"

namespace ibfsim {

using namespace verbs;

VerbsFlow::VerbsFlow(const VerbsFlowSpec& spec, std::size_t index, Hca& from, Hca& to, const HcaConfig& from_model,
                     const HcaConfig& to_model, bool data_check, Time begin, VerbsFlowOwner& owner)
    : spec_(spec), index_(index), data_check_(data_check), begin_(begin), owner_(owner), traffic_begin_(begin) {
  sides_[0].hca = &from;
  sides_[0].wire_to_completion = from_model.wire_to_completion;
  sides_[1].hca = &to;
  sides_[1].wire_to_completion = to_model.wire_to_completion;
  if (spec.window) window_.emplace();
}

bool VerbsFlow::ping_pong() const { return lat() && (verb_is_send(spec_.verb) || verb_is_write(spec_.verb)); }

std::uint32_t VerbsFlow::slots() const { return data_check_ && !lat() ? spec_.tx_depth : 1; }

std::uint32_t VerbsFlow::rslots() const {
  const std::uint64_t want = spec_.duration ? spec_.rx_depth : std::min<std::uint64_t>(spec_.rx_depth, spec_.iterations);
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, want));
}

std::uint32_t VerbsFlow::recv_head() const { return spec_.type == IBV_QPT_UD ? kUdRecvGrhRoom : 0; }

std::uint32_t VerbsFlow::recv_slot_bytes() const { return spec_.message_size + recv_head(); }

std::uint64_t VerbsFlow::key(int side) const { return pattern_mix((index_ + 1) * 0x9E3779B97F4A7C15ull + side); }

std::vector<std::pair<const Hca*, Qpn>> VerbsFlow::watched_qps() const {
  // WRITE ping-pong: a side sees the peer's message in its memory; nothing completes there.
  if (!ping_pong() || spec_.verb != Verb::kWrite) return {};
  return {{sides_[0].hca, sides_[0].qp->qpn()}, {sides_[1].hca, sides_[1].qp->qpn()}};
}

bool VerbsFlow::done() const {
  if (!traffic_done()) return false;
  if (cm_ && cm_->disconnect_requested != kTimeNever)
    return cm_->disconnected[0] != kTimeNever && cm_->disconnected[1] != kTimeNever;
  return true;
}

bool VerbsFlow::traffic_done() const {
  const Side& a = sides_[0];
  const Side& b = sides_[1];
  if (window_ && window_->invalidation_posted && !window_->invalidation_done) return false;
  if (cm_ && cm_->outcome == Cm::Outcome::kPending) return false;
  if (a.sent != a.completed || b.sent != b.completed) return false;
  if (a.stopped || b.stopped) return true;
  if (ScheduledModule::now() < traffic_begin_) return false;
  if (spec_.duration ? ScheduledModule::now() < traffic_begin_ + *spec_.duration : a.sent < spec_.iterations) return false;
  if (ping_pong() && (b.sent < a.sent || a.arrived < b.sent)) return false;
  return true;
}

}  // namespace ibfsim
