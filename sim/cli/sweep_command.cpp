#include "sim/cli/sweep_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/cli/cli_values.h"
#include "sim/core/calendar_process.h"
#include "sim/core/stop_signals.h"
#include "sim/core/error.h"
#include "sim/fabric/yaml_input.h"
#include "sim/report/atomic_file.h"
#include "sim/report/curve.h"
#include "sim/report/results_view.h"
#include "sim/report/sweep_report.h"
#include "sim/report/output_folder.h"
#include "sim/workload/scenario.h"
#include "sim/workload/simulation_spec.h"
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

// Runs `argv` with stdout and stderr into `log`; returns the child's pid. The child runs in its
// own process group, so that a Ctrl-C on the terminal reaches it once, forwarded by the sweep
// (stop_signals.h), not twice; and it gets SIGTERM should the sweep die without forwarding
// (SIGKILL), so that no point runs on as an orphan.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  sigset_t stop_set, old_set;
  sigemptyset(&stop_set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_set, sig);
  // No signal between the fork and the pid's entry in the forwarding table: it would be lost.
  sigprocmask(SIG_BLOCK, &stop_set, &old_set);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);  // the sweep died before prctl
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &dfl, nullptr);
    sigprocmask(SIG_SETMASK, &old_set, nullptr);
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
  setpgid(pid, pid);  // also here: whichever runs first
  add_signal_forward(pid);
  // A stop that came before the fork is the point's too.
  if (const int sig = stop_signal()) kill(pid, sig);
  sigprocmask(SIG_SETMASK, &old_set, nullptr);
  return pid;
}

// The images of a sweep's plots. gnuplot writes them itself: when it fails (or is stopped), the
// ones it began are removed, never left empty or half-drawn beside the curve.
const char* const kPlotImages[] = {"latency.png",  "latency.svg", "throughput.png", "throughput.svg",
                                   "metrics.png",  "metrics.svg", "tradeoff.png",   "tradeoff.svg"};

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
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  for (const char* image : kPlotImages) {
    std::error_code ec;
    fs::remove(dir / image, ec);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "gnuplot not found (install gnuplot-nox)";
  return "gnuplot failed, see " + (dir / "gnuplot.log").string();
}

// A sweep.json that is not what `ibfsim sweep` writes: which part, and what it should be.
[[noreturn]] void bad_manifest(const fs::path& manifest, const std::string& where, const std::string& expected) {
  throw InputError(manifest.string() + ": " + (where.empty() ? "" : where + ": ") + "expected " + expected +
                   " (the sweep.json that ibfsim sweep writes)");
}

// The members of sweep.json collect reads, each checked for its type.
struct Manifest {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // per point
  std::vector<std::string> dirs;                 // per point, relative to the sweep folder
  double accepted_drop = 0, latency_factor = 0;
  std::vector<CurveMetric> metrics;
  std::string scenario;
};

std::vector<std::string> string_list(const fs::path& mp, const nlohmann::json& v, const std::string& where) {
  if (!v.is_array()) bad_manifest(mp, where, "a list of strings");
  std::vector<std::string> out;
  for (const auto& x : v) {
    if (!x.is_string()) bad_manifest(mp, where, "a list of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

const nlohmann::json& member(const fs::path& mp, const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key))
    bad_manifest(mp, where, std::string("an object with '") + key + "'");
  return obj.at(key);
}

Manifest read_manifest(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) throw InputError(dir.string() + ": expected a sweep folder (holding sweep.json), got no such folder");
  if (!fs::is_directory(st)) throw InputError(dir.string() + ": expected a sweep folder (holding sweep.json), got a file");
  const fs::path mp = dir / "sweep.json";
  if (!fs::exists(mp, ec))
    throw InputError(mp.string() + ": expected the sweep.json of `ibfsim sweep` (or --plan), got no such file");
  if (!fs::is_regular_file(mp, ec)) throw InputError(mp.string() + ": expected the sweep.json of `ibfsim sweep`, got something that is not a file");
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(read_text(mp));
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is where the parser stopped; report it as a line and column.
    const std::string text = read_text(mp);
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, col = 1;
      else ++col;
    }
    throw InputError(fmt::format("{}:{}:{}: expected valid JSON (the sweep.json that ibfsim sweep writes), got a "
                                 "syntax error", mp.string(), line, col));
  }
  Manifest out;
  if (!m.is_object()) bad_manifest(mp, "", "a JSON object");
  out.keys = string_list(mp, member(mp, m, "keys", ""), "keys");
  if (out.keys.empty()) bad_manifest(mp, "keys", "at least one swept key");
  const nlohmann::json& scenario = member(mp, m, "scenario", "");
  if (!scenario.is_string()) bad_manifest(mp, "scenario", "the scenario's path (a string)");
  out.scenario = scenario.get<std::string>();
  const nlohmann::json& points = member(mp, m, "points", "");
  if (!points.is_array()) bad_manifest(mp, "points", "a list of points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string where = fmt::format("points[{}]", i);
    out.values.push_back(string_list(mp, member(mp, points[i], "values", where), where + ".values"));
    if (out.values.back().size() != out.keys.size())
      bad_manifest(mp, where + ".values", fmt::format("{} values, one per key", out.keys.size()));
    const nlohmann::json& d = member(mp, points[i], "dir", where);
    if (!d.is_string() || d.get<std::string>().empty())
      bad_manifest(mp, where + ".dir", "the point's folder (a string)");
    // A point's folder is inside the sweep folder: no absolute path, no "..".
    const fs::path rel = fs::path(d.get<std::string>()).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
      bad_manifest(mp, where + ".dir", "a folder inside the sweep folder");
    out.dirs.push_back(rel.string());
  }
  const nlohmann::json& crit = member(mp, m, "criteria", "");
  for (const char* k : {"accepted_drop", "latency_factor"}) {
    const nlohmann::json& v = member(mp, crit, k, "criteria");
    if (!v.is_number()) bad_manifest(mp, std::string("criteria.") + k, "a number");
  }
  out.accepted_drop = crit.at("accepted_drop").get<double>();
  out.latency_factor = crit.at("latency_factor").get<double>();
  if (m.contains("metrics")) {
    if (!m["metrics"].is_array()) bad_manifest(mp, "metrics", "a list of {name, selector}");
    for (std::size_t i = 0; i < m["metrics"].size(); ++i) {
      const std::string where = fmt::format("metrics[{}]", i);
      const nlohmann::json& x = m["metrics"][i];
      const nlohmann::json& name = member(mp, x, "name", where);
      const nlohmann::json& sel = member(mp, x, "selector", where);
      if (!name.is_string() || !sel.is_string()) bad_manifest(mp, where, "a name and a selector (strings)");
      std::string unit;
      if (x.contains("unit")) {
        if (!x["unit"].is_string()) bad_manifest(mp, where + ".unit", "the metric's unit (a string)");
        unit = x["unit"].get<std::string>();
      }
      out.metrics.push_back({name.get<std::string>(), sel.get<std::string>(), unit});
      parse_json_selector(out.metrics.back().selector, mp.string() + ": metric " + out.metrics.back().name);
    }
  }
  return out;
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
  const Manifest m = read_manifest(dir);
  const std::vector<std::string>& keys = m.keys;
  const std::vector<std::vector<std::string>>& values = m.values;
  std::vector<std::optional<nlohmann::json>> results;
  std::size_t missing = 0, partial = 0;
  for (const std::string& pd : m.dirs) {
    const fs::path rp = dir / pd / "results.json";
    std::optional<nlohmann::json> r;
    std::error_code ec;
    if (fs::is_regular_file(rp, ec)) {
      try {
        r = nlohmann::json::parse(read_text(rp));
        if (!r->is_object()) r.reset();
        else if (r->value("partial", false)) ++partial;
      } catch (const std::exception&) {
        r.reset();
      }
    }
    if (!r) ++missing;
    results.push_back(std::move(r));
  }
  SaturationCriteria crit;
  crit.accepted_drop = m.accepted_drop;
  crit.latency_factor = m.latency_factor;
  const std::vector<CurveMetric>& metrics = m.metrics;
  // A metric may select a figure of a point's tables (a port's, a link's): read there.
  const MetricSelect select = [&](std::size_t i, const nlohmann::json& j, const std::vector<JsonSelectorStep>& steps) {
    try {
      return select_in_results((dir / m.dirs[i]).string(), j, steps);
    } catch (const InputError&) {
      return std::optional<double>();  // a table that cannot be read: no number, as a missing figure
    }
  };
  const Curve curve = build_curve(keys, values, results, crit, metrics, select);
  write_file_atomically((dir / "curve.csv").string(), curve_csv(curve));
  write_file_atomically((dir / "saturation.json").string(), saturation_json(curve).dump(2) + "\n");
  out << fmt::format("curve: {} ({} points", (dir / "curve.csv").string(), values.size());
  if (missing) out << fmt::format(", {} without results", missing);
  if (partial) out << fmt::format(", {} interrupted", partial);
  out << ")\n" << saturation_summary(curve);
  const std::string title = fs::path(m.scenario).stem().string();
  bool any_load = false;
  for (const CurveRow& r : curve.rows) any_load = any_load || r.has_load;
  if (!any_load && metrics.empty()) {
    out << "plots: none (no point has load-driven traffic, and no --metric)\n";
    write_sweep_report(dir, curve, title, m.dirs, {}, out);
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
  write_sweep_report(dir, curve, title, m.dirs, plots, out);
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
  s->add_option("--seed", o.seed, "Random seed of every point, 0..2^64-1 (default: the scenario's seed)")->type_name("UINT64");
  s->add_option("-j,--jobs", o.jobs, "Points run at once, each in its own process (default 1)")->check(CLI::Range(1u, 1024u));
  s->add_option("--threads", o.threads,
                "Threads of each point's run (ibfsim run --threads; default: the scenario's simulation.threads): "
                "1..1024 or auto; the points' results are the same with any number. With -j, points x threads "
                "should not exceed the machine's cores")
      ->type_name("N|auto");
  s->add_flag("--plan", o.plan, "Only write sweep.json and print one command per point (run them, then collect)");
  s->add_option("--metric", o.metrics,
                "NAME=SELECTOR or NAME:UNIT=SELECTOR: a number from each point's results.json or its tables, e.g. "
                "victim:Gb/s=flows[name=victim].throughput.accepted_payload_gbps or "
                "busy=ports[node=spine,port=5].window.busy_fraction (repeatable): a column of "
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
  std::optional<std::uint64_t> seed;
  if (!o.seed.empty()) seed = parse_seed_flag(o.seed);
  if (!o.threads.empty() && !threads_from_text(o.threads))
    throw InputError("--threads " + o.threads + ": expected a number of threads from 1 to 1024, or auto");

  // Every point must be a valid scenario: check the first and the last before running anything.
  auto overrides_of = [&](const SweepPoint& p) {
    std::vector<std::pair<std::string, std::string>> ov;
    for (const std::string& f : fixed) ov.push_back(split_override(f));
    for (const auto& kv : p.sets) ov.push_back(kv);
    if (seed) ov.emplace_back("seed", std::to_string(*seed));
    if (!o.threads.empty()) ov.emplace_back("simulation.threads", o.threads);
    return ov;
  };
  load_scenario(o.scenario, overrides_of(points.front()));
  if (points.size() > 1) load_scenario(o.scenario, overrides_of(points.back()));

  const fs::path dir = fs::absolute(o.out_dir.empty() ? fs::path("results") / (fs::path(o.scenario).stem().string() + "-sweep")
                                                      : fs::path(o.out_dir))
                           .lexically_normal();
  prepare_output_folder(dir.string(), o.out_dir.empty() ? "the default sweep folder" : "-o");
  // An earlier sweep's points and plots would mix with this one's (its points beyond this sweep's
  // last, a metrics.png this sweep does not draw): removed, as are a killed sweep's temporaries.
  const EarlierOutputs earlier = clear_earlier_outputs(
      dir.string(), "sweep.json",
      {"sweep.json", "curve.csv", "saturation.json", "plot_data.csv", "metrics_data.csv", "plot.gp", "gnuplot.log",
       "latency.png", "latency.svg", "throughput.png", "throughput.svg", "metrics.png", "metrics.svg", "tradeoff.png",
       "tradeoff.svg", "points"});
  if (!earlier.removed.empty())
    err << fmt::format("sweep: removed the earlier sweep in {} first ({})\n", dir.string(), fmt::join(earlier.removed, ", "));
  const std::string exe = self_executable();
  const std::string scenario = fs::absolute(o.scenario).lexically_normal().string();
  nlohmann::json m;
  m["scenario"] = scenario;
  m["ibfsim"] = exe;
  m["keys"] = nlohmann::json::array();
  for (const SweepAxis& a : axes) m["keys"].push_back(a.key);
  m["fixed"] = fixed;
  m["seed"] = seed ? nlohmann::json(*seed) : nlohmann::json(nullptr);
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
    if (seed) argv.insert(argv.end(), {"--seed", std::to_string(*seed)});
    if (!o.threads.empty()) argv.insert(argv.end(), {"--threads", o.threads});
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

  // Run the points, o.jobs at a time. A stop signal (SIGINT, SIGTERM, SIGHUP) is forwarded to the
  // running points, which stop and write their results so far; no new point starts, the sweep
  // waits for every point it started and collects what there is (stop_signals.h).
  enable_graceful_stop();
  set_results_pending();
  err << fmt::format("sweep: {} points, {} at a time, into {}\n", points.size(), o.jobs, dir.string());
  std::map<pid_t, std::pair<std::size_t, std::chrono::steady_clock::time_point>> running;
  std::size_t next = 0, done = 0, failed = 0;
  bool interrupted = false;
  while (next < points.size() || !running.empty()) {
    if (stop_signal() != 0) interrupted = true;
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
      if (errno == EINTR) continue;  // a stop signal: forwarded to the points, which are finishing
      break;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    remove_signal_forward(pid);
    const auto [idx, t0] = it->second;
    running.erase(it);
    ++done;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    // 128 + SIGINT, SIGTERM or SIGHUP: the point was stopped (its results are marked partial).
    const bool stopped = code == 128 + SIGINT || code == 128 + SIGTERM || code == 128 + SIGHUP;
    std::string what = code == 0 ? "ok" : stopped ? "interrupted" : fmt::format("FAILED (exit {})", code);
    if (code != 0 && !stopped) ++failed;
    if (stopped) interrupted = true;
    std::string vals;
    for (const auto& [k, v] : points[idx].sets) vals += (vals.empty() ? "" : " ") + k + "=" + v;
    err << fmt::format("[{}/{}] p{:04d} {}: {} ({:.1f} s){}\n", done, points.size(), idx, vals, what, secs,
                       code != 0 && !stopped ? ", see " + (dir / sweep_point_dir(idx) / "run.log").string() : "");
  }
  collect(dir, out, err);
  if (interrupted) {
    const int sig = stop_signal() ? stop_signal() : SIGINT;
    err << fmt::format("sweep interrupted{}: the curve holds the points that ran\n",
                       stop_signal() ? " by " + signal_name(sig) : "");
    return 128 + sig;
  }
  return failed ? 1 : 0;
}

int run_collect_command(const CollectOptions& o, std::ostream& out, std::ostream& err) {
  return collect(fs::path(o.dir), out, err);
}

}  // namespace ibfsim
