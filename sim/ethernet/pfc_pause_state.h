// A port's PFC state (IEEE 802.1Qbb), as plain data the EthernetPort drives: on the receive side,
// until when each priority of its transmitter is paused by the PFC frames the far end sent, and
// for how long it has been; on the transmit side, the PFC frame waiting to leave (requests merge
// into it until it starts) and what was sent. Counters per priority:
//   xoff/xon sent and received: PFC frames with the class enabled and a time > 0 (XOFF) or 0 (XON);
//   time paused: from the receipt of an XOFF until an XON or the pause's expiry (refreshes extend
//   it), the time this port's transmitter could start no frame of that priority;
//   storms: paused intervals that lasted at least `storm_threshold` without a break (a sender held
//   that long is what a PFC storm does to its neighbours), counted once per interval when it
//   reaches the threshold at a refresh, or when it ends.
#pragma once
#include <array>
#include <cstdint>

#include "sim/core/time.h"
#include "sim/ethernet/pfc_frame.h"

namespace ibfsim {

struct PfcPortStats {
  std::array<std::uint64_t, kPfcClasses> xoff_sent{}, xon_sent{}, xoff_received{}, xon_received{}, storms{};
  std::uint64_t other_control_received = 0;  // MAC control frames that are not good PFC frames (ignored)
  std::uint64_t pause_frames_sent() const;
  std::uint64_t pause_frames_received() const;
};

class PfcPauseState {
 public:
  explicit PfcPauseState(Time storm_threshold = 100 * kUs) : storm_threshold_(storm_threshold) {}
  void set_storm_threshold(Time t) { storm_threshold_ = t; }

  // --- receive side ---
  // PFC frame `f` was received (its FCS) at `t`: each enabled priority is paused for its time
  // from t (0: resumes at t).
  void receive(const PfcFrame& f, Time t, const EthernetRate& rate);
  void other_control_frame() { ++stats_.other_control_received; }
  bool paused(unsigned prio, Time t) const { return t < until_[prio]; }
  Time paused_until(unsigned prio) const { return until_[prio]; }
  // When the current paused interval of `prio` began (refreshes do not restart it); meaningful
  // while paused.
  Time paused_since(unsigned prio) const { return start_[prio]; }
  // Total time priority `prio` has been paused up to `now`.
  Time time_paused(unsigned prio, Time now) const;

  // --- transmit side ---
  // Asks for a PFC frame setting priority `prio` to `quanta` (0: XON); merges into the waiting one.
  void request(unsigned prio, std::uint16_t quanta);
  bool pending() const { return pending_.class_enable != 0; }
  // The waiting frame, from `src`, counted as sent; nothing waits after.
  PfcFrame take(const MacAddress& src);

  const PfcPortStats& stats() const { return stats_; }

 private:
  void close_interval(unsigned prio);
  Time storm_threshold_;
  std::array<Time, kPfcClasses> until_{}, start_{}, closed_{};
  std::array<bool, kPfcClasses> storm_counted_{};
  PfcFrame pending_;
  PfcPortStats stats_;
};

}  // namespace ibfsim
