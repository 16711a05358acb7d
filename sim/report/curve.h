// A load sweep's curve: one row per point from its results.json, the saturation point of each
// series, curve.csv, and the gnuplot script that renders the plots. Pure functions of the
// points' results, so `sweep -j 1`, `sweep -j N` and `--plan` + `collect` give the same bytes.
//
// Series: the first swept key is the curve's parameter (it moves the offered load); each
// combination of the other keys' values is one series (one line per plot).
//
// Metrics (`ibfsim sweep --metric NAME=SELECTOR`): any number of a point's results.json
// (json_select.h), one column each in curve.csv and drawn against the parameter in
// metrics.{png,svg}; with two or more, tradeoff.{png,svg} draws the second against the first, one
// point per parameter value (e.g. hot-link utilization against a victim's throughput as a
// congestion control threshold moves).
//
// A point is saturated (by default) when any of these holds:
//  * the run could not drain: measured messages were still undelivered when its drain phase ran out;
//  * accepted load < offered load x (1 - 0.05): the network no longer takes what is offered;
//  * mean message latency > 10 x the series' zero-load latency (its mean latency at the lowest
//    offered load).
// The series' saturation point is its first saturated point in order of offered load; its
// saturation throughput is the highest accepted load any of its points reached.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/json_select.h"

namespace ibfsim {

struct CurveMetric {
  std::string name;      // its column in curve.csv and its title in the plots
  std::string selector;  // where it is in results.json (json_select.h)
  std::string unit;      // on its plots' axes: given (NAME:UNIT=SELECTOR) or metric_unit(selector)
};

// The unit of a results.json figure from its name, as results.json names its figures: "_gbps"
// Gb/s, "_ns" ns, "_bytes" bytes, "_blocks" 64-byte blocks, "_packets" packets, "fraction" and a
// load's "offered"/"accepted" a fraction; "" when the name says nothing.
std::string metric_unit(const std::string& selector);

// `--metric NAME=SELECTOR` or `NAME:UNIT=SELECTOR`: the metric, its unit given or from
// metric_unit. Throws InputError naming `what` (e.g. "--metric ...") when it is not of that form.
CurveMetric parse_metric(const std::string& text, const std::string& what);

struct SaturationCriteria {
  double accepted_drop = 0.05;  // saturated when accepted < offered x (1 - this)
  double latency_factor = 10;   // ... or mean message latency > this x zero-load latency
};

struct CurveRow {
  std::size_t point = 0;
  std::vector<std::string> values;  // per swept key
  std::string status;               // ok, partial (interrupted), failed (no results.json)
  bool has_load = false;            // load-driven traffic: the load figures are set
  double offered_load = 0, accepted_load = 0, offered_gbps = 0, accepted_gbps = 0;
  std::uint64_t messages = 0;       // measured messages delivered
  std::optional<double> msg_mean, msg_p50, msg_p90, msg_p99, msg_p99_9, msg_max;  // ns
  std::optional<double> pkt_mean, pkt_p99, net_mean, fct_mean;                    // ns
  bool run_saturated = false;       // the run could not drain
  bool saturated = false;           // by the criteria
  std::vector<std::optional<double>> metrics;  // per Curve::metrics; nullopt: not in its results
};

struct CurveSeries {
  std::string label;                 // "k2=v2 k3=v3", or "" for a single series
  std::vector<std::size_t> rows;     // indices into Curve::rows with load figures (status ok), by offered load
  std::vector<std::size_t> metric_rows;  // indices into Curve::rows with status ok, in point order
  std::optional<double> zero_load_latency_ns;
  std::optional<std::size_t> saturation_row;  // the first saturated row
  double max_accepted_load = 0;
};

struct Curve {
  std::vector<std::string> keys;
  std::vector<CurveRow> rows;  // in point order
  std::vector<CurveSeries> series;
  SaturationCriteria criteria;
  std::vector<CurveMetric> metrics;
};

// How a metric's number is found in point i: by default in its results.json alone
// (json_select_number); a sweep passes one that also reads the point's tables (results_view.h).
using MetricSelect = std::function<std::optional<double>(std::size_t point, const nlohmann::json& results,
                                                         const std::vector<JsonSelectorStep>& selector)>;

// `values[i]`: point i's value of each key; `results[i]`: its results.json, if it has one.
// `metrics` must have been checked (parse_json_selector) by the caller.
Curve build_curve(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& values,
                  const std::vector<std::optional<nlohmann::json>>& results, const SaturationCriteria& criteria,
                  const std::vector<CurveMetric>& metrics = {}, const MetricSelect& select = {});

std::string curve_csv(const Curve& c);
// saturation.json: per series, the criteria, the saturation point and the figures around it.
nlohmann::json saturation_json(const Curve& c);
// A few lines for the terminal, one per series.
std::string saturation_summary(const Curve& c);
// plot_data.csv: one block per series (offered, accepted, mean, p99 in ns), blocks separated by
// two blank lines as gnuplot's `index` expects. Empty if no row has load figures.
std::string plot_data_csv(const Curve& c);
// metrics_data.csv: one block per series (the parameter's value, then each metric), in point
// order. Empty without metrics.
std::string metrics_data_csv(const Curve& c);
// The gnuplot script that reads plot_data.csv and writes latency.{png,svg} (message latency
// against offered load) and throughput.{png,svg} (accepted against offered load), when some point
// has load figures; and reads metrics_data.csv and writes metrics.{png,svg} (and tradeoff.{png,svg}
// with two metrics or more) when there are metrics. In its folder. Styled as plot_style.h says:
// no enhanced text, series i in colour i in every plot (a series' mean and p99 alike), legends
// outside, units on every axis that has one, each saturation point a labelled line.
std::string gnuplot_script(const Curve& c, const std::string& title);

}  // namespace ibfsim
