// An Ethernet switch's buffer accounting with PFC (IEEE 802.1Qbb), as plain data the
// EthernetSwitch drives: every frame's bytes are charged to its ingress port and priority from
// its head until its last byte has left by its output.
//
// Lossy priorities share one pool: the buffer less every lossless reservation; a lossy frame that
// finds it full is dropped (kBufferFull), as without PFC (with no lossless priority the pool is the
// whole buffer). Each (ingress port, lossless priority) has its own reservation, never shared:
//   the threshold region: frames are charged to it while it holds less than xoff_bytes (the frame
//   that crosses it may overshoot by up to one frame: mtu_frame_bytes); when it reaches xoff_bytes
//   the port sends XOFF for that priority;
//   the headroom (headroom_bytes of that port, pfc_headroom.h): what still arrives after XOFF.
// A lossless frame that fits in neither is a failure of the run (the headroom was too small), not
// a drop. When the region and the headroom together fall to xon_bytes or below, the port sends XON.
// While XOFF holds, it is sent again every half pause (a pause that expired would let the sender go).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/ring_queue.h"
#include "sim/core/time.h"
#include "sim/ethernet/pfc_frame.h"

namespace ibfsim {

// An Ethernet switch's PFC configuration (EthernetSwitchConfig::pfc). Off by default.
struct EthernetPfcConfig {
  std::uint8_t lossless = 0;          // bit p: priority p is lossless (PFC); 0: PFC off
  std::uint64_t xoff_bytes = 32 * 1024;  // per (ingress port, lossless priority)
  std::uint64_t xon_bytes = 16 * 1024;   // <= xoff_bytes
  // Per (ingress port, lossless priority), above the threshold region; 0: pfc_headroom of the
  // port's cable with mtu_frame_bytes and response_time (EthernetSwitch::pfc_headroom reports it).
  std::uint64_t headroom_bytes = 0;
  // The largest frame (MAC .. FCS): a 4,096-byte payload behind the longest headers a Packet holds
  // (118) with ICRC and FCS.
  std::uint64_t mtu_frame_bytes = 4096 + 118 + 8;
  Time response_time = 0;             // the paused sender's, for the headroom (pfc_headroom.h)
  std::uint16_t pause_quanta = 0xFFFF;  // of every XOFF
  Time storm_threshold = 100 * kUs;   // PfcPauseState: a paused interval this long is a storm
  bool on(unsigned prio) const { return (lossless >> prio & 1) != 0; }
};

// What one frame was charged to (given back when it leaves).
struct PfcCharge {
  PortNum in = 0;
  bool headroom = false;
};

class PfcIngress {
 public:
  enum class Signal : std::uint8_t { kNone, kXoff, kXon };
  struct Admission {
    bool admitted = false;
    bool lossless_overflow = false;  // a lossless frame fit nowhere: a failure of the run
    PfcCharge charge;
    Signal signal = Signal::kNone;
  };

  PfcIngress() = default;
  // `headroom[port-1]`: each port's headroom per lossless priority. Throws when the buffer cannot
  // hold every reservation.
  void configure(const EthernetPfcConfig& c, std::uint64_t buffer_bytes, const std::vector<std::uint64_t>& headroom);
  bool configured() const { return configured_; }

  // A frame of `bytes` of priority `prio` arrives at port `in` (its head).
  Admission admit(PortNum in, std::uint8_t prio, std::uint64_t bytes);
  // It is queued at output `out` (in the switch's queue order).
  void queued(PortNum out, std::uint8_t prio, PfcCharge c) { fifo_[out - 1][prio].push_back(c); }
  // The front frame of that queue starts on its output.
  void started(PortNum out, std::uint8_t prio);
  // The frame output `out` sent, of `bytes`, has left: its ingress may now signal XON.
  struct Release {
    PortNum in = 0;
    std::uint8_t prio = 0;
    Signal signal = Signal::kNone;
  };
  Release left(PortNum out, std::uint64_t bytes);

  bool xoff(PortNum in, std::uint8_t prio) const { return state(in, prio).xoff; }
  // Bytes charged to (in, prio): threshold region + headroom.
  std::uint64_t ingress_bytes(PortNum in, std::uint8_t prio) const {
    return state(in, prio).region + state(in, prio).headroom;
  }
  // Whether output `out`'s queue of `prio` holds a frame charged to ingress port `in` (the
  // wait-for graph of a PFC deadlock, fabric/pfc_deadlock_detector.h).
  bool holds(PortNum out, std::uint8_t prio, PortNum in) const;
  std::uint64_t headroom_peak(PortNum in, std::uint8_t prio) const { return state(in, prio).headroom_peak; }
  std::uint64_t lossy_pool() const { return lossy_pool_; }
  std::uint64_t reserved(PortNum in) const;

 private:
  struct State {
    std::uint64_t region = 0, headroom = 0, headroom_peak = 0;
    bool xoff = false;
  };
  State& state(PortNum in, std::uint8_t prio) { return states_[(in - 1) * kPfcClasses + prio]; }
  const State& state(PortNum in, std::uint8_t prio) const { return states_[(in - 1) * kPfcClasses + prio]; }

  EthernetPfcConfig config_;
  bool configured_ = false;
  std::vector<std::uint64_t> headroom_;
  std::uint64_t lossy_pool_ = 0, lossy_used_ = 0;
  std::vector<State> states_;
  std::vector<std::array<RingQueue<PfcCharge>, kPfcClasses>> fifo_;  // [out-1][prio]
  struct Sending {
    PfcCharge charge;
    std::uint8_t prio = 0;
  };
  std::vector<Sending> sending_;  // [out-1]: the frame on the output's line
};

}  // namespace ibfsim
