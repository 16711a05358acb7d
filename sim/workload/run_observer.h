// What a scenario run watches while it simulates (scenario_run.h): every delivery, for the traffic
// statistics (overall and per flow), the verbs flows and traffic classes that wait for them and the
// fault watches; and whether the run is over.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/report/latency_histogram.h"
#include "sim/workload/attack.h"
#include "sim/workload/nccl_collective.h"
#include "sim/workload/trace_replay.h"
#include "sim/workload/traffic_class.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// The UD traffic generator's QP: the first QP created on every HCA (verbs flows' QPs come after).
constexpr Qpn kGeneratorQpn = 0x100;

// A packet of the UD traffic generator (to its QP or to a multicast group), not of a verbs flow.
bool generator_packet(const Packet& p);

// Around each fault, per destination host: its last delivery before the fault and its first after,
// so that the gap shows which destinations the fault cut off and for how long.
struct FaultWatch {
  Time at = 0;
  std::vector<Time> last_before;  // [node]; kTimeNever: none
  std::vector<Time> first_after;
};

// Forwards deliveries to the statistics (overall and per flow) and to the verbs flows that watch
// them, and ends the run once it is over: the generators' traffic is over (the drain phase has
// begun) and every packet created has been delivered or dropped, and every verbs flow is done. With
// verbs flows the run ends `settle` later (the longest wire_to_completion), so that every
// completion a delivered packet causes is posted and counted.
class RunObserver : public DeliveryObserver, public VerbsFlowOwner {
 public:
  static const char* name() { return "run"; }  // in event traces
  RunObserver(TrafficStats& all, std::vector<TrafficStats>& flows, const PacketLedger& ledger, Time generation_end,
              bool generators, const std::vector<std::unique_ptr<VerbsFlow>>& verbs, Time settle,
              ScheduledModule* clock, std::vector<FaultWatch>& faults,
              const std::vector<std::unique_ptr<TrafficClass>>& classes)
      : all_(all), flows_(flows), ledger_(ledger), generation_end_(generation_end), generators_(generators),
        verbs_(verbs), settle_(settle), clock_(clock), faults_(faults), classes_(classes) {}
  // Once the traffic classes exist: which QPs' deliveries are theirs; `node_of`: each HCA's node;
  // `here[k]`: whether this rank runs class k (across MPI ranks a class runs on its hosts' rank
  // only; empty: every class).
  void watch_classes(std::map<const Hca*, std::size_t> node_of, std::vector<bool> here = {});
  // Every measured UD generator packet (a message of one packet), for the overall histograms.
  LatencyHistogram generator_message_latency, generator_network_latency;
  // Once the verbs flows exist: which of them watch which QPs' deliveries; `here[k]`: whether this
  // rank runs flow k (across MPI ranks a flow runs on its hosts' rank only; empty: every flow).
  void watch_flows(std::vector<bool> here = {});
  // The run is not over before every attack is done.
  void watch_attacks(const std::vector<std::unique_ptr<Attack>>* attacks) { attacks_ = attacks; }
  // The run is not over before every collective (`collectives:`) is done. `here`: this rank runs
  // them (across MPI ranks they run on their hosts' rank only).
  void watch_collectives(const std::vector<std::unique_ptr<NcclCollective>>* c, bool here = true) {
    collectives_ = c;
    collectives_here_ = here;
  }
  // ... nor before the trace replay (`trace:`) is done.
  // `here`: this rank runs it (across MPI ranks: its hosts' rank only).
  void watch_trace_replay(const TraceReplay* t, bool here = true) {
    trace_replay_ = t;
    trace_replay_here_ = here;
  }
  void on_delivered(Hca& hca, const Packet& p, Time tail) override;
  void flow_progress() override { check_end(ScheduledModule::now()); }
  bool cnps_possible = false;  // congestion control is on (on RoCE: DCQCN)
  // Traffic classes: look again when their sources stop, in case everything was delivered before.
  void check_at(Time t) { clock_->schedule_global<&RunObserver::check_due>(t, this); }
  // Events (event.h): a look at whether the run is over, and the end of the settling time.
  void check_due() { check_end(ScheduledModule::now()); }
  void settled();
  // In a run in windows (calendar_process.h) whether the run is over is asked at the next barrier,
  // of the whole fabric at once: a delivery only notes that it is worth asking. Call once, before
  // the simulation runs.
  void look_at_barriers();

 private:
  bool can_end(Time t) const;
  // can_end, of every rank (a collective across MPI ranks: called only at barriers and in global
  // instants, which every rank reaches alike).
  bool can_end_everywhere(Time t) const;
  void check_end(Time t);
  void end_if_over(Time t);

  TrafficStats& all_;
  std::vector<TrafficStats>& flows_;
  const PacketLedger& ledger_;
  Time generation_end_;
  bool generators_;
  const std::vector<std::unique_ptr<VerbsFlow>>& verbs_;
  std::vector<bool> verbs_here_;  // [flow]; empty: every flow runs here
  Time settle_;
  ScheduledModule* clock_;
  bool pending_ = false;
  // Asked SystemC to stop: once (a run without windows may hear that all is over more than once
  // in one instant, e.g. from every rank of a collective on RoCE).
  bool stopped_ = false;
  void stop();
  std::map<std::pair<const Hca*, Qpn>, VerbsFlow*> watched_;
  std::vector<FaultWatch>& faults_;
  const std::vector<std::unique_ptr<TrafficClass>>& classes_;
  std::vector<bool> classes_here_;  // [class]; empty: every class runs here
  std::unordered_map<std::uint64_t, TrafficClass*> class_of_;
  std::map<const Hca*, std::size_t> node_of_;
  bool needs_settle_ = false;
  bool at_barriers_ = false;  // look_at_barriers
  // Set by deliveries in any partition's window (any thread), read and cleared at the barrier.
  std::atomic<bool> check_wanted_{false};
  // Deliveries in partitions running on threads of their own add to the same tallies (the overall
  // and per-flow statistics, the generator histograms): one at a time. Every figure drawn from
  // them is order-free (sums, minima, maxima, bucket counts, percentiles of the sorted samples),
  // so the order in which the threads take the lock never shows.
  std::mutex tallies_;
  const std::vector<std::unique_ptr<Attack>>* attacks_ = nullptr;
  const std::vector<std::unique_ptr<NcclCollective>>* collectives_ = nullptr;
  bool collectives_here_ = true;
  const TraceReplay* trace_replay_ = nullptr;
  bool trace_replay_here_ = true;
};

}  // namespace ibfsim
