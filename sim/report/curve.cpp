#include "sim/report/curve.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "sim/core/error.h"
#include "sim/report/plot_style.h"

namespace ibfsim {

namespace {

std::optional<double> get(const nlohmann::json& j, const char* a, const char* b) {
  if (!j.contains(a) || !j[a].is_object() || !j[a].contains(b) || !j[a][b].is_number()) return std::nullopt;
  return j[a][b].get<double>();
}

// A CSV cell: quoted when it holds a comma or a quote.
std::string csv_cell(const std::string& v) { return v.find_first_of(",\"") == std::string::npos ? v : "\"" + v + "\""; }

std::string opt(const std::optional<double>& v, const char* fmt_spec = "{:.3f}") {
  return v ? fmt::format(fmt::runtime(fmt_spec), *v) : std::string();
}

}  // namespace

std::string metric_unit(const std::string& selector) {
  // The last member's name, without any [..] index or filter.
  std::string last = selector;
  while (!last.empty() && last.back() == ']') last.erase(last.rfind('['));
  if (const std::size_t dot = last.rfind('.'); dot != std::string::npos) last = last.substr(dot + 1);
  // The whole name, or its last part after '_' (victim_gbps, gbps).
  const auto ends = [&](std::string tail) {
    if (last == tail.substr(1)) return true;
    return last.size() >= tail.size() && last.compare(last.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends("_gbps")) return "Gb/s";
  if (ends("_ns")) return "ns";
  if (ends("_bytes")) return "bytes";
  if (ends("_blocks")) return "64-byte blocks";
  if (ends("_packets")) return "packets";
  if (ends("_fraction")) return "fraction";
  if (selector.rfind("load.", 0) == 0 && (last == "offered" || last == "accepted"))
    return "fraction of the injection link rate";
  return "";
}

CurveMetric parse_metric(const std::string& text, const std::string& what) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || text.find_first_of(",\"") < eq)
    throw InputError(what + ": expected NAME=SELECTOR or NAME:UNIT=SELECTOR (a name without ',' or '\"', then "
                     "where the number is in results.json, e.g. victim:Gb/s=flows[name=victim].throughput."
                     "accepted_payload_gbps)");
  CurveMetric m;
  m.selector = text.substr(eq + 1);
  parse_json_selector(m.selector, what);
  const std::string head = text.substr(0, eq);
  const std::size_t colon = head.find(':');
  m.name = head.substr(0, colon);
  if (m.name.empty()) throw InputError(what + ": expected a NAME before ':', got none");
  m.unit = colon == std::string::npos ? metric_unit(m.selector) : head.substr(colon + 1);
  return m;
}

Curve build_curve(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& values,
                  const std::vector<std::optional<nlohmann::json>>& results, const SaturationCriteria& criteria,
                  const std::vector<CurveMetric>& metrics, const MetricSelect& select) {
  Curve c;
  c.keys = keys;
  c.criteria = criteria;
  c.metrics = metrics;
  std::vector<std::vector<JsonSelectorStep>> selectors;
  for (const CurveMetric& m : metrics) selectors.push_back(parse_json_selector(m.selector, "metric " + m.name));
  for (std::size_t i = 0; i < values.size(); ++i) {
    CurveRow r;
    r.point = i;
    r.values = values[i];
    r.metrics.resize(metrics.size());
    if (!results[i]) {
      r.status = "failed";
      c.rows.push_back(r);
      continue;
    }
    const nlohmann::json& j = *results[i];
    for (std::size_t m = 0; m < metrics.size(); ++m)
      r.metrics[m] = select ? select(i, j, selectors[m]) : json_select_number(j, selectors[m]);
    r.status = j.value("partial", false) ? "partial" : "ok";
    if (j.contains("load") && j["load"].is_object()) {
      r.has_load = true;
      r.offered_load = j["load"]["offered"].get<double>();
      r.accepted_load = j["load"]["accepted"].get<double>();
      r.offered_gbps = j["load"]["offered_payload_gbps"].get<double>();
      r.accepted_gbps = j["load"]["accepted_payload_gbps"].get<double>();
    }
    if (j.contains("message_latency")) r.messages = j["message_latency"].value("count", std::uint64_t{0});
    r.msg_mean = get(j, "message_latency", "mean_ns");
    r.msg_p50 = get(j, "message_latency", "p50_ns");
    r.msg_p90 = get(j, "message_latency", "p90_ns");
    r.msg_p99 = get(j, "message_latency", "p99_ns");
    r.msg_p99_9 = get(j, "message_latency", "p99_9_ns");
    r.msg_max = get(j, "message_latency", "max_ns");
    r.pkt_mean = get(j, "packet_latency", "mean_ns");
    r.pkt_p99 = get(j, "packet_latency", "p99_ns");
    r.net_mean = get(j, "packet_network_latency", "mean_ns");
    if (j.contains("flows"))
      for (const auto& f : j["flows"])
        if (!r.fct_mean && f.contains("collective") && f["collective"].contains("fct_ns"))
          r.fct_mean = f["collective"]["fct_ns"]["mean"].get<double>();
    r.run_saturated = j.contains("saturation") && j["saturation"].value("saturated", false);
    c.rows.push_back(r);
  }
  // Series: rows grouped by the values of every key but the first.
  std::map<std::vector<std::string>, std::size_t> index;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const CurveRow& r = c.rows[i];
    const std::vector<std::string> rest(r.values.begin() + (r.values.empty() ? 0 : 1), r.values.end());
    auto it = index.find(rest);
    if (it == index.end()) {
      CurveSeries s;
      for (std::size_t k = 1; k < keys.size(); ++k) s.label += (k > 1 ? " " : "") + keys[k] + "=" + rest[k - 1];
      it = index.emplace(rest, c.series.size()).first;
      c.series.push_back(s);
    }
    // An interrupted point's figures cover part of its window only: listed, not plotted or judged.
    if (r.has_load && r.status == "ok") c.series[it->second].rows.push_back(i);
    if (r.status == "ok") c.series[it->second].metric_rows.push_back(i);
  }
  for (CurveSeries& s : c.series) {
    std::stable_sort(s.rows.begin(), s.rows.end(),
                     [&](std::size_t a, std::size_t b) { return c.rows[a].offered_load < c.rows[b].offered_load; });
    if (!s.rows.empty()) s.zero_load_latency_ns = c.rows[s.rows.front()].msg_mean;
    for (std::size_t i : s.rows) {
      CurveRow& r = c.rows[i];
      r.saturated = r.run_saturated || r.accepted_load < r.offered_load * (1 - criteria.accepted_drop) ||
                    (r.msg_mean && s.zero_load_latency_ns && *r.msg_mean > criteria.latency_factor * *s.zero_load_latency_ns);
      if (r.saturated && !s.saturation_row) s.saturation_row = i;
      s.max_accepted_load = std::max(s.max_accepted_load, r.accepted_load);
    }
  }
  return c;
}

std::string curve_csv(const Curve& c) {
  std::string out = "point";
  for (const std::string& k : c.keys) out += "," + k;
  out += ",status,offered_load,accepted_load,offered_payload_gbps,accepted_payload_gbps,messages,msg_mean_ns,"
         "msg_p50_ns,msg_p90_ns,msg_p99_ns,msg_p99_9_ns,msg_max_ns,pkt_mean_ns,pkt_p99_ns,net_mean_ns,fct_mean_ns,"
         "run_saturated,saturated";
  for (const CurveMetric& m : c.metrics) out += "," + m.name;
  out += "\n";
  for (const CurveRow& r : c.rows) {
    out += std::to_string(r.point);
    for (const std::string& v : r.values) out += "," + csv_cell(v);
    out += "," + r.status;
    if (r.has_load)
      out += fmt::format(",{:.6f},{:.6f},{:.4f},{:.4f}", r.offered_load, r.accepted_load, r.offered_gbps, r.accepted_gbps);
    else
      out += ",,,,";
    out += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{}", r.messages, opt(r.msg_mean), opt(r.msg_p50),
                       opt(r.msg_p90), opt(r.msg_p99), opt(r.msg_p99_9), opt(r.msg_max), opt(r.pkt_mean),
                       opt(r.pkt_p99), opt(r.net_mean), opt(r.fct_mean), r.run_saturated ? 1 : 0, r.saturated ? 1 : 0);
    for (const auto& m : r.metrics) out += "," + opt(m, "{:.6g}");
    out += "\n";
  }
  return out;
}

nlohmann::json saturation_json(const Curve& c) {
  nlohmann::json j;
  j["criteria"] = {{"accepted_below_offered_times", 1 - c.criteria.accepted_drop},
                   {"latency_above_zero_load_times", c.criteria.latency_factor},
                   {"or_run_could_not_drain", true}};
  nlohmann::json series = nlohmann::json::array();
  for (const CurveSeries& s : c.series) {
    nlohmann::json sj;
    sj["series"] = s.label;
    sj["points"] = s.rows.size();
    sj["zero_load_latency_ns"] = s.zero_load_latency_ns ? nlohmann::json(*s.zero_load_latency_ns) : nlohmann::json(nullptr);
    sj["saturation_throughput"] = s.max_accepted_load;  // highest accepted load reached
    sj["saturated"] = s.saturation_row.has_value();
    if (s.saturation_row) {
      const CurveRow& r = c.rows[*s.saturation_row];
      sj["saturation_point"] = {{"point", r.point}, {"offered_load", r.offered_load}, {"accepted_load", r.accepted_load}};
      const auto pos = std::find(s.rows.begin(), s.rows.end(), *s.saturation_row) - s.rows.begin();
      if (pos > 0) {
        const CurveRow& p = c.rows[s.rows[pos - 1]];
        sj["last_unsaturated"] = {{"point", p.point}, {"offered_load", p.offered_load}, {"accepted_load", p.accepted_load}};
      }
    }
    series.push_back(sj);
  }
  j["series"] = series;
  return j;
}

std::string saturation_summary(const Curve& c) {
  std::string out;
  for (const CurveSeries& s : c.series) {
    if (s.rows.empty()) continue;
    out += s.label.empty() ? "curve" : "series " + s.label;
    if (s.zero_load_latency_ns) out += fmt::format(": zero-load latency {:.1f} ns", *s.zero_load_latency_ns);
    if (s.saturation_row) {
      const CurveRow& r = c.rows[*s.saturation_row];
      out += fmt::format(", saturates at offered load {:.4f} (accepted {:.4f})", r.offered_load, r.accepted_load);
    } else {
      out += ", not saturated up to the highest offered load";
    }
    out += fmt::format(", highest accepted load {:.4f}\n", s.max_accepted_load);
  }
  return out;
}

namespace {

// One block per series, as gnuplot's `index` expects (blocks separated by two blank lines): a
// "# label" line, then `line(row)` for each of the series' rows that `rows_of` lists.
template <typename RowsOf, typename Line>
std::string series_blocks(const Curve& c, RowsOf rows_of, Line line) {
  std::string out;
  bool first = true;
  for (const CurveSeries& s : c.series) {
    if (!first) out += "\n\n";
    first = false;
    out += "# " + (s.label.empty() ? std::string("curve") : s.label) + "\n";
    for (std::size_t i : rows_of(s)) out += line(c.rows[i]) + "\n";
  }
  return out;
}

}  // namespace

std::string plot_data_csv(const Curve& c) {
  return series_blocks(
      c, [](const CurveSeries& s) -> const std::vector<std::size_t>& { return s.rows; },
      [](const CurveRow& r) {
        return fmt::format("{:.6f},{:.6f},{},{}", r.offered_load, r.accepted_load, opt(r.msg_mean), opt(r.msg_p99));
      });
}

std::string metrics_data_csv(const Curve& c) {
  if (c.metrics.empty()) return "";
  return series_blocks(
      c, [](const CurveSeries& s) -> const std::vector<std::size_t>& { return s.metric_rows; },
      [](const CurveRow& r) {
        std::string line = csv_cell(r.values.empty() ? "" : r.values.front());
        for (const auto& m : r.metrics) line += "," + opt(m, "{:.6g}");
        return line;
      });
}

namespace {

bool numeric(const std::string& v) {
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return !v.empty() && end != v.c_str() && *end == '\0';
}

using plot::quote;

// "name (unit)", or the name alone without a unit.
std::string with_unit(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : name + " (" + unit + ")";
}

// The x axis of the metrics plots: the first swept key, with the unit of a load.
std::string parameter_label(const Curve& c) {
  const std::string param = c.keys.empty() ? "point" : c.keys.front();
  const bool load = param == "workload.load" || (param.size() > 5 && param.compare(param.size() - 5, 5, ".load") == 0);
  return with_unit(param, load ? "offered load, fraction of the injection link rate" : "");
}

// The legend entry of series i: its label, or `single` when there is one series.
std::string series_title(const Curve& c, const std::string& single, const std::string& prefix = "") {
  if (c.series.size() == 1) return quote(single);
  return prefix.empty() ? "series(i)" : quote(prefix) + ".series(i)";
}

// metrics.{png,svg} and tradeoff.{png,svg}: metrics_data.csv, one index per series; series i is
// linetype i + 1 in every panel and in the trade-off.
std::string metrics_plots(const Curve& c, const std::string& title) {
  bool all_numeric = true;
  for (const CurveRow& r : c.rows) all_numeric = all_numeric && !r.values.empty() && numeric(r.values.front());
  const std::string param = c.keys.empty() ? "point" : c.keys.front();
  // Non-numeric parameter values are categories along x, in point order.
  const std::string x = all_numeric ? "1" : "0";
  const std::string xtic = all_numeric ? "" : ":xtic(1)";
  const std::size_t n = c.series.size();
  std::string s;
  // One panel per metric: their units differ.
  for (const plot::Terminal& t : plot::terminals(1000, static_cast<unsigned>(250 * c.metrics.size() + 100))) {
    s += fmt::format("\n{}\nset output 'metrics.{}'\nset key outside right top\nset xrange [*:*]\nset yrange [*:*]\n"
                     "set multiplot layout {},1 title {}\n",
                     t.line, t.ext, c.metrics.size(), quote(title + ": metrics against " + param));
    for (std::size_t m = 0; m < c.metrics.size(); ++m) {
      s += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n"
                       "plot for [i=0:{}] 'metrics_data.csv' index i using {}:{}{} with linespoints lt (i+1) title {}\n",
                       quote(c.metrics[m].name), quote(parameter_label(c)),
                       quote(with_unit(c.metrics[m].name, c.metrics[m].unit)), n - 1, x, m + 2, xtic,
                       series_title(c, c.metrics[m].name));
    }
    s += "unset multiplot\n";
    if (c.metrics.size() >= 2) {
      // The trade-off: each point labelled with its parameter value, in its series' colour.
      s += fmt::format("{}\nset output 'tradeoff.{}'\nset key outside right top\nset title {}\nset xlabel {}\n"
                       "set ylabel {}\n"
                       "plot for [i=0:{}] 'metrics_data.csv' index i using 2:3 with linespoints lt (i+1) title {}, \\\n"
                       "     for [i=0:{}] 'metrics_data.csv' index i using 2:3:1 with labels offset 1,1 tc lt (i+1) notitle\n",
                       t.line, t.ext,
                       quote(title + ": " + c.metrics[1].name + " against " + c.metrics[0].name + " (points labelled with " +
                             param + ")"),
                       quote(with_unit(c.metrics[0].name, c.metrics[0].unit)),
                       quote(with_unit(c.metrics[1].name, c.metrics[1].unit)), n - 1, series_title(c, param), n - 1);
    }
  }
  return s;
}

}  // namespace

std::string gnuplot_script(const Curve& c, const std::string& title) {
  std::string labels;
  for (std::size_t i = 0; i < c.series.size(); ++i) labels += fmt::format("label{} = {}\n", i, quote(c.series[i].label));
  const std::size_t n = c.series.size();
  std::string s = fmt::format(
      "# gnuplot script written by ibfsim: renders the curve of {}\n"
      "set datafile separator ','\n"
      "set datafile missing ''\n"
      "set grid\n"
      "{}"
      "{}"
      "series(i) = value(sprintf('label%d', i))\n",
      title, plot::linetype_setup(), labels);
  // Saturation points: a dashed vertical line in the series' colour, labelled with the offered
  // load it saturates at (and the series, when there are several), in both plots.
  std::string marks;
  for (std::size_t i = 0; i < n; ++i) {
    const CurveSeries& ser = c.series[i];
    if (!ser.saturation_row) continue;
    const double x = c.rows[*ser.saturation_row].offered_load;
    const std::string text = fmt::format("saturation{} at {:.3g}", n == 1 ? "" : " of " + ser.label, x);
    marks += fmt::format(
        "set arrow from {:.6f}, graph 0 to {:.6f}, graph 1 nohead dashtype 2 lw 1.5 lc rgb '{}'\n"
        "set label {} {} at {:.6f}, graph 0.98 right rotate by 90 offset -0.6,0 tc rgb '{}' front\n",
        x, x, plot::series_colours()[plot::series_linetype(i) - 1], i + 1, quote(text), x,
        plot::series_colours()[plot::series_linetype(i) - 1]);
  }
  const std::string load_unit = "fraction of the injection link rate";
  bool any_load = false;
  for (const CurveRow& r : c.rows) any_load = any_load || r.has_load;
  for (const plot::Terminal& t : plot::terminals(1000, 650)) {
    if (!any_load) break;
    // Series i is linetype i + 1 in both plots: its mean (solid, filled points) and p99 (dotted,
    // open points) share its colour, and so does its accepted load.
    s += fmt::format(
        "\n{}\n"
        "set output 'latency.{}'\n"
        "set key outside right top\n"
        "set title {}\n"
        "set xlabel {}\n"
        "set ylabel 'message latency (ns)'\n"
        "set logscale y\n"
        "set xrange [0:*]\n"
        "{}"
        "plot for [i=0:{}] 'plot_data.csv' index i using 1:3 with linespoints lt (i+1) pt 7 title {}, \\\n"
        "     for [i=0:{}] 'plot_data.csv' index i using 1:4 with linespoints lt (i+1) pt 6 dashtype 3 title {}\n"
        "unset logscale y\n"
        "set output 'throughput.{}'\n"
        "set title {}\n"
        "set ylabel {}\n"
        "set xrange [0:*]\n"
        "set yrange [0:*]\n"
        "plot x with lines dashtype 2 lw 1 lc rgb 'gray50' title 'accepted = offered', \\\n"
        "     for [i=0:{}] 'plot_data.csv' index i using 1:2 with linespoints lt (i+1) pt 7 title {}\n"
        "set yrange [*:*]\n"
        "unset arrow\n"
        "unset label\n",
        t.line, t.ext, quote(title + ": message latency against offered load"),
        quote("offered load (" + load_unit + ")"), marks, n - 1, series_title(c, "mean", "mean "), n - 1,
        series_title(c, "p99", "p99 "), t.ext, quote(title + ": accepted against offered load"),
        quote("accepted load (" + load_unit + ")"), n - 1, series_title(c, "accepted"));
  }
  if (!c.metrics.empty()) s += metrics_plots(c, title);
  return s;
}

}  // namespace ibfsim
