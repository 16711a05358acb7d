// The phases of run_scenario (scenario_run.h), in order: build the fabric, bring it up, start the
// traffic and simulate through the measurement window, drain, collect the results and write them.
// Each phase reads and fills one ScenarioRun; a phase runs only after the ones before it.
#pragma once
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/core/stats_snapshot.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/waveform_tracer.h"
#include "sim/report/run_facts.h"
#include "sim/report/time_series_plot.h"
#include "sim/workload/attack.h"
#include "sim/workload/nccl_collective.h"
#include "sim/workload/packet_log.h"
#include "sim/workload/port_window.h"
#include "sim/workload/rank_tallies.h"
#include "sim/workload/run_observer.h"
#include "sim/workload/sa_subscribers.h"
#include "sim/workload/sharp_aggregation_manager.h"
#include "sim/workload/scenario.h"
#include "sim/workload/scenario_run.h"
#include "sim/workload/time_series_sampler.h"
#include "sim/workload/trace_replay.h"
#include "sim/workload/traffic_class.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/ud_traffic_generator.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// The HCA model `hca` ran with (results.json "hca_models", hca_model.csv).
HcaModelFacts hca_model_facts(const std::string& hca, const HcaConfig& c);

// Cables per rate they carry, slowest first (RunFacts::cable_rates).
std::vector<std::pair<std::string, std::size_t>> cable_rates(const Topology& topo);

// Everything a run builds and measures. Members are destroyed in reverse order: the traffic before
// the fabric it runs on.
struct ScenarioRun {
  ScenarioRun(const Scenario& s, const std::string& out_dir) : sc(s), dir(out_dir) {}

  const Scenario& sc;
  const std::filesystem::path dir;

  // Build.
  bool in_band = false;  // a subnet manager brings the fabric up
  FabricOptions options;
  std::string sm_host;
  std::unique_ptr<Fabric> fabric;
  std::unique_ptr<WaveformTracer> waves;

  // Bring-up: when the fabric was up, and the phases of the traffic from there.
  Time fabric_up = 0, start = 0, measure_begin = 0, measure_end = 0, end_limit = 0;
  bool load_driven = false;  // generator flows or load-driven classes: they run by the phases
  double bring_up_cpu = 0, bring_up_wall = 0;
  std::uint64_t bring_up_actions = 0, bring_up_hops = 0;
  std::vector<LinkFault> faults;  // at absolute times

  // Traffic.
  std::vector<std::size_t> hca_nodes;
  std::vector<Qpn> qpn;  // [node]: the UD generator's QP of each HCA
  std::map<std::size_t, std::unique_ptr<CmAgent>> cm_agents;  // [node]: HCAs with `connect: cm` flows or IPoIB connected mode
  std::vector<std::unique_ptr<SaSubscriber>> sa_subscribers;  // subnet_manager.sa.subscribers
  std::map<std::size_t, std::unique_ptr<ServerSrq>> server_srqs;  // [node]: targets of `srq: true` flows
  std::vector<std::unique_ptr<VerbsFlow>> verbs_flows;
  Time settle = 0;
  std::vector<HcaConfig> models;  // [node]: the HCA model each HCA runs with
  std::optional<TrafficStats> all_stats;
  std::vector<TrafficStats> flow_stats;
  std::vector<std::unique_ptr<TrafficClass>> classes;
  // [class]: this rank runs it (across MPI ranks a class runs on its hosts' rank; one rank: every
  // class); the others take in its figures from there (take_in_rank_tallies).
  std::vector<bool> classes_here;
  std::vector<std::unique_ptr<NcclCollective>> collectives;  // `collectives:`, in file order
  bool collectives_here = true;  // this rank runs them (across MPI ranks: their hosts' rank)
  std::unique_ptr<SharpAggregationManager> sharp_manager;    // with algorithm: sharp collectives
  std::unique_ptr<TraceReplay> trace_replay;                 // `trace:`
  bool trace_replay_here = true;  // this rank runs it (across MPI ranks: its hosts' rank)
  std::vector<FaultWatch> watches;
  std::optional<RunObserver> observer;
  std::unique_ptr<PortWindow> port_window;
  PacketLog packet_log;
  std::vector<std::unique_ptr<UdTrafficGenerator>> generators;
  std::vector<std::vector<UdTrafficGenerator*>> flow_generators;  // [flow]
  // What the collect phase reads rather than the modules (take_in_rank_tallies): each generator
  // flow's sources' counts; across MPI ranks also the subnet manager's facts from its rank and each
  // fault's latest adaptive-routing recovery (0: none) over every rank's switches.
  std::vector<FlowSourceCounts> source_counts;  // [flow]
  std::optional<SubnetManagerFacts> sm_facts;
  std::vector<Time> ar_moved;  // [fault]; empty: read from the switches
  // [verbs flow]: its results (results.json "flows") and summary line from the rank that ran it;
  // empty: read from the flows.
  std::vector<nlohmann::json> verbs_results;
  std::vector<std::string> verbs_summaries;
  std::unique_ptr<TimeSeriesSampler> sampler;
  std::vector<PlotPanel> panels;
  // Attacks (`attacks:`): those at bring_up made with the fabric, the others with the traffic.
  std::vector<std::unique_ptr<Attack>> attacks;

  // Simulation of the traffic and the drain.
  std::chrono::steady_clock::time_point traffic_wall_start;
  double traffic_cpu_start = 0;
  bool partial = false;
  double simulate_wall = 0, simulate_cpu = 0;
  // Windows run and events crossed between partitions from the start of traffic (for bench/).
  std::uint64_t traffic_windows_start = 0, traffic_crossings_start = 0;
  std::uint64_t traffic_windows = 0, traffic_crossings = 0;
  Time end = 0;

  // Results: the file being written, the index-th of `of` (nullptr while the statistics are
  // collected), and of a table the lines written so far and its rows; written by write_results,
  // read by the progress meter's thread. results_files holds the names results_file points to.
  std::vector<std::string> results_files;
  std::atomic<const char*> results_file{nullptr};
  std::atomic<unsigned> results_index{0}, results_of{0};
  std::atomic<std::uint64_t> results_lines{0}, results_rows_of{0};
};

// What collect() gathers for write_results(): the facts, the registry of every statistic (the
// tables are read from it row by row as they are written), a snapshot of results.json's own
// statistics, and results.json. Not copied nor moved: the registry's rows point into the facts.
struct CollectedResults {
  CollectedResults() = default;
  CollectedResults(const CollectedResults&) = delete;
  CollectedResults& operator=(const CollectedResults&) = delete;

  RunFacts facts;
  StatsRegistry registry;
  StatsSnapshot statistics;
  nlohmann::json results;  // results.json
};

// Build: the fabric from the scenario's topology and settings, and the waveform tracer.
void build_fabric(ScenarioRun& run);
// Bring-up: the subnet manager's first sweep (or the links' training); then the times of the
// phases, the run's horizon and the faults.
void bring_up_fabric(ScenarioRun& run);
// Traffic: QPs, verbs flows, traffic classes, generators and what watches them; then the
// simulation up to the end of the measurement window (or the end of the run, whichever is first).
void start_traffic(ScenarioRun& run);
void run_traffic(ScenarioRun& run);
// Drain: the simulation from there to the end of the run (everything delivered, or the limit),
// then the fabric's own accounting is closed and checked.
void drain(ScenarioRun& run);
// Collect: the statistics registry and the facts of results.json and the summary, into
// `collected`, which the registry's rows point into (it must stay where it is until written).
void collect(ScenarioRun& run, CollectedResults& collected);
// Before collect: the run's tallies that live on some rank's modules (rank_tallies.h), every rank's
// put together on every rank across MPI ranks (a collective), so that every rank computes the same
// figures; with one rank, only the sources' counts. Called by collect.
void take_in_rank_tallies(ScenarioRun& run);
// The subnet manager's facts, as `sm`'s rank knows them.
SubnetManagerFacts subnet_manager_facts(const ScenarioRun& run, SubnetManager& sm);
// Fault `fault`'s adaptive-routing recovery: the latest time a switch (of those this rank runs)
// applied a fault notification before the next fault.
std::optional<Time> fault_ar_moved(const ScenarioRun& run, std::size_t fault);
// How the run was split, for the terminal only ("partitions: ..."; empty for a run not in
// windows): results.json and the CSVs are the same with any number of partitions, so they do not
// say. `cables`: the fabric's.
std::string partitions_line(const Partitioning& p, std::size_t cables);
// Across MPI ranks (run_write.cpp; a RoCE run's too): the summary rank 0 prints (the one-rank
// summary if results.json was written, `whole`; then the `ranks:` lines), and why rank 0's
// results.json (`mine`) is not every rank's (`all`: each rank's dumped; empty when they agree).
std::string ranks_summary(const std::string& summary, bool whole, const std::vector<std::string>& tables,
                          const std::vector<std::string>& not_written);
std::string results_disagreement(const nlohmann::json& mine, const std::vector<std::vector<std::uint8_t>>& all);
// Write: the results folder, and the result for the caller (with the printed summary).
RunResult write_results(ScenarioRun& run, CollectedResults& collected);

// CPU time of this process so far, in seconds: the simulation's thread and the threads that run
// its partitions (calendar_process.h); the progress line's thread adds next to nothing.
double process_cpu_seconds();

// How a run splits its fabric (calendar_process.h, "Partitions and windows"), by topology node: as
// many partitions as threads (times MPI ranks). Nodes whose workload objects reach into each other
// directly share a partition: the two hosts of a verbs flow, the hosts of a traffic class, a
// server's HCAs, every collective's ranks, the trace replay's hosts. What writes one file in time
// order as the simulation goes (event trace, capture, packet log, waveforms) or reaches across the
// fabric (attacks) runs in one. Both fabrics' runs (InfiniBand's and RoCE's, roce_run.cpp).
FabricOptions::Partitions scenario_partitions(const Scenario& sc);

// An estimate of the SMPs the subnet manager's first sweep asks for on `topo`, from its counts
// (discovery of every node and port, the PortInfo Sets, SwitchInfo and LFT blocks per switch, Arm
// and Active per cabled port): the bring-up progress line's estimate of the time left.
std::uint64_t expected_bring_up_smps(const Topology& topo);

// The time series of outputs.time_series: its sampler, and the plot panels over it (`panels`).
std::unique_ptr<TimeSeriesSampler> time_series_sampler(const ScenarioRun& run, std::vector<PlotPanel>& panels);

}  // namespace ibfsim
