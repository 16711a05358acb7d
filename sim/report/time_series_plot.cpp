#include "sim/report/time_series_plot.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <system_error>
#include <vector>

#include "sim/report/atomic_file.h"

namespace ibfsim {

namespace {
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::string render_time_series(const std::string& csv_path, const std::vector<PlotPanel>& panels,
                               const std::string& title, const std::string& out_base, bool png, bool svg) {
  std::vector<PlotPanel> used;
  for (const auto& p : panels)
    if (!p.columns.empty()) used.push_back(p);
  if (used.empty() || (!png && !svg)) return "";
  std::vector<std::pair<std::string, std::string>> outputs;  // (terminal, final path)
  if (png) outputs.emplace_back("pngcairo size 1100," + std::to_string(300 * used.size() + 80), out_base + ".png");
  if (svg) outputs.emplace_back("svg size 1100," + std::to_string(300 * used.size() + 80), out_base + ".svg");
  // The script written beside the images names them; gnuplot runs a copy that writes temporaries.
  auto script = [&](bool temporaries) {
    std::string gp = "# ibfsim time series; rerun with: gnuplot " + std::filesystem::path(out_base + ".gp").filename().string() + "\n";
    gp += "set datafile separator ','\nset key outside right\nset grid\n";
    for (const auto& [terminal, path] : outputs) {
      fmt::format_to(std::back_inserter(gp), "set terminal {} noenhanced\nset output {}\n", terminal,
                     quoted(temporaries ? atomic_temp_path(path) : path));
      fmt::format_to(std::back_inserter(gp), "set multiplot layout {},1 title {}\n", used.size(), quoted(title));
      for (std::size_t i = 0; i < used.size(); ++i) {
        const PlotPanel& p = used[i];
        fmt::format_to(std::back_inserter(gp), "set title {}\nset ylabel {}\nset xlabel {}\nplot ", quoted(p.title),
                       quoted(p.ylabel), quoted(i + 1 == used.size() ? "time (us)" : ""));
        for (std::size_t k = 0; k < p.columns.size(); ++k)
          fmt::format_to(std::back_inserter(gp), "{}{} using ($1/1000):{} with lines lw 1.5 title columnheader({})",
                         k ? ", " : "", k ? "''" : quoted(csv_path), p.columns[k], p.columns[k]);
        gp += "\n";
      }
      gp += "unset multiplot\nset output\n";
    }
    return gp;
  };
  write_file_atomically(out_base + ".gp", script(false));
  // The images appear complete or not at all: a failed or interrupted gnuplot leaves none (the
  // guards remove its temporaries, a signal handler too).
  std::vector<AtomicFileGuard> guards;
  for (const auto& [terminal, path] : outputs) guards.emplace_back(path);
  AtomicFileGuard run_script(out_base + ".run.gp");
  write_file_atomically(run_script.temp_path(), script(true));
  const std::string cmd = "gnuplot " + quoted(run_script.temp_path()) + " 2>&1";
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
