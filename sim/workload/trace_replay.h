// Replays an MPI trace (`trace:`, trace_replay_spec.h) through the HCAs' verbs API, following its
// plan (mpi_replay_plan.h): each rank computes for a step's gap, exactly the trace's, then posts
// the step's messages; the step is done when every send it waits for (its own, if blocking, or a
// non-blocking one's it completes) is acknowledged and every message it awaits has arrived, and
// the next gap starts then.
//
// Messages are RC SENDs with immediate (the immediate is the message's id in the plan): RC because
// MPI's point-to-point is reliable and ordered, as an MPI library's InfiniBand transport gives it
// (UD would need the replay to segment, retransmit and reorder). Between each two ranks that
// exchange messages one QP at each end, connected at time 0, with receives posted ahead for every
// message the peer will send (up to a depth, renewed as they complete): an eager protocol, so a
// blocking send never waits for its receiver's call. Payload bytes are not carried.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/fabric/host_fabric.h"
#include "sim/transport/hca.h"
#include "sim/workload/trace_replay_spec.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// What each rank did (for the results).
struct TraceReplayRank {
  std::string host;
  std::uint64_t messages_sent = 0, bytes_sent = 0;          // send completions (acknowledged)
  std::uint64_t messages_received = 0, bytes_received = 0;  // receive completions
  // The trace's own point-to-point messages among them (the rest are collectives' pieces).
  std::uint64_t point_to_point_sent = 0, point_to_point_bytes_sent = 0;
  std::uint64_t point_to_point_received = 0, point_to_point_bytes_received = 0;
  std::uint64_t error_completions = 0;
  std::vector<Time> posted, completed;  // by step: when it posted (after its gap) and completed
  Time end = 0;                         // its last step's completion (from the replay's start)
  bool done = false;
};

class TraceReplay {
 public:
  TraceReplay(const TraceReplaySpec& spec, HostFabric& fabric, VerbsFlowOwner& owner);
  ~TraceReplay();
  TraceReplay(const TraceReplay&) = delete;
  TraceReplay& operator=(const TraceReplay&) = delete;

  // QPs, memory and connections now (elaboration); the ranks start at `begin`.
  void setup(Time begin);
  const TraceReplaySpec& spec() const { return spec_; }
  const ReplayPlan& plan() const { return *spec_.plan; }
  static const char* name() { return "trace_replay"; }  // in event traces
  bool done() const { return done_ranks_ == ranks_.size(); }
  Time begin() const { return begin_; }
  const std::vector<TraceReplayRank>& results() const { return results_; }
  // The replay's length: from the start to the last rank's last completion.
  Time duration() const;
  // A few lines for the run's summary: per rank messages and bytes, and the lengths compared.
  std::string summary() const;
  // Across MPI ranks the replay runs on its hosts' MPI rank only (they share a partition); the
  // others' copies never ran and take in its ranks' results from there (run_rank_tallies.cpp).
  void take_in_results(std::vector<TraceReplayRank> results);

  // --- events (event.h) ---
  // Rank r's gap before its current step is over: it posts the step.
  void step_due(std::uint32_t r);

 private:
  struct Rank;
  struct Listener : CompletionListener {
    TraceReplay* replay = nullptr;
    std::uint32_t rank = 0;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };

  void connect_pair(std::uint32_t a, std::uint32_t b);
  // Rank r's current step starts its gap at `from` (or, past its last step, the rank is done).
  void start_step(std::uint32_t r, Time from);
  void check_step(std::uint32_t r);
  void on_send_completion(std::uint32_t r, const verbs::ibv_wc& wc);
  void on_recv_completion(std::uint32_t r, const verbs::ibv_wc& wc);

  TraceReplaySpec spec_;
  HostFabric& fabric_;
  VerbsFlowOwner& owner_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::vector<TraceReplayRank> results_;
  std::vector<std::uint8_t> arrived_;  // by message
  std::vector<std::uint8_t> acked_;    // by message: its send completed
  std::size_t done_ranks_ = 0;
  Time begin_ = 0;
};

}  // namespace ibfsim
