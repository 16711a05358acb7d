// The time series of outputs.time_series (scenario_run_phases.h): payload Gb/s of every flow, the
// CCTI of each flow's sending QP (or port and SL) when congestion control is on, the output queue
// of the listed switch ports; and the plot panels over them.
#include <fmt/format.h>

#include <algorithm>

#include "sim/core/rank_exchange.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

std::unique_ptr<TimeSeriesSampler> time_series_sampler(const ScenarioRun& run, std::vector<PlotPanel>& panels) {
  const Scenario& sc = run.sc;
  Fabric& fabric = *run.fabric;
  const std::vector<TrafficStats>& flow_stats = run.flow_stats;
  const auto& gens = run.flow_generators;
  const auto& verbs = run.verbs_flows;
  const auto& classes = run.classes;
  const Topology& topo = fabric.topology();
  auto sampler = std::make_unique<TimeSeriesSampler>(*fabric.hca(topo.hcas().front()), run.start,
                                                     sc.outputs.time_series.interval, run.end_limit);
  // Across MPI ranks a value column is read on the rank that simulates its module (the others'
  // copies of it never change); rate columns add up every rank's counts (time_series_sampler.h).
  const auto nranks = static_cast<unsigned>(ranks::size());
  const unsigned me = static_cast<unsigned>(ranks::rank());
  auto rank_of = [&](std::size_t node) -> unsigned {
    if (nranks == 1) return 0;
    const Partitioning& p = fabric.partitioning();
    return ranks::rank_of_partition(p.part.at(node), p.parts, nranks);
  };
  PlotPanel rate{"payload throughput per flow", "payload throughput (Gb/s)", {}},
      ccti{"congestion control index of each flow's sending QP", "CCTI (index into the CCT)", {}},
      queue{"output queue depth", "output queue depth (64-byte blocks)", {}};
  // CSV column of the figure added next: time is column 1. A flow is series k (its place in
  // `workload:`) in every panel: its rate and its CCTI share name and colour.
  auto column = [&](PlotPanel& p, std::string name, std::size_t colour, bool dashed = false) {
    p.series.push_back({sampler->columns() + 2, std::move(name), colour, dashed});
  };
  std::size_t series = 0;
  std::vector<std::size_t> flow_series(sc.workload_order.size());
  for (std::size_t w = 0; w < sc.workload_order.size(); ++w) {
    const auto& [kind, k] = sc.workload_order[w];
    flow_series[w] = series++;
    if (kind == Scenario::EntryKind::kVerbs) {
      const VerbsFlow* f = verbs[k].get();
      column(rate, f->spec().name, flow_series[w]);
      sampler->add_rate(verbs[k]->spec().name + " Gb/s", [f] { return f->bytes_completed(); });
    } else if (kind == Scenario::EntryKind::kClass) {
      const TrafficClass* c = classes[k].get();
      column(rate, c->spec().name, flow_series[w]);
      sampler->add_rate(c->spec().name + " Gb/s", [c] { return c->delivered_payload_bytes(); });
    } else {
      const TrafficStats* st = &flow_stats[k];
      column(rate, sc.flows[k].name, flow_series[w]);
      sampler->add_rate(sc.flows[k].name + " Gb/s", [st] { return st->total_payload_bytes(); });
    }
  }
  if (sc.congestion_control.enabled) {
    // One column per distinct (HCA, throttle key) that sends a flow, in the flow's colour; a flow
    // sending from several QPs names each by its HCA, the second and later dashed.
    std::vector<std::pair<const Hca*, CcThrottle::Key>> seen;
    auto add_ccti = [&](const Hca& h, Qpn qpn, std::uint8_t sl, const std::string& flow, std::size_t colour,
                        std::size_t nth, std::size_t of) {
      const CcThrottle::Key key = CcThrottle::key_of(sc.congestion_control.per_sl, qpn, 1, sl);
      if (std::find(seen.begin(), seen.end(), std::make_pair(&h, key)) != seen.end()) return;
      seen.emplace_back(&h, key);
      const std::string who = sc.congestion_control.per_sl ? fmt::format("sl{}", sl) : fmt::format("qp0x{:x}", qpn);
      column(ccti, of > 1 ? fmt::format("{} ({})", flow, h.name()) : flow, colour, nth > 0);
      const Hca* hp = &h;
      const unsigned owner = rank_of(h.node_index());
      const bool mine = owner == me;
      sampler->add_value(
          "CCTI " + std::string(h.name()) + "/" + who,
          [hp, key, mine] { return mine && hp->cc_throttle() ? static_cast<double>(hp->cc_throttle()->ccti(key)) : 0.0; },
          owner);
    };
    // Traffic classes use many QPs each: their indices are in results.json (congestion_control.qps).
    for (std::size_t w = 0; w < sc.workload_order.size(); ++w) {
      const auto& [kind, k] = sc.workload_order[w];
      if (kind == Scenario::EntryKind::kVerbs) {
        add_ccti(verbs[k]->requester_hca(), verbs[k]->requester_qp()->qpn(), verbs[k]->spec().sl, verbs[k]->spec().name,
                 flow_series[w], 0, 1);
      } else if (kind == Scenario::EntryKind::kGenerator) {
        for (std::size_t g = 0; g < gens[k].size(); ++g)
          add_ccti(gens[k][g]->hca(), gens[k][g]->src_qp(), sc.flows[k].sl, sc.flows[k].name, flow_series[w], g,
                   gens[k].size());
      }
    }
  }
  for (const auto& [node, port] : sc.outputs.time_series.ports) {
    const std::string name = topo.nodes[node].name + "/" + std::to_string(port);
    column(queue, name, series++);
    const Switch* sw = fabric.switch_at(node);
    const auto p = static_cast<PortNum>(port);
    const unsigned owner = rank_of(node);
    const bool mine = owner == me;
    sampler->add_value(
        "queue " + name + " blocks", [sw, p, mine] { return mine ? static_cast<double>(sw->output_queue_blocks(p)) : 0.0; },
        owner);
  }
  panels = {rate, ccti, queue};
  sampler->start();
  return sampler;
}

}  // namespace ibfsim
