// The source side of InfiniBand congestion control (IBA Vol1 Annex A10, rule R42): a congestion
// control index (CCTI) per QP, or per port and SL (CACongestionSetting.Port_Control bit 0), that
// each BECN raises by CCTI_Increase (up to the table's CCTI_Limit) and each expiry of the
// CCTI_Timer (units of 1.024 us) lowers by 1 (down to CCTI_Min). The CongestionControlTable entry
// of the CCTI spaces the flow's packets (congestion_control_table.h).
//
// The timer is event-driven: it runs only while the CCTI is above CCTI_Min. A BECN that finds it
// stopped starts it (first expiry one period later); a BECN while it runs does not restart it
// (hfi1 does the same); an expiry that leaves the CCTI above the minimum sets the next one.
// CCTI_Timer 0 means the index never decreases. A flow starts at CCTI_Min, so a minimum above 0
// caps its rate from its first packet (OpenSM: "imposes a minimum ... on the injection rate").
// Pure logic: the HCA owns time and events.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/symbol_clock.h"
#include "sim/core/time.h"
#include "sim/transport/congestion_control_table.h"

namespace ibfsim {

constexpr Time kCctiTimerUnit = 1024 * kNs;  // 1.024 us [K], the unit OpenSM and hfi1 use

// One SL's CACongestionEntry.
struct CaCongestionEntry {
  std::uint16_t ccti_timer = 0;
  std::uint8_t ccti_increase = 0;
  std::uint8_t trigger_threshold = 0;
  std::uint8_t ccti_min = 0;
};

// What a CA port runs with (set through CACongestionSetting and CongestionControlTable MADs).
struct CaCongestionConfig {
  bool per_sl = false;  // Port_Control bit 0: per port and SL; else per QP (each QP uses its SL's entry)
  std::array<CaCongestionEntry, 16> sl{};
  CongestionControlTable cct;
};

class CcThrottle {
 public:
  // Per QP: the QPN. Per SL: this bit, the port (bits 11-4) and the SL (bits 3-0).
  using Key = std::uint32_t;
  static constexpr Key kSlKey = 0x80000000u;

  struct State {
    std::uint16_t ccti = 0;
    std::uint8_t sl = 0;            // whose CACongestionEntry applies
    Time ready_at = 0;              // the earliest start of the flow's next packet
    Time timer_at = kTimeNever;     // next CCTI_Timer expiry; kTimeNever while stopped
    std::uint16_t max_ccti = 0;
    std::uint64_t becns = 0;            // BECNs taken (on ACKs or in CNPs)
    std::uint64_t timer_decrements = 0;
    std::uint64_t trigger_events = 0;   // times the CCTI reached Trigger_Threshold
    std::uint64_t delayed_packets = 0;  // packets sent with a non-zero delay after them
  };

  explicit CcThrottle(CaCongestionConfig config) : config_(std::move(config)) {}
  const CaCongestionConfig& config() const { return config_; }
  // A new configuration (a Set MAD): CCTIs are kept, capped at the new limit.
  void set_config(CaCongestionConfig config);

  Key key(Qpn qp, PortNum port, std::uint8_t sl) const { return key_of(config_.per_sl, qp, port, sl); }
  // The same from the configuration's per_sl alone (before any configuration arrived).
  static Key key_of(bool per_sl, Qpn qp, PortNum port, std::uint8_t sl) {
    return per_sl ? (kSlKey | (Key{port} << 4) | (sl & 15u)) : qp;
  }

  // A BECN for `key`'s flow (on SL `sl`) at `now`. Returns when the CCTI_Timer must fire if this
  // BECN started it; nullopt if it was already running or does not run.
  std::optional<Time> on_becn(Key key, std::uint8_t sl, Time now);
  // The timer of `key` fired at `now`. Returns its next expiry if it keeps running.
  std::optional<Time> on_timer(Key key, Time now);

  // The earliest time the next packet of `key` may start (0: no state, no limit).
  Time ready_at(Key key) const {
    auto it = states_.find(key);
    return it == states_.end() ? 0 : it->second.ready_at;
  }
  // A packet of `key`'s flow (on SL `sl`) started on edge `start_edge` of `clock` and takes `edges`:
  // the next one may start IPD edges after its end. Returns the IPD in edges.
  std::uint64_t sent(Key key, std::uint8_t sl, std::uint64_t start_edge, std::uint64_t edges, const SymbolClock& clock);

  std::uint16_t ccti(Key key) const {
    auto it = states_.find(key);
    return it == states_.end() ? 0 : it->second.ccti;
  }
  const State* state(Key key) const {
    auto it = states_.find(key);
    return it == states_.end() ? nullptr : &it->second;
  }
  const std::map<Key, State>& states() const { return states_; }
  std::uint16_t ccti_min(std::uint8_t sl) const { return std::min<std::uint16_t>(config_.sl[sl & 15].ccti_min, config_.cct.ccti_limit); }

 private:
  State& state_of(Key key, std::uint8_t sl);  // created at the SL's CCTI_Min

  CaCongestionConfig config_;
  std::map<Key, State> states_;
};

}  // namespace ibfsim
