#include "sim/cli/sweep_command.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/fabric/yaml_input.h"
#include "sim/report/atomic_file.h"
#include "sim/report/curve.h"
#include "sim/report/html_report.h"
#include "sim/workload/scenario.h"
#include "sim/workload/sweep_plan.h"

namespace fs = std::filesystem;

namespace ibfsim {

namespace {

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the ibfsim executable (/proc/self/exe): " + ec.message());
  return p.string();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

// Runs `argv` with stdout and stderr into `log`; returns the child's pid.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Renders the plots with gnuplot in `dir`; a message if it could not.
std::optional<std::string> render_plots(const fs::path& dir) {
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execlp("gnuplot", "gnuplot", "plot.gp", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "gnuplot not found (install gnuplot-nox)";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "gnuplot failed, see " + (dir / "gnuplot.log").string();
  return std::nullopt;
}

// report.html of the sweep: the curves with every point linked to its own report, the plots
// embedded, every file of the folder linked.
void write_sweep_report(const fs::path& dir, const Curve& curve, const std::string& title,
                        const std::vector<std::string>& point_dirs, const std::vector<std::string>& plots, std::ostream& out) {
  std::vector<ReportImage> images;
  for (const std::string& p : plots) images.push_back({p, p + ".svg", read_text(dir / (p + ".svg"))});
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name != "report.html" && name.find(".tmp-") == std::string::npos) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  write_file_atomically((dir / "report.html").string(), sweep_report_html(curve, title, point_dirs, images, files));
  out << fmt::format("report: {}\n", (dir / "report.html").string());
}

int collect(const fs::path& dir, std::ostream& out, std::ostream& err) {
  const fs::path manifest_path = dir / "sweep.json";
  if (!fs::exists(manifest_path))
    throw InputError(manifest_path.string() + ": expected the sweep.json of `ibfsim sweep` (or --plan), got no such file");
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(read_text(manifest_path));
  } catch (const std::exception& e) {
    throw InputError(manifest_path.string() + ": expected a sweep manifest, got unreadable JSON (" + e.what() + ")");
  }
  std::vector<std::string> keys = m.at("keys").get<std::vector<std::string>>();
  std::vector<std::vector<std::string>> values;
  std::vector<std::string> point_dirs;
  std::vector<std::optional<nlohmann::json>> results;
  std::size_t missing = 0, partial = 0;
  for (const auto& p : m.at("points")) {
    values.push_back(p.at("values").get<std::vector<std::string>>());
    point_dirs.push_back(p.at("dir").get<std::string>());
    const fs::path rp = dir / p.at("dir").get<std::string>() / "results.json";
    std::optional<nlohmann::json> r;
    if (fs::exists(rp)) {
      try {
        r = nlohmann::json::parse(read_text(rp));
        if (r->value("partial", false)) ++partial;
      } catch (const std::exception&) {
        r.reset();
      }
    }
    if (!r) ++missing;
    results.push_back(std::move(r));
  }
  SaturationCriteria crit;
  crit.accepted_drop = m.at("criteria").at("accepted_drop").get<double>();
  crit.latency_factor = m.at("criteria").at("latency_factor").get<double>();
  std::vector<CurveMetric> metrics;
  if (m.contains("metrics"))
    for (const auto& x : m["metrics"]) {
      metrics.push_back({x.at("name").get<std::string>(), x.at("selector").get<std::string>(), x.value("unit", "")});
      parse_json_selector(metrics.back().selector, manifest_path.string() + ": metric " + metrics.back().name);
    }
  const Curve curve = build_curve(keys, values, results, crit, metrics);
  write_file_atomically((dir / "curve.csv").string(), curve_csv(curve));
  write_file_atomically((dir / "saturation.json").string(), saturation_json(curve).dump(2) + "\n");
  out << fmt::format("curve: {} ({} points", (dir / "curve.csv").string(), values.size());
  if (missing) out << fmt::format(", {} without results", missing);
  if (partial) out << fmt::format(", {} interrupted", partial);
  out << ")\n" << saturation_summary(curve);
  const std::string title = fs::path(m.at("scenario").get<std::string>()).stem().string();
  bool any_load = false;
  for (const CurveRow& r : curve.rows) any_load = any_load || r.has_load;
  if (!any_load && metrics.empty()) {
    out << "plots: none (no point has load-driven traffic, and no --metric)\n";
    write_sweep_report(dir, curve, title, point_dirs, {}, out);
    return 0;
  }
  std::vector<std::string> plots;
  if (any_load) {
    write_file_atomically((dir / "plot_data.csv").string(), plot_data_csv(curve));
    plots.insert(plots.end(), {"latency", "throughput"});
  }
  if (!metrics.empty()) {
    write_file_atomically((dir / "metrics_data.csv").string(), metrics_data_csv(curve));
    plots.push_back("metrics");
    if (metrics.size() >= 2) plots.push_back("tradeoff");
  }
  write_file_atomically((dir / "plot.gp").string(), gnuplot_script(curve, title));
  if (auto problem = render_plots(dir)) {
    err << "warning: plots not rendered: " << *problem << "\n";
    plots.clear();
  } else {
    std::string list;
    for (const std::string& p : plots) list += (list.empty() ? "" : ", ") + p + ".png, " + p + ".svg";
    out << fmt::format("plots: {}/{}\n", dir.string(), list);
  }
  write_sweep_report(dir, curve, title, point_dirs, plots, out);
  return 0;
}

}  // namespace

CLI::App* add_sweep_subcommand(CLI::App& app, SweepOptions& o) {
  CLI::App* s = app.add_subcommand("sweep", "Run a scenario at every point of a sweep and plot the curve");
  s->add_option("SCENARIO", o.scenario, "Scenario YAML file")->required();
  s->add_option("--set", o.sets,
                "key=value, key=a,b,c or key=lo:hi:step (repeatable; several ranges give their product)")
      ->required();
  s->add_option("-o,--output", o.out_dir, "Sweep folder (default: results/<scenario name>-sweep)");
  s->add_option("--seed", o.seed, "Random seed of every point (default: the scenario's seed)");
  s->add_option("-j,--jobs", o.jobs, "Points run at once, each in its own process (default 1)")->check(CLI::Range(1u, 1024u));
  s->add_flag("--plan", o.plan, "Only write sweep.json and print one command per point (run them, then collect)");
  s->add_option("--metric", o.metrics,
                "NAME=SELECTOR or NAME:UNIT=SELECTOR: a number from each point's results.json, e.g. "
                "victim:Gb/s=flows[name=victim].throughput.accepted_payload_gbps (repeatable): a column of "
                "curve.csv, plotted against the first swept key (default unit: from the figure's name, "
                "e.g. _gbps is Gb/s)")
      ->type_name("NAME=SELECTOR");
  s->add_flag("--slurm", o.slurm,
              "Only write sweep.json, commands.txt and sweep.sbatch, a Slurm job array of one task per point "
              "(sbatch it, then collect)");
  s->add_option("--slurm-time", o.slurm_time, "Slurm: time limit of each task (default 1:00:00)");
  s->add_option("--slurm-mem", o.slurm_mem, "Slurm: memory of each task (default 2G)");
  s->add_option("--slurm-cpus", o.slurm_cpus, "Slurm: CPUs of each task (default 1)")->check(CLI::Range(1u, 1024u));
  s->add_option("--slurm-partition", o.slurm_partition, "Slurm: partition (default: the cluster's)");
  s->add_option("--slurm-account", o.slurm_account, "Slurm: account to charge (default: yours)");
  s->add_option("--slurm-max-running", o.slurm_max_running,
                "Slurm: tasks running at once (default 0: as many as the cluster gives)");
  s->add_option("--slurm-arg", o.slurm_args, "Slurm: one more #SBATCH option, e.g. --slurm-arg=--qos=short (repeatable)");
  s->add_option("--saturation-drop", o.accepted_drop,
                "Saturated when accepted < offered x (1 - this) (default 0.05)")->check(CLI::Range(0.0, 1.0));
  s->add_option("--saturation-latency", o.latency_factor,
                "... or when mean message latency > this x zero-load latency (default 10)")->check(CLI::Range(1.0, 1e9));
  return s;
}

CLI::App* add_collect_subcommand(CLI::App& app, CollectOptions& o) {
  CLI::App* c = app.add_subcommand("collect", "Merge the points of a sweep (run anywhere) into its curve and plots");
  c->add_option("DIR", o.dir, "Sweep folder (holding sweep.json)")->required();
  return c;
}

int run_sweep_command(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  // Swept keys (several values) and fixed ones (one value, passed as given).
  std::vector<SweepAxis> axes;
  std::vector<std::string> fixed;
  for (const std::string& s : o.sets) {
    const auto [key, value] = split_override(s);
    std::vector<std::string> vals = sweep_values(key, value);
    for (const SweepAxis& a : axes)
      if (a.key == key) throw InputError("--set " + s + ": expected each key swept once, got " + key + " again");
    if (vals.size() > 1) axes.push_back({key, vals});
    else fixed.push_back(key + "=" + value);
  }
  if (axes.empty()) throw InputError("ibfsim sweep: expected a --set with several values (a,b,c or lo:hi:step)");
  nlohmann::json metrics = nlohmann::json::array();
  for (const std::string& mt : o.metrics) {
    const CurveMetric cm = parse_metric(mt, "--metric " + mt);
    for (const auto& x : metrics)
      if (x["name"] == cm.name) throw InputError("--metric " + mt + ": expected each name once, got it again");
    if (cm.unit.empty())
      err << fmt::format("note: --metric {}: no unit (give one as {}:UNIT=...); its axis is labelled {} alone\n", mt,
                         cm.name, cm.name);
    metrics.push_back({{"name", cm.name}, {"selector", cm.selector}, {"unit", cm.unit}});
  }
  const std::vector<SweepPoint> points = sweep_points(axes);

  // Every point must be a valid scenario: check the first and the last before running anything.
  auto overrides_of = [&](const SweepPoint& p) {
    std::vector<std::pair<std::string, std::string>> ov;
    for (const std::string& f : fixed) ov.push_back(split_override(f));
    for (const auto& kv : p.sets) ov.push_back(kv);
    if (o.seed) ov.emplace_back("seed", std::to_string(*o.seed));
    return ov;
  };
  load_scenario(o.scenario, overrides_of(points.front()));
  if (points.size() > 1) load_scenario(o.scenario, overrides_of(points.back()));

  const fs::path dir = fs::absolute(o.out_dir.empty() ? fs::path("results") / (fs::path(o.scenario).stem().string() + "-sweep")
                                                      : fs::path(o.out_dir))
                           .lexically_normal();
  fs::create_directories(dir);
  const std::string exe = self_executable();
  const std::string scenario = fs::absolute(o.scenario).lexically_normal().string();
  nlohmann::json m;
  m["scenario"] = scenario;
  m["ibfsim"] = exe;
  m["keys"] = nlohmann::json::array();
  for (const SweepAxis& a : axes) m["keys"].push_back(a.key);
  m["fixed"] = fixed;
  m["seed"] = o.seed ? nlohmann::json(*o.seed) : nlohmann::json(nullptr);
  m["criteria"] = {{"accepted_drop", o.accepted_drop}, {"latency_factor", o.latency_factor}};
  m["metrics"] = metrics;
  std::vector<std::vector<std::string>> argvs;
  nlohmann::json pts = nlohmann::json::array();
  for (const SweepPoint& p : points) {
    std::vector<std::string> argv = {exe, "run", scenario, "-o", (dir / sweep_point_dir(p.index)).string()};
    for (const std::string& f : fixed) argv.insert(argv.end(), {"--set", f});
    std::vector<std::string> vals;
    for (const auto& [k, v] : p.sets) {
      argv.insert(argv.end(), {"--set", k + "=" + v});
      vals.push_back(v);
    }
    if (o.seed) argv.insert(argv.end(), {"--seed", std::to_string(*o.seed)});
    pts.push_back({{"index", p.index}, {"dir", sweep_point_dir(p.index)}, {"values", vals}, {"command", command_line(argv)}});
    argvs.push_back(std::move(argv));
  }
  m["points"] = pts;
  write_file_atomically((dir / "sweep.json").string(), m.dump(2) + "\n");

  if (o.slurm) {
    if (o.plan) throw InputError("ibfsim sweep: expected --plan or --slurm, got both");
    // The tasks write their output into the points' folders: they must exist before sbatch.
    std::string commands;
    for (std::size_t i = 0; i < points.size(); ++i) {
      fs::create_directories(dir / sweep_point_dir(i));
      commands += pts[i]["command"].get<std::string>() + "\n";
    }
    write_file_atomically((dir / "commands.txt").string(), commands);
    SlurmOptions so;
    so.time = o.slurm_time;
    so.mem = o.slurm_mem;
    so.partition = o.slurm_partition;
    so.account = o.slurm_account;
    so.cpus = o.slurm_cpus;
    so.max_running = o.slurm_max_running;
    so.extra = o.slurm_args;
    const std::string script = slurm_script(so, dir.string(), (dir / "commands.txt").string(), points.size(),
                                            "ibfsim-" + fs::path(o.scenario).stem().string());
    write_file_atomically((dir / "sweep.sbatch").string(), script);
    out << fmt::format("sbatch {}\n", shell_quote((dir / "sweep.sbatch").string()));
    err << fmt::format("{} points in a Slurm job array; submit it with the command above (sbatch --wait waits for "
                       "it), then: ibfsim collect {}\n",
                       points.size(), shell_quote(dir.string()));
    return 0;
  }
  if (o.plan) {
    for (const auto& p : pts) out << p["command"].get<std::string>() << "\n";
    err << fmt::format("{} points; when they have run: ibfsim collect {}\n", points.size(), shell_quote(dir.string()));
    return 0;
  }

  // Run the points, o.jobs at a time.
  err << fmt::format("sweep: {} points, {} at a time, into {}\n", points.size(), o.jobs, dir.string());
  std::map<pid_t, std::pair<std::size_t, std::chrono::steady_clock::time_point>> running;
  std::size_t next = 0, done = 0, failed = 0;
  bool interrupted = false;
  while (next < points.size() || !running.empty()) {
    if (CalendarProcess::stop_requested()) interrupted = true;
    while (!interrupted && next < points.size() && running.size() < o.jobs) {
      const fs::path pd = dir / sweep_point_dir(next);
      fs::create_directories(pd);
      running[spawn(argvs[next], pd / "run.log")] = {next, std::chrono::steady_clock::now()};
      ++next;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;  // SIGINT: the children got it too and are finishing
      break;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [idx, t0] = it->second;
    running.erase(it);
    ++done;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    std::string what = code == 0 ? "ok" : code == 130 ? "interrupted" : fmt::format("FAILED (exit {})", code);
    if (code != 0 && code != 130) ++failed;
    if (code == 130) interrupted = true;
    std::string vals;
    for (const auto& [k, v] : points[idx].sets) vals += (vals.empty() ? "" : " ") + k + "=" + v;
    err << fmt::format("[{}/{}] p{:04d} {}: {} ({:.1f} s){}\n", done, points.size(), idx, vals, what, secs,
                       code != 0 && code != 130 ? ", see " + (dir / sweep_point_dir(idx) / "run.log").string() : "");
  }
  collect(dir, out, err);
  if (interrupted) {
    err << "sweep interrupted: the curve holds the points that ran\n";
    return 130;
  }
  return failed ? 1 : 0;
}

int run_collect_command(const CollectOptions& o, std::ostream& out, std::ostream& err) {
  return collect(fs::path(o.dir), out, err);
}

}  // namespace ibfsim
