// A PFC deadlock found while a RoCE run goes on: a cycle of switch egress ports, each paused by the
// PFC frames of the next switch, whose ingress holds frames that wait for the next paused egress
// of the cycle. Such a cycle never resolves by itself (every XOFF is refreshed while its ingress
// holds the frames): the run stops and names it.
//
// The wait-for graph (a pure function, pfc_wait_cycle): a vertex per (switch, egress port,
// lossless priority) that is paused, has frames of that priority queued, and has been paused
// without a break for at least the window (so it sent no frame of that priority all that time);
// an edge from egress (A, p) to egress (B, r) when B is at the far end of p's cable and B's
// ingress from that cable holds a frame queued for r. A cycle is found with the channel
// dependency graph's cycle finder (subnet_manager/routing/dependency_cycle.h).
//
// Waking: nothing while no port is paused. The first pause a switch hears of (PfcPauseWatcher)
// arms one check a window later; a check that finds no cycle re-arms itself a window later while
// some switch port is still paused, and lets go otherwise: one check per window while pauses last.
// In a run in partitions, pauses that begin before the first check each schedule one (on their
// switch, so that no thread writes another's state); those less than a window after a check do
// nothing. The window is at least the calendar's (calendar_process.h): a global event is never
// scheduled inside the running window.
// The check reads the switches' state: it is the run's monitor (like the run's observer), not a
// block of the modelled hardware, and runs as a global event.
// Across MPI ranks (core/rank_exchange.h) a global event may not be scheduled inside a window: a
// pause notes its time, and at the window's barrier every rank takes in every rank's and schedules
// the same checks (at the same times as one rank). A check runs on every rank: each reads only the
// switches it simulates (its paused egresses and what their ingresses hold), every rank receives
// every rank's, and all find the same cycle in the same wait-for graph as one rank.
#pragma once
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/ethernet/ethernet_switch.h"

namespace ibfsim {

class RoceHcaFabric;

constexpr Time kDefaultPfcDeadlockWindow = 100 * kUs;

// `waits_for[v]`: the vertices v waits for. The first cycle a depth-first search meets, in wait
// order (each waits for the next, the last for the first); empty if none.
std::vector<std::size_t> pfc_wait_cycle(const std::vector<std::vector<std::size_t>>& waits_for);

struct PfcDeadlock {
  Time detected = 0;
  unsigned priority = 0;
  std::vector<std::string> ports;  // the cycle's egress ports ("sw0/2"), each paused by the next's switch
  // "PFC deadlock at 108.6604 us: priority 3: cycle of 6 paused ports: sw0/2 -> sw1/2 -> ... -> sw0/2"
  std::string text() const;
};

// What an event throws when the detector finds a deadlock: it stops the simulation like a broken
// invariant, and the run writes its results marked with it (workload/roce_run.cpp).
class PfcDeadlockError : public SimError {
 public:
  explicit PfcDeadlockError(PfcDeadlock d) : SimError(d.text()), deadlock_(std::move(d)) {}
  const PfcDeadlock& deadlock() const { return deadlock_; }

 private:
  PfcDeadlock deadlock_;
};

class PfcDeadlockDetector final : public PfcPauseWatcher {
 public:
  // Watches every switch of `fabric`; `lossless`: the priorities PFC protects (bit p).
  PfcDeadlockDetector(RoceHcaFabric& fabric, std::uint8_t lossless, Time window = kDefaultPfcDeadlockWindow);
  PfcDeadlockDetector(const PfcDeadlockDetector&) = delete;
  PfcDeadlockDetector& operator=(const PfcDeadlockDetector&) = delete;
  ~PfcDeadlockDetector() override;

  void pause_began(EthernetSwitch& sw, PortNum port, unsigned prio) override;
  // --- event ---
  // Throws PfcDeadlockError when the wait-for graph has a cycle; re-arms while pauses last.
  void check();
  const char* name() const { return "pfc_deadlock_detector"; }
  std::size_t checks() const { return checks_; }
  // The cycle the switches' state holds now, if any (check() without the window's re-arming).
  std::optional<PfcDeadlock> find_deadlock() const;

 private:
  void arm(Time at);
  bool any_paused() const;
  // Across ranks, at a barrier: the checks the pauses of every rank's window ask for.
  void schedule_ranks_checks();
  // This rank's paused egresses of `prio` waiting a whole window (plan node, port), and for each
  // the ports of the same switch whose ingress holds frames for it, all as bytes.
  std::vector<std::uint8_t> local_wait_graph(unsigned prio, Time now) const;

  RoceHcaFabric& fabric_;
  std::uint8_t lossless_;
  Time window_;
  std::vector<std::size_t> switch_nodes_;
  // [node][port-1]: the far end's node and port (node == size: not cabled)
  std::vector<std::vector<std::pair<std::size_t, PortNum>>> peer_;
  bool armed_ = false;      // a check is due (re-armed by the last one); written in global instants only
  Time quiet_until_ = 0;    // the last check's time + the window: checks before it are redundant
  std::size_t checks_ = 0;
  std::mutex pauses_lock_;     // across ranks: pause_began runs on the partitions' threads
  std::vector<Time> pauses_;   // across ranks: the pauses heard since the last barrier
};

}  // namespace ibfsim
