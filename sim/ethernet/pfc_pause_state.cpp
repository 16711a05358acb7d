#include "sim/ethernet/pfc_pause_state.h"

#include <algorithm>

namespace ibfsim {

std::uint64_t PfcPortStats::pause_frames_sent() const {
  std::uint64_t n = 0;
  for (unsigned i = 0; i < kPfcClasses; ++i) n += xoff_sent[i] + xon_sent[i];
  return n;
}

std::uint64_t PfcPortStats::pause_frames_received() const {
  std::uint64_t n = 0;
  for (unsigned i = 0; i < kPfcClasses; ++i) n += xoff_received[i] + xon_received[i];
  return n;
}

void PfcPauseState::close_interval(unsigned prio) {
  const Time len = until_[prio] - start_[prio];
  closed_[prio] += len;
  if (len >= storm_threshold_ && len > 0 && !storm_counted_[prio]) ++stats_.storms[prio];
}

void PfcPauseState::receive(const PfcFrame& f, Time t, const EthernetRate& rate) {
  for (unsigned prio = 0; prio < kPfcClasses; ++prio) {
    if (!f.enabled(prio)) continue;
    const std::uint16_t q = f.quanta[prio];
    ++(q ? stats_.xoff_received : stats_.xon_received)[prio];
    if (paused(prio, t)) {
      until_[prio] = t + pause_quanta_time(rate, q);  // a refresh extends it, an XON ends it now
    } else {
      close_interval(prio);  // the previous one (empty if there was none)
      start_[prio] = until_[prio] = t;
      storm_counted_[prio] = false;
      until_[prio] = t + pause_quanta_time(rate, q);
    }
    if (until_[prio] == t) {  // over: count it now if it was a storm
      close_interval(prio);
      start_[prio] = until_[prio];
      storm_counted_[prio] = false;
    } else if (!storm_counted_[prio] && t - start_[prio] >= storm_threshold_) {
      ++stats_.storms[prio];
      storm_counted_[prio] = true;
    }
  }
}

Time PfcPauseState::time_paused(unsigned prio, Time now) const {
  const Time end = std::min(until_[prio], now);
  return closed_[prio] + (end > start_[prio] ? end - start_[prio] : 0);
}

void PfcPauseState::request(unsigned prio, std::uint16_t quanta) {
  pending_.class_enable = static_cast<std::uint8_t>(pending_.class_enable | 1u << prio);
  pending_.quanta[prio] = quanta;
}

PfcFrame PfcPauseState::take(const MacAddress& src) {
  PfcFrame f = pending_;
  f.src = src;
  for (unsigned prio = 0; prio < kPfcClasses; ++prio)
    if (f.enabled(prio)) ++(f.quanta[prio] ? stats_.xoff_sent : stats_.xon_sent)[prio];
  pending_ = PfcFrame{};
  return f;
}

}  // namespace ibfsim
