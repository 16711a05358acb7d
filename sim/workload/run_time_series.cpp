// The time series of outputs.time_series (scenario_run_phases.h): payload Gb/s of every flow, the
// CCTI of each flow's sending QP (or port and SL) when congestion control is on, the output queue
// of the listed switch ports; and the plot panels over them.
#include <fmt/format.h>

#include <algorithm>

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
  PlotPanel rate{"payload throughput per flow", "Gb/s", {}}, ccti{"congestion control index (CCTI)", "CCTI", {}},
      queue{"output queue depth", "64-byte blocks", {}};
  // CSV column of the figure added next: time is column 1.
  auto column = [&](PlotPanel& p) { p.columns.push_back(sampler->columns() + 2); };
  for (const auto& [kind, k] : sc.workload_order) {
    column(rate);
    if (kind == Scenario::EntryKind::kVerbs) {
      const VerbsFlow* f = verbs[k].get();
      sampler->add_rate(verbs[k]->spec().name + " Gb/s", [f] { return f->bytes_completed(); });
    } else if (kind == Scenario::EntryKind::kClass) {
      const TrafficClass* c = classes[k].get();
      sampler->add_rate(c->spec().name + " Gb/s", [c] { return c->delivered_payload_bytes(); });
    } else {
      const TrafficStats* st = &flow_stats[k];
      sampler->add_rate(sc.flows[k].name + " Gb/s", [st] { return st->total_payload_bytes(); });
    }
  }
  if (sc.congestion_control.enabled) {
    // One column per distinct (HCA, throttle key) that sends a flow.
    std::vector<std::pair<const Hca*, CcThrottle::Key>> seen;
    auto add_ccti = [&](const Hca& h, Qpn qpn, std::uint8_t sl) {
      const CcThrottle::Key key = h.cc_throttle()->key(qpn, 1, sl);
      if (std::find(seen.begin(), seen.end(), std::make_pair(&h, key)) != seen.end()) return;
      seen.emplace_back(&h, key);
      column(ccti);
      const std::string who = sc.congestion_control.per_sl ? fmt::format("sl{}", sl) : fmt::format("qp0x{:x}", qpn);
      const Hca* hp = &h;
      sampler->add_value("CCTI " + std::string(h.name()) + "/" + who, [hp, key] { return hp->cc_throttle()->ccti(key); });
    };
    // Traffic classes use many QPs each: their indices are in results.json (congestion_control.qps).
    for (const auto& [kind, k] : sc.workload_order) {
      if (kind == Scenario::EntryKind::kVerbs) {
        add_ccti(verbs[k]->requester_hca(), verbs[k]->requester_qp()->qpn(), verbs[k]->spec().sl);
      } else if (kind == Scenario::EntryKind::kGenerator) {
        for (const UdTrafficGenerator* g : gens[k]) add_ccti(g->hca(), g->src_qp(), sc.flows[k].sl);
      }
    }
  }
  for (const auto& [node, port] : sc.outputs.time_series.ports) {
    column(queue);
    const Switch* sw = fabric.switch_at(node);
    const auto p = static_cast<PortNum>(port);
    sampler->add_value("queue " + topo.nodes[node].name + "/" + std::to_string(port) + " blocks",
                       [sw, p] { return sw->output_queue_blocks(p); });
  }
  panels = {rate, ccti, queue};
  sampler->start();
  return sampler;
}

}  // namespace ibfsim
