#include "sim/report/run_summary.h"

#include <fmt/format.h>

namespace ibfsim {

namespace {

std::string mean(const LatencyStats& s) { return format_duration(static_cast<Time>(s.mean_fs() + 0.5)); }

// How the fabric came up, or that it never did.
std::string fabric_up_line(const RunFacts& f) {
  if (!f.subnet_manager) return "";
  const SubnetManagerFacts& sm = *f.subnet_manager;
  if (!sm.configured)
    return fmt::format("fabric never up: interrupted during the subnet manager's bring-up at {} ({} SMPs sent)\n",
                       format_duration(f.fabric_up), sm.smps_sent);
  return fmt::format("fabric up: {} (subnet manager on {}: {} SMPs, {} routing)\n", format_duration(f.fabric_up),
                     sm.host, sm.sweeps.front().smps, sm.routing);
}

}  // namespace

// "fabric: 8 HCAs, 1 switch, 8 cables (4x EDR)"; a fabric of several rates names each with its
// cables: "(4 at 4x EDR, 4 at 4x HDR)".
std::string fabric_line(const RunFacts& f) {
  std::string rates;
  if (f.cable_rates.size() == 1) rates = " (" + f.cable_rates.front().first + ")";
  for (std::size_t i = 0; f.cable_rates.size() > 1 && i < f.cable_rates.size(); ++i)
    rates += fmt::format("{}{} at {}", i ? ", " : " (", f.cable_rates[i].second, f.cable_rates[i].first) +
             (i + 1 == f.cable_rates.size() ? ")" : "");
  return fmt::format("fabric: {} HCA{}, {} switch{}, {} cable{}{}\n", f.hcas, f.hcas == 1 ? "" : "s", f.switches,
                     f.switches == 1 ? "" : "es", f.cables, f.cables == 1 ? "" : "s", rates);
}

namespace {

std::string head(const RunFacts& f, const nlohmann::json& j) {
  const bool never_up = f.subnet_manager && !f.subnet_manager->configured;
  return fmt::format(
      "{}"
      "simulated: {}{}, traffic from {}\n"
      "packets: {} created, {} delivered, {} dropped\n",
      fabric_up_line(f), format_duration(f.end),
      never_up     ? " (no traffic)"
      : f.drained  ? " (all traffic drained)"
      : f.partial  ? " (interrupted, traffic still in flight)"
                   : " (drain limit reached, traffic still in flight)",
      never_up        ? std::string("nowhere")
      : f.start_given ? format_duration(f.start)
                      : format_duration(f.start) + (f.subnet_manager ? " (fabric up)" : " (links trained)"),
      j["packets"]["created"].get<std::uint64_t>(), j["packets"]["delivered"].get<std::uint64_t>(),
      j["packets"]["dropped_total"].get<std::uint64_t>());
}

// Latency and throughput of the generator flows, overall and per flow.
std::string generator_lines(const RunFacts& f) {
  std::string out;
  const LatencyStats& lat = *f.latency;
  if (lat.count() > 0)
    out += fmt::format("latency ({} measured packets): mean {}, p99 {}, max {}\n", lat.count(), mean(lat),
                       format_duration(lat.percentile(99)), format_duration(lat.max()));
  std::vector<const GeneratorFlowFacts*> gens;
  for (const auto& flow : f.flows)
    if (const auto* g = std::get_if<GeneratorFlowFacts>(&flow)) gens.push_back(g);
  if (!gens.empty())
    out += fmt::format("throughput: offered {:.2f} Gb/s, accepted {:.2f} Gb/s (payload)\n", f.throughput.offered_gbps(),
                       f.throughput.accepted_gbps());
  if (gens.size() > 1)
    for (const GeneratorFlowFacts* g : gens) {
      const LatencyStats& fl = *g->latency;
      out += fmt::format("  flow {} (SL {}): {} packets, mean latency {}, accepted {:.2f} Gb/s\n", g->name, g->sl,
                         fl.count(), fl.count() ? mean(fl) : "-", g->throughput.accepted_gbps());
    }
  return out;
}

}  // namespace

std::string run_summary(const RunFacts& f, const nlohmann::json& j) {
  std::string out = head(f, j) + generator_lines(f);
  if (!f.class_summaries.empty()) {
    out += "traffic classes:\n";
    for (const std::string& s : f.class_summaries) out += s;
  }
  const StudyFigures& study = f.study;
  if (study.load_driven)
    out += fmt::format("load: offered {:.4f}, accepted {:.4f} of the injection links{}\n", study.offered_load,
                       study.accepted_load, study.saturated ? fmt::format(" -- SATURATED: {}", study.saturation_reason) : "");
  if (!f.verbs_summaries.empty()) {
    out += "verbs flows:\n";
    for (const std::string& s : f.verbs_summaries) out += s;
  }
  for (const std::string& s : f.collective_tables) out += s;
  for (const std::string& s : f.attack_summaries) out += s + "\n";
  if (f.partial)
    out += fmt::format("INTERRUPTED{} at {} simulated: results so far, marked partial\n",
                       f.stopped_by.empty() ? "" : " by " + f.stopped_by, format_duration(f.end));
  for (const std::string& w : f.warnings) out += "warning: " + w + "\n";
  if (f.congestion_control) {
    const auto& t = j["congestion_control"]["totals"];
    out += fmt::format("congestion control: {} FECN marked, {} BECNs on responses, {} CNPs sent, {} BECNs taken\n",
                       t["fecn_marked"].get<std::uint64_t>(), t["becn_on_response"].get<std::uint64_t>(),
                       t["cnp_sent"].get<std::uint64_t>(),
                       t["becn_received"].get<std::uint64_t>() + t["cnp_received"].get<std::uint64_t>());
  }
  if (f.time_series) {
    out += fmt::format("time series: {} samples in {}\n", f.time_series->samples, f.time_series->csv_path);
    if (!f.time_series->plot_note.empty()) out += "time series plot not made: " + f.time_series->plot_note + "\n";
  }
  out += fmt::format("results: {}\n", f.results_path);
  if (!f.report_path.empty()) out += fmt::format("report: {}\n", f.report_path);
  return out;
}

}  // namespace ibfsim
