#include "sim/transport/cc_throttle.h"

#include <algorithm>

namespace ibfsim {

void CcThrottle::set_config(CaCongestionConfig config) {
  config_ = std::move(config);
  for (auto& [key, s] : states_) s.ccti = std::min(s.ccti, config_.cct.ccti_limit);
}

CcThrottle::State& CcThrottle::state_of(Key key, std::uint8_t sl) {
  auto [it, fresh] = states_.try_emplace(key);
  if (fresh) {
    it->second.sl = sl & 15;
    it->second.ccti = it->second.max_ccti = ccti_min(sl);
  }
  return it->second;
}

std::optional<Time> CcThrottle::on_becn(Key key, std::uint8_t sl, Time now) {
  State& s = state_of(key, sl);
  s.sl = sl & 15;
  const CaCongestionEntry& e = config_.sl[s.sl];
  ++s.becns;
  const std::uint16_t before = s.ccti;
  s.ccti = static_cast<std::uint16_t>(std::min<unsigned>(s.ccti + e.ccti_increase, config_.cct.ccti_limit));
  s.max_ccti = std::max(s.max_ccti, s.ccti);
  if (e.trigger_threshold != 0 && before < e.trigger_threshold && s.ccti >= e.trigger_threshold) ++s.trigger_events;
  if (s.timer_at != kTimeNever || e.ccti_timer == 0 || s.ccti <= e.ccti_min) return std::nullopt;
  s.timer_at = now + e.ccti_timer * kCctiTimerUnit;
  return s.timer_at;
}

std::optional<Time> CcThrottle::on_timer(Key key, Time now) {
  auto it = states_.find(key);
  if (it == states_.end() || it->second.timer_at != now) return std::nullopt;  // stale
  State& s = it->second;
  const CaCongestionEntry& e = config_.sl[s.sl];
  s.timer_at = kTimeNever;
  if (s.ccti > e.ccti_min) {
    --s.ccti;
    ++s.timer_decrements;
  }
  if (s.ccti <= e.ccti_min || e.ccti_timer == 0) return std::nullopt;  // stops at the minimum
  s.timer_at = now + e.ccti_timer * kCctiTimerUnit;
  return s.timer_at;
}

std::uint64_t CcThrottle::sent(Key key, std::uint8_t sl, std::uint64_t start_edge, std::uint64_t edges,
                               const SymbolClock& clock) {
  auto it = states_.find(key);
  if (it == states_.end() && ccti_min(sl) == 0) return 0;  // never throttled: no state, no limit
  State& s = it != states_.end() ? it->second : state_of(key, sl);
  const std::uint64_t ipd = inter_packet_delay_edges(config_.cct.at(s.ccti), edges);
  s.ready_at = clock.time_of(start_edge + edges + ipd);
  if (ipd) ++s.delayed_packets;
  return ipd;
}

}  // namespace ibfsim
