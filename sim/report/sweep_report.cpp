#include "sim/report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/report/plot_style.h"

namespace ibfsim {

namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
};

Axis make_axis(std::vector<double> values, bool log, bool from_zero) {
  Axis a;
  a.log = log;
  values.erase(std::remove_if(values.begin(), values.end(), [&](double v) { return !std::isfinite(v) || (log && v <= 0); }),
               values.end());
  if (values.empty()) values = {log ? 1.0 : 0.0, log ? 10.0 : 1.0};
  double lo = *std::min_element(values.begin(), values.end()), hi = *std::max_element(values.begin(), values.end());
  if (from_zero && !log) lo = std::min(lo, 0.0);
  if (log) {
    lo = std::pow(10, std::floor(std::log10(lo)));
    hi = std::pow(10, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
    for (double t = lo; t <= hi * 1.0001; t *= 10) a.ticks.push_back(t);
  } else {
    if (hi <= lo) hi = lo + 1;
    const double raw = (hi - lo) / 5;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    lo = std::floor(lo / step) * step;
    hi = std::ceil(hi / step) * step;
    for (double t = lo; t <= hi + step * 1e-9; t += step) a.ticks.push_back(t);
  }
  a.lo = lo;
  a.hi = hi;
  return a;
}

double scale(const Axis& a, double v, double from, double to) {
  const double f = a.log ? (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo)) : (v - a.lo) / (a.hi - a.lo);
  return from + f * (to - from);
}

std::string tick_text(double v) {
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3)) return fmt::format("{:.0e}", v);
  std::string s = fmt::format("{:.4f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

struct ChartSeries {
  std::string name;
  std::size_t colour = 0;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> links, labels;  // per point
};

// A chart in SVG with every point a link.
std::string chart(const std::string& id, const std::string& title, const std::string& xlabel, const std::string& ylabel,
                  const std::vector<ChartSeries>& series, bool log_y, const std::vector<std::pair<double, std::string>>& marks = {}) {
  const double W = 760, H = 380, L = 80, R = 200, T = 30, B = 50;
  std::vector<double> xs, ys;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  const Axis ax = make_axis(xs, false, true), ay = make_axis(ys, log_y, true);
  std::string s = fmt::format("<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
                              "font-family=\"sans-serif\" font-size=\"11\">\n",
                              id, W, H, W, H);
  s += fmt::format("<text x=\"{:.0f}\" y=\"18\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n", (L + W - R) / 2, html_escape(title));
  for (double t : ax.ticks) {
    const double x = scale(ax, t, L, W - R);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#e4e4e4\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3:.0f}\" text-anchor=\"middle\">{4}</text>\n",
                     x, T, H - B, H - B + 15, tick_text(t));
  }
  for (double t : ay.ticks) {
    const double y = scale(ay, t, H - B, T);
    s += fmt::format("<line x1=\"{1:.0f}\" y1=\"{0:.1f}\" x2=\"{2:.0f}\" y2=\"{0:.1f}\" stroke=\"#e4e4e4\"/>"
                     "<text x=\"{3:.0f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                     y, L, W - R, L - 5, y + 4, tick_text(t));
  }
  s += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W - R - L,
                   H - B - T);
  s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, H - 12, html_escape(xlabel));
  s += fmt::format("<text transform=\"translate(16 {:.0f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", (T + H - B) / 2,
                   html_escape(ylabel));
  for (const auto& [x, text] : marks) {
    const double px = scale(ax, x, L, W - R);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#666\" stroke-dasharray=\"5 4\"/>"
                     "<text x=\"{3:.1f}\" y=\"{4:.0f}\" font-size=\"10\" fill=\"#444\">{5}</text>\n",
                     px, T, H - B, px + 3, T + 12, html_escape(text));
  }
  double ly = T + 10;
  for (const auto& se : series) {
    const std::string c = plot::series_colours()[plot::series_linetype(se.colour) - 1];
    std::string pts;
    for (const auto& [x, y] : se.points)
      if (!log_y || y > 0) pts += fmt::format("{:.1f},{:.1f} ", scale(ax, x, L, W - R), scale(ay, y, H - B, T));
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n", c,
                     se.dashed ? " stroke-dasharray=\"3 3\"" : "", pts);
    for (std::size_t i = 0; i < se.points.size(); ++i) {
      const auto& [x, y] = se.points[i];
      if (log_y && y <= 0) continue;
      s += fmt::format("<a class=\"point\" href=\"{}\"><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"#fff\"/>"
                       "<title>{}</title></a>\n",
                       html_escape(se.links[i]), scale(ax, x, L, W - R), scale(ay, y, H - B, T), se.dashed ? "#fff" : c,
                       html_escape(se.labels[i]));
    }
    s += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.0f}\" x2=\"{2:.0f}\" y2=\"{1:.0f}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
                     "<text x=\"{5:.0f}\" y=\"{6:.0f}\">{7}</text>\n",
                     W - R + 10, ly, W - R + 30, c, se.dashed ? " stroke-dasharray=\"3 3\"" : "", W - R + 35, ly + 4,
                     html_escape(se.name));
    ly += 16;
  }
  return s + "</svg>\n";
}

}  // namespace

std::string sweep_report_html(const Curve& c, const std::string& title, const std::vector<std::string>& point_dirs,
                              const std::vector<ReportImage>& images, const std::vector<std::string>& files) {
  std::string s = page_head("ibfsim sweep report: " + title);
  s += fmt::format("<h1>ibfsim sweep: {}</h1>\n", html_escape(title));
  s += "<p><a href=\"#summary\">Saturation</a> · <a href=\"#curves\">Curves</a> · <a href=\"#points\">Points</a>";
  if (!images.empty()) s += " · <a href=\"#plots\">Plots</a>";
  s += " · <a href=\"#files\">Files</a></p>\n";
  auto link = [&](std::size_t row) { return point_dirs.at(c.rows[row].point) + "/report.html"; };
  auto point_label = [&](std::size_t row) {
    std::string l = fmt::format("point {}:", c.rows[row].point);
    for (std::size_t k = 0; k < c.keys.size() && k < c.rows[row].values.size(); ++k) l += " " + c.keys[k] + "=" + c.rows[row].values[k];
    return l;
  };
  // Saturation per series.
  s += "<h2 id=\"summary\">Saturation</h2>\n<table>\n<tr><th class=\"l\">series</th><th>zero-load latency</th>"
       "<th>saturates at offered</th><th>(accepted)</th><th>highest accepted load</th></tr>\n";
  for (const CurveSeries& ser : c.series) {
    if (ser.rows.empty()) continue;
    std::string sat = "not saturated", acc;
    if (ser.saturation_row) {
      const CurveRow& r = c.rows[*ser.saturation_row];
      sat = fmt::format("<a href=\"{}\">{:.4f}</a>", html_escape(link(*ser.saturation_row)), r.offered_load);
      acc = fmt::format("{:.4f}", r.accepted_load);
    }
    s += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4f}</td></tr>\n",
                     html_escape(ser.label.empty() ? "curve" : ser.label),
                     ser.zero_load_latency_ns ? ns_text_human(*ser.zero_load_latency_ns) : "", sat, acc, ser.max_accepted_load);
  }
  s += "</table>\n";
  // Curves, drawn here so that every point links to its report.
  s += "<h2 id=\"curves\">Curves</h2>\n<p>Every point is a link to that point's own report.</p>\n";
  bool any_load = false;
  for (const CurveSeries& ser : c.series) any_load = any_load || !ser.rows.empty();
  const std::string load_unit = "fraction of the injection link rate";
  if (any_load) {
    std::vector<ChartSeries> lat, thr;
    std::vector<std::pair<double, std::string>> marks;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      const CurveSeries& ser = c.series[i];
      const std::string name = ser.label.empty() ? "" : " " + ser.label;
      ChartSeries mean{"mean" + name, i, false, {}, {}, {}}, p99{"p99" + name, i, true, {}, {}, {}},
          acc{ser.label.empty() ? "accepted" : ser.label, i, false, {}, {}, {}};
      for (std::size_t row : ser.rows) {
        const CurveRow& r = c.rows[row];
        if (r.msg_mean) mean.points.emplace_back(r.offered_load, *r.msg_mean), mean.links.push_back(link(row)), mean.labels.push_back(point_label(row));
        if (r.msg_p99) p99.points.emplace_back(r.offered_load, *r.msg_p99), p99.links.push_back(link(row)), p99.labels.push_back(point_label(row));
        acc.points.emplace_back(r.offered_load, r.accepted_load), acc.links.push_back(link(row)), acc.labels.push_back(point_label(row));
      }
      lat.push_back(mean);
      lat.push_back(p99);
      thr.push_back(acc);
      if (ser.saturation_row)
        marks.emplace_back(c.rows[*ser.saturation_row].offered_load,
                           fmt::format("saturation{} {:.3g}", c.series.size() > 1 ? " " + ser.label : "", c.rows[*ser.saturation_row].offered_load));
    }
    s += chart("latency-chart", title + ": message latency against offered load", "offered load (" + load_unit + ")",
               "message latency (ns)", lat, true, marks);
    s += chart("throughput-chart", title + ": accepted against offered load", "offered load (" + load_unit + ")",
               "accepted load (" + load_unit + ")", thr, false, marks);
  }
  bool numeric_param = true;
  for (const CurveRow& r : c.rows) {
    char* end = nullptr;
    if (r.values.empty()) { numeric_param = false; break; }
    std::strtod(r.values.front().c_str(), &end);
    numeric_param = numeric_param && end && *end == '\0' && !r.values.front().empty();
  }
  for (std::size_t m = 0; m < c.metrics.size(); ++m) {
    std::vector<ChartSeries> ms;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      ChartSeries cs{c.series[i].label.empty() ? c.metrics[m].name : c.series[i].label, i, false, {}, {}, {}};
      for (std::size_t k = 0; k < c.series[i].metric_rows.size(); ++k) {
        const std::size_t row = c.series[i].metric_rows[k];
        const CurveRow& r = c.rows[row];
        if (!r.metrics[m]) continue;
        const double x = numeric_param ? std::strtod(r.values.front().c_str(), nullptr) : static_cast<double>(r.point);
        cs.points.emplace_back(x, *r.metrics[m]);
        cs.links.push_back(link(row));
        cs.labels.push_back(point_label(row));
      }
      ms.push_back(cs);
    }
    const std::string unit = c.metrics[m].unit.empty() ? "" : " (" + c.metrics[m].unit + ")";
    s += chart("metric-chart-" + std::to_string(m), title + ": " + c.metrics[m].name,
               (c.keys.empty() ? std::string("point") : c.keys.front()) + (numeric_param ? "" : " (point)"), c.metrics[m].name + unit,
               ms, false);
  }
  // The points.
  s += "<h2 id=\"points\">Points</h2>\n<table id=\"points-table\">\n<tr><th class=\"l\">point</th>";
  for (const std::string& k : c.keys) s += "<th class=\"l\">" + html_escape(k) + "</th>";
  s += "<th class=\"l\">status</th><th>offered load</th><th>accepted load</th><th>mean latency</th><th>p99 latency</th><th>saturated</th>";
  for (const CurveMetric& m : c.metrics) s += "<th>" + html_escape(m.name + (m.unit.empty() ? "" : " (" + m.unit + ")")) + "</th>";
  s += "</tr>\n";
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const CurveRow& r = c.rows[i];
    s += fmt::format("<tr><td class=\"l\"><a href=\"{}\">p{:04d}</a></td>", html_escape(link(i)), r.point);
    for (const std::string& v : r.values) s += "<td class=\"l\">" + html_escape(v) + "</td>";
    s += fmt::format("<td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", r.status,
                     r.has_load ? fmt::format("{:.4f}", r.offered_load) : "", r.has_load ? fmt::format("{:.4f}", r.accepted_load) : "",
                     r.msg_mean ? ns_text_human(*r.msg_mean) : "", r.msg_p99 ? ns_text_human(*r.msg_p99) : "",
                     r.saturated ? "<span class=\"saturated\">yes</span>" : "");
    for (const auto& m : r.metrics) s += "<td>" + (m ? fmt::format("{:.6g}", *m) : std::string()) + "</td>";
    s += "</tr>\n";
  }
  s += "</table>\n";
  s += images_section(images);
  s += files_section(files);
  return s + page_tail();
}


}  // namespace ibfsim
