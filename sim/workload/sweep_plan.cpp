#include "sim/workload/sweep_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

// Decimals written after the point of a number as typed ("0.05" -> 2, "3" -> 0, "1e-3" -> 3).
int decimals_of(const std::string& s) {
  const auto e = s.find_first_of("eE");
  const std::string mant = e == std::string::npos ? s : s.substr(0, e);
  const auto dot = mant.find('.');
  int d = dot == std::string::npos ? 0 : static_cast<int>(mant.size() - dot - 1);
  if (e != std::string::npos) d -= std::atoi(s.c_str() + e + 1);
  return d < 0 ? 0 : d;
}

double number(const std::string& key, const std::string& text, const std::string& part) {
  char* end = nullptr;
  const double v = std::strtod(part.c_str(), &end);
  if (part.empty() || end != part.c_str() + part.size() || !std::isfinite(v))
    throw InputError("--set " + key + "=" + text + ": expected a range lo:hi:step of numbers, got '" + part + "'");
  return v;
}

}  // namespace

namespace {

// One range lo:hi:step, expanded.
std::vector<std::string> range_values(const std::string& key, const std::string& text, const std::string& item) {
  std::vector<std::string> out;
  const auto c1 = item.find(':'), c2 = item.find(':', c1 + 1);
  const std::string slo = item.substr(0, c1), shi = item.substr(c1 + 1, c2 - c1 - 1), sstep = item.substr(c2 + 1);
  const double lo = number(key, text, slo), hi = number(key, text, shi), step = number(key, text, sstep);
  if (!(step > 0)) throw InputError("--set " + key + "=" + text + ": expected a step > 0 in " + item);
  if (lo > hi) throw InputError("--set " + key + "=" + text + ": expected lo <= hi in " + item);
  const int dec = std::max({decimals_of(slo), decimals_of(shi), decimals_of(sstep)});
  const double count = std::floor((hi - lo) / step + 1e-6);
  if (count >= 100000) throw InputError("--set " + key + "=" + text + ": expected at most 100,000 values");
  for (long i = 0; i <= static_cast<long>(count); ++i) {
    std::string v = fmt::format("{:.{}f}", lo + static_cast<double>(i) * step, dec);
    // Trailing zeros after the point say nothing ("0.10" is 0.1).
    if (v.find('.') != std::string::npos) {
      while (v.back() == '0') v.pop_back();
      if (v.back() == '.') v.pop_back();
    }
    if (v == "-0") v = "0";
    out.push_back(v);
  }
  return out;
}

}  // namespace

std::vector<std::string> sweep_values(const std::string& key, const std::string& text) {
  if (text.empty()) throw InputError("--set " + key + "=: expected a value, a list a,b,c or a range lo:hi:step");
  // Items separated by commas outside [] and {}; an item lo:hi:step (two colons, no brackets or
  // spaces) is a range.
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  items.push_back(cur);
  std::vector<std::string> out;
  for (const std::string& item : items) {
    if (item.empty()) throw InputError("--set " + key + "=" + text + ": expected no empty value in the list");
    if (item.find_first_of("[{ ") == std::string::npos && std::count(item.begin(), item.end(), ':') == 2) {
      for (std::string& v : range_values(key, text, item)) out.push_back(std::move(v));
    } else {
      out.push_back(item);
    }
  }
  if (out.size() > 100000) throw InputError("--set " + key + "=" + text + ": expected at most 100,000 values");
  return out;
}

std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes) {
  std::vector<SweepPoint> points;
  std::size_t total = 1;
  for (const SweepAxis& a : axes) total *= a.values.size();
  for (std::size_t i = 0; i < total; ++i) {
    SweepPoint p;
    p.index = i;
    std::size_t rest = i;
    std::vector<std::pair<std::string, std::string>> sets(axes.size());
    for (std::size_t k = axes.size(); k-- > 0;) {  // the last axis varies fastest
      sets[k] = {axes[k].key, axes[k].values[rest % axes[k].values.size()]};
      rest /= axes[k].values.size();
    }
    p.sets = std::move(sets);
    points.push_back(std::move(p));
  }
  return points;
}

std::string sweep_point_dir(std::size_t index) { return fmt::format("points/p{:04d}", index); }

std::string shell_quote(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=./:,@%") ==
                        std::string::npos)
    return w;
  std::string q = "'";
  for (char c : w) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

std::string slurm_script(const SlurmOptions& o, const std::string& dir, const std::string& commands_file,
                         std::size_t points, const std::string& job_name) {
  // #SBATCH values are read as sbatch reads its command line: quote what has spaces.
  auto arg = [](const std::string& v) { return v.find_first_of(" \t\"'") == std::string::npos ? v : shell_quote(v); };
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Written by ibfsim sweep --slurm: one array task per point of {}/sweep.json.\n", dir);
  s += fmt::format("#   sbatch {}/sweep.sbatch      (sbatch --wait ... returns when every task has ended)\n", dir);
  s += fmt::format("#   ibfsim collect {}           (the curve, the plots and report.html, once they have)\n", dir);
  s += fmt::format("#SBATCH --job-name={}\n", arg(job_name));
  s += fmt::format("#SBATCH --array=0-{}{}\n", points - 1, o.max_running ? fmt::format("%{}", o.max_running) : "");
  s += fmt::format("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", o.cpus);
  s += fmt::format("#SBATCH --time={}\n#SBATCH --mem={}\n", arg(o.time), arg(o.mem));
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", arg(o.partition));
  if (!o.account.empty()) s += fmt::format("#SBATCH --account={}\n", arg(o.account));
  // %4a: the array index padded to four digits, as the points' folders are named.
  s += fmt::format("#SBATCH --output={}\n", arg(dir + "/points/p%4a/run.log"));
  for (const std::string& a : o.extra) s += "#SBATCH " + a + "\n";
  s += "set -euo pipefail\n";
  s += fmt::format("line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n", shell_quote(commands_file));
  s += "# The line is one shell-quoted `ibfsim run` command.\n";
  s += "eval \"exec $line\"\n";
  return s;
}

}  // namespace ibfsim
