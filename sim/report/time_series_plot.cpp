#include "sim/report/time_series_plot.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <system_error>
#include <vector>

#include "sim/report/atomic_file.h"
#include "sim/report/plot_style.h"

namespace ibfsim {

namespace {

std::string sh_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<PlotPanel> used_panels(const TimeSeriesPlot& plot) {
  std::vector<PlotPanel> used;
  for (const auto& p : plot.panels)
    if (!p.series.empty()) used.push_back(p);
  return used;
}

}  // namespace

std::string time_series_gnuplot_script(const TimeSeriesPlot& plot, const std::string& png_path,
                                       const std::string& svg_path) {
  using plot::quote;
  const std::vector<PlotPanel> used = used_panels(plot);
  if (used.empty() || (!plot.png && !plot.svg)) return "";
  const unsigned height = static_cast<unsigned>(280 * used.size() + 90);
  std::string gp = "# ibfsim time series; rerun in its folder with: gnuplot " + plot.out_base + ".gp\n";
  gp += "set datafile separator ','\nset grid\n" + plot::linetype_setup();
  // Every panel shows the same span, first sample to last, with the same margins: the time axes
  // line up and start where the data starts. The legend has the right-hand margin to itself.
  const double last = plot.last_ns > plot.first_ns ? plot.last_ns : plot.first_ns + 1;
  fmt::format_to(std::back_inserter(gp),
                 "set xrange [{:.6f}:{:.6f}]\nset lmargin at screen 0.09\nset rmargin at screen 0.78\n"
                 "set key outside right top vertical Left reverse\n",
                 plot.first_ns / 1000, last / 1000);
  for (const plot::Terminal& t : plot::terminals(1100, height)) {
    const std::string& path = t.ext == "png" ? png_path : svg_path;
    if ((t.ext == "png" && !plot.png) || (t.ext == "svg" && !plot.svg)) continue;
    fmt::format_to(std::back_inserter(gp), "{}\nset output {}\n", t.line, quote(path));
    fmt::format_to(std::back_inserter(gp), "set multiplot layout {},1 title {}\n", used.size(), quote(plot.title));
    for (std::size_t i = 0; i < used.size(); ++i) {
      const PlotPanel& p = used[i];
      fmt::format_to(std::back_inserter(gp), "set title {}\nset ylabel {}\nset xlabel {}\nplot ", quote(p.title),
                     quote(p.ylabel), quote(i + 1 == used.size() ? "simulated time (us)" : ""));
      for (std::size_t k = 0; k < p.series.size(); ++k) {
        const PlotSeries& s = p.series[k];
        fmt::format_to(std::back_inserter(gp), "{}{} using ($1/1000):{} with lines lt {}{} title {}", k ? ", \\\n     " : "",
                       k ? "''" : quote(plot.csv_name), s.column, plot::series_linetype(s.colour),
                       s.dashed ? " dashtype 2" : "", quote(s.name));
      }
      gp += "\n";
    }
    gp += "unset multiplot\nset output\n";
  }
  return gp;
}

std::string render_time_series(const TimeSeriesPlot& plot) {
  const std::filesystem::path dir(plot.dir);
  // The images appear complete or not at all: a failed or interrupted gnuplot leaves none (the
  // guards remove its temporaries, a signal handler too).
  std::vector<AtomicFileGuard> guards;
  if (plot.png) guards.emplace_back((dir / (plot.out_base + ".png")).string());
  if (plot.svg) guards.emplace_back((dir / (plot.out_base + ".svg")).string());
  // gnuplot runs in the folder: the script it runs names the temporaries there.
  auto in_dir = [](const AtomicFileGuard& g) { return std::filesystem::path(g.temp_path()).filename().string(); };
  const std::string png = plot.png ? in_dir(guards.front()) : "", svg = plot.svg ? in_dir(guards.back()) : "";
  const std::string gp = time_series_gnuplot_script(plot, png, svg);
  if (gp.empty()) return "";
  // The kept script names the final images (rerunning it redraws them).
  write_file_atomically((dir / (plot.out_base + ".gp")).string(),
                        time_series_gnuplot_script(plot, plot.out_base + ".png", plot.out_base + ".svg"));
  AtomicFileGuard run_script((dir / (plot.out_base + ".run.gp")).string());
  write_file_atomically(run_script.temp_path(), gp);
  const std::string cmd = "cd " + sh_quote(plot.dir) + " && gnuplot " +
                          sh_quote(std::filesystem::path(run_script.temp_path()).filename().string()) + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return "cannot run gnuplot";
  std::string messages;
  char buf[256];
  while (std::fgets(buf, sizeof buf, f)) messages += buf;
  const int rc = pclose(f);
  if (rc != 0) return messages.empty() ? "gnuplot failed (is it installed?)" : "gnuplot: " + messages;
  for (AtomicFileGuard& g : guards) {
    std::error_code ec;
    if (std::filesystem::file_size(g.temp_path(), ec) == 0 || ec) return "gnuplot wrote no " + g.path();
  }
  for (AtomicFileGuard& g : guards) g.commit();
  return "";
}

}  // namespace ibfsim
