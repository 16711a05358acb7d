#include "sim/workload/roce_workloads.h"

#include <algorithm>
#include <map>

#include "sim/core/error.h"
#include "sim/workload/class_statistics.h"
#include "sim/workload/nccl_statistics.h"
#include "sim/workload/study_figures.h"
#include "sim/workload/trace_replay_statistics.h"

namespace ibfsim {

namespace {
constexpr std::uint32_t kWorkloadQKey = 0x11111111;  // as on InfiniBand (run_traffic.cpp)
}  // namespace

RoceWorkloads::RoceWorkloads(const Scenario& sc, RoceHcaFabric& fabric, const PacketPool& pool)
    : sc_(sc), hosts_(fabric, sc.topology, pool), hca_nodes_(sc.topology.hcas()), qpn_(sc.topology.nodes.size(), 0) {}

void RoceWorkloads::create_generator_qps() {
  for (const std::size_t n : hca_nodes_) qpn_[n] = hosts_.hca(n)->create_ud_qp(kWorkloadQKey);
}

void RoceWorkloads::start(RunObserver& observer, std::vector<std::unique_ptr<TrafficClass>>& classes,
                          const std::vector<HcaConfig>& models, RoceWindow window) {
  create_classes(observer, classes, models, window);
  // Collectives: the first starts at `start`, each further one when the one before it is done.
  for (const NcclCollectiveSpec& spec : sc_.collectives) {
    NcclCollective* before = collectives_.empty() ? nullptr : collectives_.back().get();
    collectives_.push_back(std::make_unique<NcclCollective>(spec, hosts_, observer));
    collectives_.back()->setup(window.start, before);
  }
  if (!collectives_.empty()) observer.watch_collectives(&collectives_);
  if (sc_.trace) {
    trace_replay_ = std::make_unique<TraceReplay>(*sc_.trace, hosts_, observer);
    trace_replay_->setup(window.start);
    observer.watch_trace_replay(trace_replay_.get());
  }
  create_generators(window);
}

// As run_traffic.cpp's create_classes: their QPs after the verbs flows' on every HCA.
void RoceWorkloads::create_classes(RunObserver& observer, std::vector<std::unique_ptr<TrafficClass>>& classes,
                                   const std::vector<HcaConfig>& models, RoceWindow window) {
  const Topology& topo = sc_.topology;
  const EthernetFabricPlan& plan = hosts_.plan();
  std::vector<Time> completion_delay(topo.nodes.size(), 0);
  std::map<const Hca*, std::size_t> node_of;
  for (const std::size_t n : hca_nodes_) {
    completion_delay[n] = models.at(plan.find(topo.nodes[n].name)).wire_to_completion;
    node_of[hosts_.hca(n)] = n;
  }
  for (std::size_t i = 0; i < sc_.classes.size(); ++i) {
    classes.push_back(std::make_unique<TrafficClass>(sc_.classes[i], i, hosts_, sc_.seed,
                                                     ClassWindow{window.start, window.measure_begin, window.measure_end},
                                                     completion_delay, observer));
    classes.back()->setup();
  }
  observer.watch_classes(std::move(node_of));
  if (!classes.empty()) observer.check_at(window.measure_end);
}

// As run_traffic.cpp's create_generators, without multicast (refused on RoCE) or subnets (one).
void RoceWorkloads::create_generators(RoceWindow window) {
  const Topology& topo = sc_.topology;
  flow_generators_.resize(sc_.flows.size());
  for (std::size_t f = 0; f < sc_.flows.size(); ++f) {
    const WorkloadSpec& w = sc_.flows[f];
    std::vector<std::size_t> sources;
    if (w.sources.empty()) sources = hca_nodes_;
    else
      for (const auto& name : w.sources) sources.push_back(*topo.find_node(name));
    auto dests = std::make_shared<std::vector<UdDestination>>();
    std::vector<std::size_t> index_of(topo.nodes.size(), UdTrafficGenerator::kNoSkip);
    for (const std::size_t d : hca_nodes_) {
      if (w.destination != "random" && topo.nodes[d].name != w.destination) continue;
      index_of[d] = dests->size();
      dests->push_back(UdDestination{hosts_.hca(d)->lid(1), qpn_[d]});
    }
    for (const std::size_t src : sources) {
      const std::size_t skip = index_of[src];
      if (dests->size() - (skip == UdTrafficGenerator::kNoSkip ? 0 : 1) == 0) continue;
      // The same random streams as on InfiniBand: flow 0 draws from stream `src` (topology node).
      auto g = std::make_unique<UdTrafficGenerator>(*hosts_.hca(src), qpn_[src], kWorkloadQKey, w, dests, skip,
                                                    RngStream(sc_.seed, src + f * 0x100000001ull), window.measure_end,
                                                    window.measure_begin, window.measure_end,
                                                    static_cast<std::uint16_t>(f));
      g->start(window.start);
      flow_generators_[f].push_back(g.get());
      generators_.push_back(std::move(g));
    }
  }
}

void RoceWorkloads::settle(Time end, const std::vector<std::unique_ptr<TrafficClass>>& classes) {
  for (const auto& g : generators_) g->settle(end);
  for (const auto& c : classes) c->settle(end);
}

std::vector<FlowSourceCounts> RoceWorkloads::source_counts() const {
  std::vector<FlowSourceCounts> sources;
  for (const auto& flow : flow_generators_) sources.push_back(ibfsim::source_counts(flow));
  return sources;
}

void RoceWorkloads::add_facts(RunFacts& f, const std::vector<std::unique_ptr<VerbsFlow>>& verbs,
                              const std::vector<std::unique_ptr<TrafficClass>>& classes, const RunObserver& observer,
                              const std::vector<TrafficStats>& flow_stats, const TrafficStats& all,
                              const std::vector<FlowSourceCounts>& sources, Time end, Time end_limit) {
  // As run_collect.cpp's add_flows.
  std::vector<GeneratorFlowFacts> gens;
  for (std::size_t k = 0; k < sc_.flows.size(); ++k) {
    const WorkloadSpec& w = sc_.flows[k];
    GeneratorFlowFacts g{w.name, w.sl, w.message_size, w.load, w.arrival == Arrival::kPoisson ? "poisson" : "constant",
                         w.destination, flow_generators_[k].size(), &flow_stats[k].latency(),
                         &flow_stats[k].network_latency(), {}};
    g.throughput.offered_bytes = sources.at(k).posted * w.message_size;
    g.throughput.accepted_bytes = flow_stats[k].window_payload_bytes();
    g.throughput.accepted_packets = flow_stats[k].window_packets();
    g.throughput.window = sc_.phases.measure;
    f.throughput.offered_bytes += g.throughput.offered_bytes;
    gens.push_back(std::move(g));
  }
  f.flows.clear();
  for (const auto& [kind, k] : sc_.workload_order) {
    if (kind == Scenario::EntryKind::kVerbs) f.flows.emplace_back(verbs[k]->results());
    else if (kind == Scenario::EntryKind::kClass) f.flows.emplace_back(classes[k]->results());
    else f.flows.emplace_back(gens[k]);
  }
  f.throughput.accepted_bytes = all.window_payload_bytes();
  f.throughput.accepted_packets = all.window_packets();
  f.throughput.window = sc_.phases.measure;
  f.study = study_figures(sc_, flow_generators_, sources, flow_stats, classes, observer, hosts_, end, end_limit);
  for (const auto& c : classes) f.class_summaries.push_back(c->summary());
  for (const auto& c : collectives_) f.collective_tables.push_back(nccl_tests_table(c->spec(), c->rows(), c->done()));
  if (trace_replay_) f.collective_tables.push_back(trace_replay_->summary());
}

std::string RoceWorkloads::fct_csv(const std::vector<std::unique_ptr<TrafficClass>>& classes) {
  bool any_collective = false;
  for (const auto& c : classes) any_collective = any_collective || c->spec().collective();
  if (!any_collective) return {};
  std::string fct = "class,iteration,start_ns,end_ns,fct_ns\n";
  for (const auto& c : classes) fct += c->fct_csv_rows();
  return fct;
}

void RoceWorkloads::register_statistics(StatsRegistry& registry,
                                        const std::vector<std::unique_ptr<TrafficClass>>& classes,
                                        const StudyFigures& study) {
  register_class_statistics(registry, classes, study);
  register_nccl_statistics(registry, collectives_);
  register_trace_replay_statistics(registry, trace_replay_.get());
}

}  // namespace ibfsim
