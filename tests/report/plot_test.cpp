// Plots fit for a paper: the gnuplot scripts ibfsim writes (sweep curves, metrics, trade-offs,
// time series) run no text through enhanced mode, give every axis its unit, keep a series in one
// colour across plots and panels, label saturation points, keep legends off the data, and use no
// colour too pale for white paper; and gnuplot renders them to SVG with the names as written.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sim/report/curve.h"
#include "sim/report/plot_style.h"
#include "sim/report/time_series_plot.h"
#include "tests/report/scratch_dir.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;

namespace {

nlohmann::json point(double offered, double accepted, double mean_ns) {
  nlohmann::json j;
  j["partial"] = false;
  j["load"] = {{"offered", offered}, {"accepted", accepted}, {"offered_payload_gbps", offered * 100},
               {"accepted_payload_gbps", accepted * 100}, {"sources", 8}};
  j["message_latency"] = {{"count", 100}, {"mean_ns", mean_ns}, {"p50_ns", mean_ns}, {"p90_ns", mean_ns},
                          {"p99_ns", 2 * mean_ns}, {"p99_9_ns", 2 * mean_ns}, {"max_ns", 3 * mean_ns}};
  j["saturation"] = {{"saturated", false}};
  j["flows"] = {{{"name", "victim"}, {"gbps", 30 + 10 * offered}}};
  j["ports"] = {{{"node", "spine"}, {"port", 5}, {"window", {{"busy_fraction", 0.9 + offered / 10}}}}};
  return j;
}

// Two series (a second swept key), the second saturating at 0.6; two metrics, one with a unit given.
Curve two_series_curve() {
  const std::vector<CurveMetric> metrics = {parse_metric("victim_gbps=flows[name=victim].gbps", "m1"),
                                            parse_metric("hot_link_busy=ports[node=spine,port=5].window.busy_fraction", "m2")};
  return build_curve({"workload.load", "workload.pattern"},
                     {{"0.2", "uniform"}, {"0.2", "shift"}, {"0.6", "uniform"}, {"0.6", "shift"}},
                     {point(0.2, 0.2, 500), point(0.2, 0.2, 600), point(0.6, 0.6, 700), point(0.6, 0.4, 9000)},
                     SaturationCriteria{}, metrics);
}

std::vector<std::string> lines_starting(const std::string& script, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

// Plot commands with their continuation lines joined.
std::vector<std::string> plot_commands(const std::string& script) {
  std::vector<std::string> out;
  std::istringstream in(script);
  bool cont = false;
  for (std::string line; std::getline(in, line);) {
    if (cont) out.back() += line;
    else if (line.rfind("plot ", 0) == 0) out.push_back(line);
    else continue;
    cont = !line.empty() && line.back() == '\\';
  }
  return out;
}

void check_common_style(const std::string& gp) {
  const auto terminals = lines_starting(gp, "set terminal");
  REQUIRE_FALSE(terminals.empty());
  for (const std::string& t : terminals) {
    INFO(t);
    CHECK(t.find(" noenhanced") != std::string::npos);  // every terminal: names print as written
  }
  for (const std::string& k : lines_starting(gp, "set key")) {
    INFO(k);
    CHECK(k.find("outside") != std::string::npos);  // legends never over the data
  }
  // Every colour the script names is dark enough for white paper (no pale yellow).
  const std::regex colour("#[0-9a-fA-F]{6}");
  std::size_t colours = 0;
  for (auto it = std::sregex_iterator(gp.begin(), gp.end(), colour); it != std::sregex_iterator(); ++it, ++colours) {
    INFO(it->str());
    CHECK(plot::relative_luminance(it->str()) < 0.5);
  }
  CHECK(colours >= 6);
  // Every axis that is labelled says its unit, in parentheses.
  for (const std::string& l : lines_starting(gp, "set xlabel"))
    if (l != "set xlabel ''") {
      INFO(l);
      CHECK(std::regex_search(l, std::regex(R"(\(.+\)'$)")));
    }
  for (const std::string& l : lines_starting(gp, "set ylabel")) {
    INFO(l);
    CHECK(std::regex_search(l, std::regex(R"(\(.+\)'$)")));
  }
}

std::string run_gnuplot(const ScratchDir& dir, const std::string& script_name) {
  const std::string cmd = "cd '" + dir.file("") + "' && gnuplot " + script_name + " 2>&1";
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  char buf[256];
  while (f && std::fgets(buf, sizeof buf, f)) out += buf;
  const int rc = f ? pclose(f) : -1;
  return rc == 0 ? "" : "gnuplot failed: " + out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("plot style: the series colours are dark enough for white paper and cycle", "[report][plot]") {
  CHECK(plot::relative_luminance("#ffffff") == Approx(1.0));
  CHECK(plot::relative_luminance("#000000") == Approx(0.0));
  CHECK(plot::relative_luminance("#f0e442") > 0.5);  // gnuplot's default yellow: pale, not used
  for (const std::string& c : plot::series_colours()) CHECK(plot::relative_luminance(c) < 0.5);
  CHECK(plot::series_linetype(0) == 1);
  CHECK(plot::series_linetype(plot::series_colours().size()) == 1);
  CHECK(plot::quote("it's") == "'it''s'");
}

TEST_CASE("metric units: given after the name, or from the figure's name", "[report][plot][metric]") {
  CHECK(parse_metric("v:Gb/s=flows[name=v].x", "m").unit == "Gb/s");
  CHECK(parse_metric("v=flows[name=v].throughput.accepted_payload_gbps", "m").unit == "Gb/s");
  CHECK(parse_metric("v=message_latency.p99_ns", "m").unit == "ns");
  CHECK(parse_metric("hot=ports[node=spine,port=5].window.busy_fraction", "m").unit == "fraction");
  CHECK(parse_metric("acc=load.accepted", "m").unit == "fraction of the injection link rate");
  CHECK(parse_metric("n=packets.created", "m").unit.empty());
  const CurveMetric m = parse_metric("v:Gb/s=a.b", "m");
  CHECK(m.name == "v");
  CHECK(m.selector == "a.b");
}

TEST_CASE("sweep plots: noenhanced, units, one colour per series in every plot, labelled saturation, outside legends",
          "[report][plot]") {
  const Curve c = two_series_curve();
  const std::string gp = gnuplot_script(c, "study");
  check_common_style(gp);
  // Every drawn series is linetype i+1 of its series: a series' mean and p99 and its accepted load
  // share a colour, and its metrics and trade-off too.
  const auto plots = plot_commands(gp);
  CHECK(plots.size() == 2 * 5);  // per terminal: latency, throughput, 2 metrics panels, the trade-off
  for (const std::string& p : plots) {
    INFO(p);
    std::size_t clauses = 0, styled = 0;
    for (std::size_t at = p.find("for [i="); at != std::string::npos; at = p.find("for [i=", at + 1)) ++clauses;
    for (std::size_t at = p.find("lt (i+1)"); at != std::string::npos; at = p.find("lt (i+1)", at + 1)) ++styled;
    CHECK(clauses >= 1);
    CHECK(styled == clauses);
  }
  // The second series saturates at 0.6: a line in its colour with a label naming it.
  CHECK(gp.find("set label 2 'saturation of workload.pattern=shift at 0.6'") != std::string::npos);
  CHECK(gp.find("lc rgb '" + plot::series_colours()[1] + "'") != std::string::npos);
  // Units on the load axes and on the metrics (one given by its name's suffix).
  CHECK(gp.find("set xlabel 'offered load (fraction of the injection link rate)'") != std::string::npos);
  CHECK(gp.find("set ylabel 'accepted load (fraction of the injection link rate)'") != std::string::npos);
  CHECK(gp.find("set ylabel 'message latency (ns)'") != std::string::npos);
  CHECK(gp.find("set ylabel 'victim_gbps (Gb/s)'") != std::string::npos);
  CHECK(gp.find("set xlabel 'victim_gbps (Gb/s)'") != std::string::npos);  // the trade-off's x
  CHECK(gp.find("set ylabel 'hot_link_busy (fraction)'") != std::string::npos);
}

TEST_CASE("sweep plots render: the SVG holds names with underscores as written, no subscripts", "[report][plot]") {
  const Curve c = two_series_curve();
  ScratchDir dir("plots");
  {
    std::ofstream(dir.file("plot.gp")) << gnuplot_script(c, "cc_victim");
    std::ofstream(dir.file("plot_data.csv")) << plot_data_csv(c);
    std::ofstream(dir.file("metrics_data.csv")) << metrics_data_csv(c);
  }
  REQUIRE(run_gnuplot(dir, "plot.gp").empty());
  const std::string tradeoff = slurp(dir.file("tradeoff.svg"));
  REQUIRE(tradeoff.size() > 1000);
  // Enhanced mode would have drawn "hot" then a subscript "link"...: the name would not be whole.
  CHECK(tradeoff.find("hot_link_busy (fraction)") != std::string::npos);
  CHECK(tradeoff.find("victim_gbps (Gb/s)") != std::string::npos);
  CHECK(tradeoff.find("cc_victim: hot_link_busy against victim_gbps") != std::string::npos);
  const std::string latency = slurp(dir.file("latency.svg"));
  CHECK(latency.find("saturation of workload.pattern=shift at 0.6") != std::string::npos);
  CHECK(latency.find("p99 workload.pattern=uniform") != std::string::npos);
  // No pale colour anywhere in the drawing's strokes.
  const std::regex stroke("stroke=['\"]rgb\\( *(\\d+), *(\\d+), *(\\d+)\\)['\"]");
  for (const std::string* svg : {&tradeoff, &latency})
    for (auto it = std::sregex_iterator(svg->begin(), svg->end(), stroke); it != std::sregex_iterator(); ++it) {
      const std::string hex = fmt::format("#{:02x}{:02x}{:02x}", std::stoi((*it)[1]), std::stoi((*it)[2]), std::stoi((*it)[3]));
      if (hex == "#ffffff" || hex == "#a0a0a0" || hex == "#808080" || hex == "#c0c0c0") continue;  // frame, grid
      INFO(hex);
      CHECK(plot::relative_luminance(hex) < 0.5);
    }
}

TEST_CASE("time-series plot: aligned axes from the first sample, a flow's name and colour in every panel",
          "[report][plot]") {
  TimeSeriesPlot p;
  p.dir = "/nowhere";
  p.csv_name = "time_series.csv";
  p.out_base = "time_series";
  p.title = "cc_victim: payload throughput per flow and CCTI, sampled every 5 us";
  p.first_ns = 50000;
  p.last_ns = 2150000;
  p.panels = {{"payload throughput per flow", "payload throughput (Gb/s)", {{2, "c1", 0}, {3, "victim", 1}}},
              {"congestion control index", "CCTI (index into the CCT)", {{4, "c1", 0}}},
              {"empty", "nothing (none)", {}},
              {"output queue depth", "output queue depth (64-byte blocks)", {{5, "spine/5", 2}}}};
  const std::string gp = time_series_gnuplot_script(p, "ts.png", "ts.svg");
  check_common_style(gp);
  // Every panel spans the first sample to the last with the same margins.
  CHECK(gp.find("set xrange [50.000000:2150.000000]") != std::string::npos);
  CHECK(gp.find("set lmargin at screen") != std::string::npos);
  CHECK(gp.find("set rmargin at screen") != std::string::npos);
  CHECK(gp.find("set multiplot layout 3,1 title 'cc_victim: payload throughput per flow and CCTI, sampled every 5 us'") !=
        std::string::npos);
  // c1 is linetype 1 in the rate panel and in the CCTI panel, named alike; no columnheader names.
  CHECK(gp.find("using ($1/1000):2 with lines lt 1 title 'c1'") != std::string::npos);
  CHECK(gp.find("using ($1/1000):4 with lines lt 1 title 'c1'") != std::string::npos);
  CHECK(gp.find("using ($1/1000):3 with lines lt 2 title 'victim'") != std::string::npos);
  CHECK(gp.find("columnheader") == std::string::npos);
  CHECK(lines_starting(gp, "set xlabel 'simulated time (us)'").size() == 2);  // the bottom panel of each image
  // Nothing to draw: no script.
  p.panels = {{"empty", "nothing (none)", {}}};
  CHECK(time_series_gnuplot_script(p, "a", "b").empty());
}
