#include "sim/report/time_series_plot.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>

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
  // The kept script names the final images (rerunning it redraws them); the one gnuplot runs now
  // writes temporary names that are renamed once it succeeded.
  const std::string png = atomic_temp_path(plot.out_base + ".png"), svg = atomic_temp_path(plot.out_base + ".svg");
  const std::string gp = time_series_gnuplot_script(plot, png, svg);
  if (gp.empty()) return "";
  const std::filesystem::path dir(plot.dir);
  write_file_atomically((dir / (plot.out_base + ".gp")).string(),
                        time_series_gnuplot_script(plot, plot.out_base + ".png", plot.out_base + ".svg"));
  const std::string run_script = atomic_temp_path(plot.out_base + ".gp");
  write_file_atomically((dir / run_script).string(), gp);
  const std::string cmd = "cd " + sh_quote(plot.dir) + " && gnuplot " + sh_quote(run_script) + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) {
    std::filesystem::remove(dir / run_script);
    return "cannot run gnuplot";
  }
  std::string messages;
  char buf[256];
  while (std::fgets(buf, sizeof buf, f)) messages += buf;
  const int rc = pclose(f);
  std::filesystem::remove(dir / run_script);
  std::vector<std::pair<std::string, std::string>> outputs;  // (temporary, final)
  if (plot.png) outputs.emplace_back(png, plot.out_base + ".png");
  if (plot.svg) outputs.emplace_back(svg, plot.out_base + ".svg");
  if (rc != 0) {
    for (const auto& [tmp, path] : outputs) std::filesystem::remove(dir / tmp);
    return messages.empty() ? "gnuplot failed (is it installed?)" : "gnuplot: " + messages;
  }
  for (const auto& [tmp, path] : outputs) std::filesystem::rename(dir / tmp, dir / path);
  return "";
}

}  // namespace ibfsim
