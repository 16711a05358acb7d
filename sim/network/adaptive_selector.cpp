#include "sim/network/adaptive_selector.h"

#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

AdaptiveSelector::AdaptiveSelector(Switch& sw) : sw_(sw), chosen_(sw.config().num_ports, 0) {}

bool AdaptiveSelector::port_usable(PortNum out, Lid dlid) const {
  if (out < 1 || out > sw_.num_ports()) return false;
  const LinkPort& port = sw_.link(out);
  return port.connected() && port.state() == PortState::kActive && !sw_.fault_notifier().excluded(dlid, out);
}

RouteDecision AdaptiveSelector::chose(std::uint16_t group, PortNum lft_port, PortNum out, std::uint8_t out_vl) {
  if (last_.size() <= group) last_.resize(static_cast<std::size_t>(group) + 1, 0);
  last_[group] = out;
  ++stats_.adaptive;
  if (out != lft_port) ++stats_.off_static;
  ++chosen_[out - 1];
  return RouteDecision{RouteDecision::Kind::kUnicast, DropReason::kCount, out, out_vl};
}

PortNum AdaptiveSelector::any_port(PortNum in, const Packet& p, std::uint16_t group, PortNum fallback) const {
  const RoutingUnit& ru = sw_.routing_unit();
  const auto links = sw_.port_links();
  for (const PortNum out : ru.adaptive().group(group))
    if (port_usable(out, lrh_dlid(p.header.data())) && ru.unicast_to(in, out, p.header.data(), p.payload_len, links).kind == RouteDecision::Kind::kUnicast)
      return out;
  return fallback;
}

RouteDecision AdaptiveSelector::choose(PortNum in, const Packet& p, std::uint16_t group, PortNum fallback) {
  const RoutingUnit& ru = sw_.routing_unit();
  const ArTable& table = ru.adaptive();
  const std::uint8_t* lrh = p.header.data();
  const auto links = sw_.port_links();
  const PortNum lft_port = ru.lft().lookup(lrh_dlid(lrh));
  const Time gap = table.settings().flowlet_gap;
  const Time now = ScheduledModule::now();
  Flowlet* flow = nullptr;
  if (gap > 0) {
    flow = &flowlets_[static_cast<std::uint32_t>(lrh_slid(lrh)) << 16 | lrh_dlid(lrh)];
    if (flow->port != 0 && now - flow->last < gap && port_usable(flow->port, lrh_dlid(lrh))) {
      const RouteDecision kept = ru.unicast_to(in, flow->port, lrh, p.payload_len, links);
      if (kept.kind == RouteDecision::Kind::kUnicast) {
        flow->last = now;
        ++stats_.flowlet_kept;
        return chose(group, lft_port, kept.out, kept.out_vl);
      }
    }
  }
  candidates_.clear();
  candidate_vls_.clear();
  for (const PortNum out : table.group(group)) {
    if (!port_usable(out, lrh_dlid(lrh))) continue;
    const RouteDecision r = ru.unicast_to(in, out, lrh, p.payload_len, links);
    if (r.kind != RouteDecision::Kind::kUnicast) continue;
    const LinkPort& port = sw_.link(out);
    const std::uint32_t queued = sw_.queued_blocks(out, r.out_vl);
    candidates_.push_back(ArCandidate{out,
                                      ar_credit_level(port.tx_credits(r.out_vl).available(), queued,
                                                      port.far_buffer_blocks(), table.settings().credit_levels),
                                      queued, sw_.ar_congestion().penalized(lrh_dlid(lrh), out, now)});
    candidate_vls_.push_back(r.out_vl);
  }
  if (candidates_.empty()) {
    // Its ports went down while it waited: the LFT's port if it can take it, else the port it was
    // timed on (whose output then discards it, R20).
    ++stats_.fell_back;
    const RouteDecision d = ru.unicast_to(in, lft_port, lrh, p.payload_len, links);
    if (d.kind == RouteDecision::Kind::kUnicast) return d;
    const std::uint8_t vl = ru.output_vl(in, fallback, lrh_sl(lrh), sw_.link(fallback).op_vls());
    return RouteDecision{RouteDecision::Kind::kUnicast, DropReason::kCount, fallback, vl == kVl15 ? std::uint8_t{0} : vl};
  }
  const PortNum last = group < last_.size() ? last_[group] : 0;
  const std::size_t i = ar_choose(candidates_.data(), candidates_.size(), last, flow ? flow->port : 0,
                                    table.settings().flowlet_margin);
  if (flow) {
    // A flow that leaves the port a congestion notification named.
    if (flow->port != 0 && flow->port != candidates_[i].port && sw_.ar_congestion().penalized(lrh_dlid(lrh), flow->port, now)) {
      ++stats_.notified_moves;
      if (stats_.first_notified_move == kTimeNever) stats_.first_notified_move = now;
    }
    *flow = Flowlet{now, candidates_[i].port};
  }
  return chose(group, lft_port, candidates_[i].port, candidate_vls_[i]);
}

}  // namespace ibfsim
