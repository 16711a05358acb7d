// The write phase of a run (scenario_run_phases.h): the results folder and the printed summary.
#include <algorithm>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/rank_exchange.h"
#include "sim/core/calendar_process.h"
#include "sim/core/stats_rank_merge.h"
#include "sim/core/partition_threads.h"
#include "sim/report/atomic_file.h"
#include "sim/report/report_ports.h"
#include "sim/report/result_tables.h"
#include "sim/report/run_report.h"
#include "sim/report/results_json.h"
#include "sim/report/run_summary.h"
#include "sim/report/stat_tables.h"
#include "sim/report/table_file.h"
#include "sim/report/time_series_plot.h"
#include "sim/workload/rank_gather.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

namespace {

// fct.csv's text: every iteration of every collective; empty without collectives.
std::string fct_csv(const ScenarioRun& run) {
  bool any_collective = false;
  for (const auto& c : run.classes) any_collective = any_collective || c->spec().collective();
  if (!any_collective) return {};
  std::string fct = "class,iteration,start_ns,end_ns,fct_ns\n";
  for (const auto& c : run.classes) fct += c->fct_csv_rows();
  return fct;
}

std::uint64_t rows_of(const std::string& csv) {
  const auto lines = static_cast<std::uint64_t>(std::count(csv.begin(), csv.end(), '\n'));
  return lines ? lines - 1 : 0;
}

// "cc_victim: payload throughput per flow, congestion control index of each flow's sending QP and
// output queue depth, sampled every 5 us": the scenario and what the panels show.
std::string time_series_title(const Scenario& sc, const std::vector<PlotPanel>& panels) {
  std::vector<std::string> shown;
  for (const PlotPanel& p : panels)
    if (!p.series.empty()) shown.push_back(p.title);
  std::string what;
  for (std::size_t i = 0; i < shown.size(); ++i)
    what += (i == 0 ? "" : i + 1 == shown.size() ? " and " : ", ") + shown[i];
  return std::filesystem::path(sc.file).stem().string() + ": " + what + ", sampled every " +
         format_duration(sc.outputs.time_series.interval);
}

// time_series.csv and its plot; what the summary says about them.
RunFacts::TimeSeries write_time_series(const ScenarioRun& run) {
  const Scenario& sc = run.sc;
  RunFacts::TimeSeries ts;
  ts.samples = run.sampler->rows();
  ts.csv_path = (run.dir / "time_series.csv").string();
  write_file_atomically(ts.csv_path, run.sampler->csv());
  TimeSeriesPlot plot;
  plot.dir = std::filesystem::absolute(run.dir).string();
  plot.csv_name = "time_series.csv";
  plot.out_base = "time_series";
  plot.panels = run.panels;
  plot.first_ns = to_ns(run.sampler->first_sample());
  plot.last_ns = to_ns(run.sampler->last_sample());
  plot.png = sc.outputs.time_series.png;
  plot.svg = sc.outputs.time_series.svg;
  plot.title = time_series_title(sc, run.panels);
  ts.plot_note = render_time_series(plot);
  return ts;
}

// The fabric as the report draws it.
ReportFabric report_fabric(const Topology& topo) {
  ReportFabric f;
  for (const TopoNode& n : topo.nodes) f.nodes.push_back({n.name, n.type == NodeType::kSwitch});
  for (const TopoCable& c : topo.cables) f.links.push_back({c.node_a, c.node_b, c.port_a, c.port_b});
  return f;
}

// report.html, last: it links every other file of the folder and embeds the plots.
void write_report_html(const ScenarioRun& run, const nlohmann::json& results,
                       const std::function<ReportPorts(double window_ns, double run_ns)>& ports) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(run.dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name != "report.html" && name.find(".tmp-") == std::string::npos) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  std::vector<ReportImage> images;
  const std::filesystem::path ts = run.dir / "time_series.svg";
  if (std::filesystem::exists(ts)) {
    std::ifstream in(ts, std::ios::binary);
    std::stringstream svg;
    svg << in.rdbuf();
    images.push_back({"Time series", "time_series.svg", svg.str()});
  }
  const double window_ns = results["phases"].value("measure_ns", 0.0), run_ns = results["phases"].value("end_ns", 0.0);
  write_file_atomically((run.dir / "report.html").string(),
                        run_report_html(results, ports(window_ns, run_ns),
                                        report_fabric(run.fabric->topology()), images, files));
}

}  // namespace

const std::vector<std::string>& run_output_files() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> f = {"results.json", "time_series.csv", "time_series.gp", "time_series.png",
                                  "time_series.svg", "trace.pcap", "trace_links.csv", "waves.vcd"};
    std::vector<std::string> tables = {"packets", "fct"};
    for (const ResultTable& t : result_tables()) tables.push_back(t.name);
    for (const std::string& t : tables)
      for (bool compress : {false, true}) f.push_back(table_file_name(t, compress));
    return f;
  }();
  return files;
}

// The summary of a run across MPI ranks: the one-rank summary when every rank computed the same
// results.json (`whole`), else only its lines of figures every rank agrees on (the simulated time and
// the packet ledger, reduced across ranks at every barrier); then the tables rank 0 wrote from
// every rank's rows, and what is not written across ranks yet.
std::string ranks_summary(const std::string& summary, bool whole, const std::vector<std::string>& tables,
                          const std::vector<std::string>& not_written) {
  std::string out = whole ? summary : std::string();
  std::size_t at = 0;
  while (!whole && at < summary.size()) {
    std::size_t end = summary.find('\n', at);
    end = end == std::string::npos ? summary.size() : end + 1;
    const std::string line = summary.substr(at, end - at);
    if (line.rfind("simulated: ", 0) == 0 || line.rfind("packets: ", 0) == 0) out += line;
    at = end;
  }
  out += fmt::format("ranks: {} MPI ranks; tables gathered to rank 0: {}\n", ranks::size(),
                     tables.empty() ? std::string("none") : fmt::format("{}", fmt::join(tables, ", ")));
  if (!not_written.empty())
    out += fmt::format("ranks: not written across ranks yet: {}\n", fmt::join(not_written, "; "));
  return out;
}

// The first key (a path: "congestion_control.totals.cnp_sent") where two results.json differ.
static std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return {};
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key)) return key;
    if (b[key] == value) continue;
    const std::string below = first_difference(value, b[key]);
    return below.empty() ? key : key + "." + below;
  }
  return {};
}

// Why rank 0's results.json (`mine`) is not every rank's (`all`: each rank's, dumped), naming the
// first rank and key that differ; empty when they agree.
std::string results_disagreement(const nlohmann::json& mine, const std::vector<std::vector<std::uint8_t>>& all) {
  const std::string text = mine.dump();
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (std::string(all[r].begin(), all[r].end()) == text) continue;
    const std::string key = first_difference(mine, nlohmann::json::parse(all[r].begin(), all[r].end()));
    return key.empty() ? fmt::format("ranks 0 and {} differ", r) : fmt::format("ranks 0 and {} differ on {}", r, key);
  }
  return {};
}

namespace {

// Across MPI ranks, the rows of `output`'s table: every rank sends its own (every rank calls this
// for the same outputs in the same order), and rank 0 takes each row from the rank that simulates
// the node named by the first key of the row or of its top-level parent (a port's, a switch's, an
// HCA's); other rows must be the same on every rank (stats_rank_merge.h). The other ranks get
// nothing.
RankRowsMerge gather_table(const StatsRegistry& stats, StatOutputs output, const Fabric& fabric) {
  const Topology& topo = fabric.topology();
  return gather_table_by_node(stats, output, fabric.partitioning(),
                              [&topo](const std::string& name) { return topo.find_node(name); });
}
// Across MPI ranks (every rank calls it): whether rank 0 writes results.json (every rank computed
// the same, take_in_rank_tallies) and report.html's ports (the ranks' port rows, merged as the
// tables are), or why not. The other ranks get nothing.
struct RanksResults {
  bool results = false;
  std::shared_ptr<const StatsSnapshot> ports;  // null: no report.html
  std::vector<std::string> not_written;
};
RanksResults results_across_ranks(const ScenarioRun& run, const CollectedResults& c,
                                  const std::vector<StatKindInfo>& kinds) {
  const std::string json = c.results.dump();
  const std::vector<std::vector<std::uint8_t>> all = ranks::gather(std::vector<std::uint8_t>(json.begin(), json.end()));
  constexpr StatOutputs kReportPorts =
      kPortsCsv | kPortVlsCsv | kDiscardsCsv | kPortUtilizationCsv | kCreditStallCsv | kCcSwitchPortsCsv;
  RankRowsMerge ports = gather_table(c.registry, kReportPorts, *run.fabric);
  RanksResults r;
  if (ranks::rank() != 0) return r;
  const std::string differs = results_disagreement(c.results, all);
  if (!differs.empty()) {
    r.not_written = {fmt::format("results.json ({})", differs), "report.html"};
    return r;
  }
  r.results = true;
  if (ports.merged()) r.ports = std::make_shared<const StatsSnapshot>(StatsSnapshot{kinds, std::move(ports.rows)});
  else r.not_written.push_back(fmt::format("report.html ({})", ports.disagreement));
  return r;
}

}  // namespace

std::string partitions_line(const Partitioning& p, std::size_t cables) {
  const CalendarProcess& cal = CalendarProcess::shared();
  if (!cal.windowed()) return "";
  const std::string threads =
      partition_threads() > 1 ? fmt::format(" ({} on {} threads)", threaded_windows(), partition_threads()) : std::string();
  // Across MPI ranks each rank counts its own partitions' crossings (every rank builds this line).
  std::vector<std::uint64_t> crossed{cal.cross_partition_events()};
  if (ranks::several()) ranks::sum(crossed);
  return fmt::format("partitions: {} ({}), {} of {} cables cut; {} windows of {}{}, {} events crossed between partitions\n",
                     p.parts, partition_method_name(p.method), p.cut_cables.size(), cables,
                     cal.windows_run(), format_duration(cal.window()), threads, crossed[0]);
}

RunResult write_results(ScenarioRun& run, CollectedResults& c) {
  const std::filesystem::path& dir = run.dir;
  const StatsRegistry& stats = c.registry;
  const std::vector<StatKindInfo> kinds = stats.kind_infos();
  const bool compress = run.sc.outputs.compress;
  // The files in order, each a step of the progress line: the tables first, written line by line
  // as they are made (report/table_file.h), then results.json with their index ("tables"), then
  // report.html, which links them all.
  struct Step {
    std::string file;
    std::uint64_t rows = 0;  // a table's rows, for the progress line
    std::function<void()> write;
  };
  std::vector<Step> steps;
  nlohmann::json index = nlohmann::json::object();
  auto table = [&](const std::string& name, std::uint64_t rows, std::function<void(TableFile&)> fill) {
    const std::string file = table_file_name(name, compress);
    steps.push_back({file, rows, [&, name, file, fill = std::move(fill)] {
                       TableFile t((dir / file).string(), compress);
                       t.publish_lines(&run.results_lines);
                       fill(t);
                       t.close();
                       index[name] = {{"file", file}, {"rows", t.lines() ? t.lines() - 1 : 0}};
                     }});
  };
  std::vector<std::string> gathered, not_written;  // across MPI ranks
  for (const ResultTable& rt : result_tables()) {
    if (!has_stats_output(kinds, rt.output)) continue;
    const StatOutput output = rt.output;
    if (ranks::several()) {
      RankRowsMerge m = gather_table(stats, output, *run.fabric);
      if (ranks::rank() != 0) continue;
      const std::string file = table_file_name(rt.name, compress);
      if (!m.merged()) {
        not_written.push_back(fmt::format("{} ({})", file, m.disagreement));
        continue;
      }
      gathered.push_back(file);
      auto merged = std::make_shared<const StatsSnapshot>(StatsSnapshot{kinds, std::move(m.rows)});
      table(rt.name, stats_csv_rows(*merged, output), [merged, output](TableFile& t) {
        write_stats_csv(*merged, output, [&t](std::string_view line) { t.write(line); });
      });
      continue;
    }
    table(rt.name, stats.rows_in(output), [&stats, output](TableFile& t) {
      write_stats_csv(stats, output, [&t](std::string_view line) { t.write(line); });
    });
  }
  auto results_step = [&] {
    steps.push_back({"results.json", 0, [&] {
                       c.results["tables"] = index;
                       write_json_atomically((dir / "results.json").string(), c.results);
                     }});
  };
  auto time_series_step = [&] {
    steps.push_back({"time_series.csv", 0, [&] {
                       c.facts.time_series = write_time_series(run);  // plain: gnuplot reads it
                       index["time_series"] = {{"file", "time_series.csv"}, {"rows", c.facts.time_series->samples}};
                     }});
  };
  // Across MPI ranks the tables and the time series are gathered (each rank sampled what it
  // simulates). Every rank computed results.json from every rank's tallies (take_in_rank_tallies);
  // rank 0 writes it only if every rank's is the same, byte for byte: a figure still read from one
  // rank's modules would differ. report.html draws its ports from the ranks' rows, merged as the
  // tables are.
  bool whole = false;  // results.json written across ranks
  if (ranks::several()) {
    // Each collective class's iterations, from its rank (TrafficClass::take_in_figures): the same
    // text on every rank.
    if (const std::string fct = fct_csv(run); !fct.empty() && ranks::rank() == 0) {
      table("fct", rows_of(fct), [fct](TableFile& t) { t.write(fct); });
      gathered.push_back(table_file_name("fct", compress));
    }
    if (run.sampler) {
      const std::vector<std::vector<std::uint8_t>> all = ranks::gather(run.sampler->encode_samples());
      if (ranks::rank() == 0) {
        run.sampler->merge_samples(all);
        gathered.push_back("time_series.csv");
        time_series_step();
      }
    }
    RanksResults rr = results_across_ranks(run, c, kinds);
    not_written.insert(not_written.end(), rr.not_written.begin(), rr.not_written.end());
    whole = rr.results;
    if (rr.results) results_step();
    if (rr.ports)
      steps.push_back({"report.html", 0, [&, ports = rr.ports] {
                         write_report_html(run, c.results, [ports](double window_ns, double run_ns) {
                           return report_ports(*ports, window_ns, run_ns);
                         });
                       }});
  } else {
    if (run.sc.outputs.packet_log)
      table("packets", rows_of(run.packet_log.csv()), [&](TableFile& t) { t.write(run.packet_log.csv()); });
    const std::string fct = fct_csv(run);
    // By value: the step runs after this block has ended.
    if (!fct.empty()) table("fct", rows_of(fct), [fct](TableFile& t) { t.write(fct); });
    if (run.sampler) time_series_step();
    results_step();
    steps.push_back({"report.html", 0, [&] {
                       write_report_html(run, c.results, [&stats](double window_ns, double run_ns) {
                         return report_ports(stats, window_ns, run_ns);
                       });
                     }});
  }
  // The progress line reads the names from the run, which outlives it.
  for (const Step& st : steps) run.results_files.push_back(st.file);
  run.results_of.store(static_cast<unsigned>(steps.size()), std::memory_order_relaxed);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    run.results_lines.store(0, std::memory_order_relaxed);
    run.results_rows_of.store(steps[i].rows, std::memory_order_relaxed);
    run.results_index.store(static_cast<unsigned>(i + 1), std::memory_order_relaxed);
    run.results_file.store(run.results_files[i].c_str(), std::memory_order_relaxed);
    steps[i].write();
  }

  RunResult r;
  r.summary = ranks::several() ? ranks_summary(run_summary(c.facts, c.results), whole, gathered, not_written)
                              : run_summary(c.facts, c.results);
  r.summary += partitions_line(run.fabric->partitioning(), run.fabric->topology().cables.size());
  r.results = std::move(c.results);
  r.bring_up_wall_seconds = run.bring_up_wall;
  r.bring_up_cpu_seconds = run.bring_up_cpu;
  r.simulate_wall_seconds = run.simulate_wall;
  r.partial = run.partial;
  r.simulate_cpu_seconds = run.simulate_cpu;
  r.traffic_windows = run.traffic_windows;
  r.traffic_crossings = run.traffic_crossings;
  return r;
}

}  // namespace ibfsim
