// The workloads of a `fabric: roce` run besides its verbs flows (roce_run.h): UD generator flows,
// traffic classes, NCCL-style collectives and the trace replay, made by the same classes and in
// the same order as on InfiniBand (run_traffic.cpp), over the RoCE fabric's hosts as a HostFabric
// (fabric/roce_host_fabric.h: a packet's time on a host's link is its RoCE v2 frame's, with
// preamble, SFD and inter-frame gap); and what they add to the run's facts and statistics.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/fabric/roce_host_fabric.h"
#include "sim/report/run_facts.h"
#include "sim/workload/nccl_collective.h"
#include "sim/workload/rank_tallies.h"
#include "sim/workload/run_observer.h"
#include "sim/workload/scenario.h"
#include "sim/workload/trace_replay.h"
#include "sim/workload/traffic_class.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/ud_traffic_generator.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// Times of the run the workloads count from.
struct RoceWindow {
  Time start = 0, measure_begin = 0, measure_end = 0;
};

class RoceWorkloads {
 public:
  RoceWorkloads(const Scenario& sc, RoceHcaFabric& fabric, const PacketPool& pool);

  HostFabric& hosts() { return hosts_; }
  // Every host's UD QP for the generators (kGeneratorQpn), the first QP of each, before the verbs
  // flows' as on InfiniBand.
  void create_generator_qps();
  // After the verbs flows, with the run's observer: the traffic classes (into `classes`, which the
  // observer watches), the collectives, the trace replay, then the generators. `models`: each
  // host's HCA configuration by plan node.
  void start(RunObserver& observer, std::vector<std::unique_ptr<TrafficClass>>& classes,
             const std::vector<HcaConfig>& models, RoceWindow window);
  // Once the run is over: what arrived at the sources and was never built counts as offered.
  void settle(Time end, const std::vector<std::unique_ptr<TrafficClass>>& classes);
  // Each generator flow's measured messages posted and waiting at its sources (this rank's).
  std::vector<FlowSourceCounts> source_counts() const;
  // results.json's flows in the order of `workload:`, throughput, the study figures, the summary's
  // class and collective tables. `end_limit` as study_figures takes it. `sources`: every generator
  // flow's source counts (across MPI ranks, every rank's summed: roce_run_ranks.h).
  void add_facts(RunFacts& f, const std::vector<std::unique_ptr<VerbsFlow>>& verbs,
                 const std::vector<std::unique_ptr<TrafficClass>>& classes, const RunObserver& observer,
                 const std::vector<TrafficStats>& flow_stats, const TrafficStats& all,
                 const std::vector<FlowSourceCounts>& sources, Time end, Time end_limit);
  // classes.csv, collectives.csv, the trace replay's tables (each only when there is one).
  void register_statistics(StatsRegistry& registry, const std::vector<std::unique_ptr<TrafficClass>>& classes,
                           const StudyFigures& study);
  // fct.csv's text, as on InfiniBand: every iteration of every collective class; empty without.
  static std::string fct_csv(const std::vector<std::unique_ptr<TrafficClass>>& classes);

 private:
  void create_classes(RunObserver& observer, std::vector<std::unique_ptr<TrafficClass>>& classes,
                      const std::vector<HcaConfig>& models, RoceWindow window);
  void create_generators(RoceWindow window);

  const Scenario& sc_;
  RoceHostFabric hosts_;
  std::vector<std::size_t> hca_nodes_;  // topology nodes
  std::vector<Qpn> qpn_;                // the generator's QP by topology node
  std::vector<std::vector<UdTrafficGenerator*>> flow_generators_;  // by flow
  std::vector<std::unique_ptr<UdTrafficGenerator>> generators_;
  std::vector<std::unique_ptr<NcclCollective>> collectives_;
  std::unique_ptr<TraceReplay> trace_replay_;
};

}  // namespace ibfsim
