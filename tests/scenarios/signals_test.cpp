// SIGTERM and SIGHUP stop `ibfsim run` as SIGINT does: complete results marked partial (and which
// signal stopped it), exit code 128 + signal, and no temporary file left; SIGINT twice the same;
// SIGKILL leaves temporaries that the next run into the same folder removes. `ibfsim sweep`
// forwards a signal to its points and leaves no orphan, even when killed itself. A plot gnuplot
// failed to draw leaves no image behind. (Issue "Hardening": signals.)
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "tests/support/run_command.h"

using namespace ibfsim::test;
namespace fs = std::filesystem;

namespace {

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 14 && rest >> field; ++i)
    if (i == 14) return std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return 0;
}

bool alive(pid_t pid) {
  // A zombie (exited, not yet reaped by its parent) counts as gone.
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

// The children of `parent` (from /proc).
std::set<pid_t> children_of(pid_t parent) {
  std::set<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == std::to_string(parent)) out.insert(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

std::vector<std::string> temporaries_in(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().string());
  return out;
}

// Starts ibfsim with `args`, stdout and stderr into files in `dir`.
pid_t start(const std::string& dir, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open((dir + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open((dir + "/stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv{const_cast<char*>(IBFSIM_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(IBFSIM_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

// A run of long_uniform.yaml with a packet capture (written as it goes, under a temporary name),
// let well into its simulation.
pid_t start_long_run(const std::string& dir, const std::string& out) {
  // Frames cut to 64 bytes (outputs.pcap_snaplen): its CPU second writes some 60 MB of capture and
  // links CSV, where whole frames would be a gigabyte.
  const pid_t pid = start(dir, {"run", data_path("long_uniform.yaml"), "-o", out, "--set", "outputs.pcap=true",
                                "--set", "outputs.pcap_snaplen=64"});
  for (int i = 0; i < 6000 && cpu_seconds(pid) < 1.0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What every stopped run must show: exit code, complete results marked partial naming the signal,
// the summary saying so, and no temporary file.
void check_stopped(const std::string& dir, const std::string& out, int code, int sig, const std::string& name) {
  INFO(read_file(dir + "/stdout.txt") << read_file(dir + "/stderr.txt"));
  CHECK(code == 128 + sig);
  const nlohmann::json r = nlohmann::json::parse(read_file(out + "/results.json"));
  CHECK(r["partial"] == true);
  CHECK(r["stopped_by"] == name);
  CHECK(r["phases"]["end_ns"].get<double>() > 0);
  for (const char* f : {"ports.csv", "port_vls.csv", "classes.csv", "trace.pcap", "trace_links.csv"})
    CHECK(fs::exists(out + "/" + f));
  CHECK(temporaries_in(out).empty());
  const std::string summary = read_file(dir + "/stdout.txt");
  CHECK(summary.find("INTERRUPTED by " + name + " at ") != std::string::npos);
  CHECK(summary.find("(interrupted, traffic still in flight)") != std::string::npos);
  CHECK(summary.find("drain limit reached") == std::string::npos);
}

}  // namespace

TEST_CASE("signals: SIGTERM stops a run like SIGINT: partial results, exit 143, no temporary file",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_term")).string();
  const pid_t pid = start_long_run(dir, dir + "/out");
  REQUIRE(kill(pid, SIGTERM) == 0);
  check_stopped(dir, dir + "/out", wait_exit_code(pid), SIGTERM, "SIGTERM");
}

TEST_CASE("signals: SIGHUP stops a run like SIGINT: partial results, exit 129, no temporary file",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_hup")).string();
  const pid_t pid = start_long_run(dir, dir + "/out");
  REQUIRE(kill(pid, SIGHUP) == 0);
  check_stopped(dir, dir + "/out", wait_exit_code(pid), SIGHUP, "SIGHUP");
}

TEST_CASE("signals: SIGINT twice still leaves complete partial results and no temporary file",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_int_twice")).string();
  const pid_t pid = start_long_run(dir, dir + "/out");
  REQUIRE(kill(pid, SIGINT) == 0);
  REQUIRE(kill(pid, SIGINT) == 0);
  check_stopped(dir, dir + "/out", wait_exit_code(pid), SIGINT, "SIGINT");
}

TEST_CASE("signals: one SIGINT while the input is still being read: the run goes on and stops at its start",
          "[scenarios][interrupt][signals]") {
  // The scenario comes through a named pipe, which the run reads until the writer closes it. The
  // subnet manager never begins its first sweep: writing results.json once crashed on that.
  const std::string dir = fs::absolute(scratch_dir("signal_int_reading")).string();
  const std::string fifo = dir + "/scenario.yaml";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const int w = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  const pid_t pid = start(dir, {"run", fifo, "-o", dir + "/out"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(kill(pid, SIGINT) == 0);
  const std::string text = "topology: " + std::string(IBFSIM_SOURCE_DIR) + "/topologies/two_switches.yaml\n";
  REQUIRE(write(w, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(w);
  CHECK(wait_exit_code(pid) == 128 + SIGINT);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/out/results.json"));
  CHECK(r["partial"] == true);
  CHECK(r["stopped_by"] == "SIGINT");
  CHECK(r["packets"]["created"] == 0);
}

TEST_CASE("signals: SIGINT twice before the simulation starts ends the run at once, leaving nothing",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_int_twice_reading")).string();
  const std::string fifo = dir + "/scenario.yaml";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const int w = open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // a writer that never finishes
  const pid_t pid = start(dir, {"run", fifo, "-o", dir + "/out"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(kill(pid, SIGINT) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(kill(pid, SIGINT) == 0);
  CHECK(wait_exit_code(pid) == 128 + SIGINT);
  close(w);
  CHECK_FALSE(fs::exists(dir + "/out"));
}

TEST_CASE("signals: SIGKILL leaves temporaries, and the next run into the same folder removes them",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_kill")).string();
  const std::string out = dir + "/out";
  const pid_t pid = start_long_run(dir, out);
  REQUIRE(kill(pid, SIGKILL) == 0);
  CHECK(wait_exit_code(pid) == 128 + SIGKILL);
  const std::vector<std::string> left = temporaries_in(out);
  CHECK(left.size() == 2);  // trace.pcap and trace_links.csv, being written
  // A short run into the same folder.
  const CommandResult r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + out +
                                     " --set phases.measure=2us --set phases.drain=2us");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(temporaries_in(out).empty());
  CHECK(r.output.find("leftovers of a killed run in " + out + ": " + std::to_string(left.size()) +
                      " temporary files removed") != std::string::npos);
  CHECK(nlohmann::json::parse(read_file(out + "/results.json"))["partial"] == false);
}

TEST_CASE("signals: sweep forwards SIGTERM to its points, waits for them and collects what they wrote",
          "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_sweep")).string();
  const pid_t pid = start(dir, {"sweep", data_path("long_uniform.yaml"), "--set", "workload.load=0.3,0.5,0.7", "-j", "2",
                                "-o", dir + "/sweep"});
  // Wait for both points to be well into their simulations.
  std::set<pid_t> points;
  for (int i = 0; i < 6000; ++i) {
    points = children_of(pid);
    bool busy = points.size() == 2;
    for (pid_t p : points) busy = busy && cpu_seconds(p) > 0.3;
    if (busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(points.size() == 2);
  REQUIRE(kill(pid, SIGTERM) == 0);
  const int code = wait_exit_code(pid);
  INFO(read_file(dir + "/stderr.txt"));
  CHECK(code == 128 + SIGTERM);
  for (pid_t p : points) CHECK_FALSE(alive(p));  // reaped by the sweep, never orphaned
  for (const char* point : {"p0000", "p0001"}) {
    const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/sweep/points/" + std::string(point) + "/results.json"));
    CHECK(r["partial"] == true);
    CHECK(r["stopped_by"] == "SIGTERM");
  }
  CHECK_FALSE(fs::exists(dir + "/sweep/points/p0002"));  // never started
  CHECK(fs::exists(dir + "/sweep/curve.csv"));
  CHECK(temporaries_in(dir + "/sweep").empty());
  CHECK(read_file(dir + "/stderr.txt").find("sweep interrupted by SIGTERM") != std::string::npos);
}

TEST_CASE("signals: a sweep killed with SIGKILL leaves no point running", "[scenarios][interrupt][signals]") {
  const std::string dir = fs::absolute(scratch_dir("signal_sweep_kill")).string();
  const pid_t pid = start(dir, {"sweep", data_path("long_uniform.yaml"), "--set", "workload.load=0.3,0.5", "-j", "2",
                                "-o", dir + "/sweep"});
  std::set<pid_t> points;
  for (int i = 0; i < 6000 && points.size() < 2; ++i) {
    points = children_of(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(points.size() == 2);
  for (int i = 0; i < 6000; ++i) {
    bool busy = true;
    for (pid_t p : points) busy = busy && cpu_seconds(p) > 0.3;
    if (busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(kill(pid, SIGKILL) == 0);
  CHECK(wait_exit_code(pid) == 128 + SIGKILL);
  // The points got SIGTERM when their parent died: they stop, write partial results and exit.
  for (int i = 0; i < 3000; ++i) {
    bool any = false;
    for (pid_t p : points) any = any || alive(p);
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (pid_t p : points) CHECK_FALSE(alive(p));
  for (const char* point : {"p0000", "p0001"})
    CHECK(nlohmann::json::parse(read_file(dir + "/sweep/points/" + std::string(point) + "/results.json"))["stopped_by"] ==
          "SIGTERM");
}

TEST_CASE("signals: a plot gnuplot fails to draw leaves no image, in a run and in a sweep", "[scenarios][signals]") {
  const std::string dir = fs::absolute(scratch_dir("failed_plot")).string();
  // A gnuplot that creates every output its script names, empty, and fails.
  fs::create_directories(dir + "/bin");
  std::ofstream(dir + "/bin/gnuplot") << "#!/bin/sh\n"
                                         "for f in \"$@\"; do [ -f \"$f\" ] && script=\"$f\"; done\n"
                                         "[ -n \"$script\" ] || exit 1\n"
                                         "cd \"$(dirname \"$script\")\" 2>/dev/null\n"
                                         "sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$script\" | while read -r o; do : > \"$o\"; done\n"
                                         "echo 'gnuplot: simulated failure' >&2\nexit 1\n";
  chmod((dir + "/bin/gnuplot").c_str(), 0755);
  const std::string env = "PATH=" + dir + "/bin:$PATH SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ";
  CommandResult r = run_command(env + IBFSIM_BINARY + " run " + data_path("small_uniform.yaml") + " -o " + dir +
                                "/run --set phases.measure=4us --set phases.drain=2us --set 'outputs.time_series={interval: 1us}'");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("time series plot not made: gnuplot: gnuplot: simulated failure") != std::string::npos);
  CHECK(fs::exists(dir + "/run/time_series.csv"));
  CHECK_FALSE(fs::exists(dir + "/run/time_series.png"));
  CHECK_FALSE(fs::exists(dir + "/run/time_series.svg"));
  CHECK(temporaries_in(dir + "/run").empty());
  r = run_command(env + IBFSIM_BINARY + " sweep " + data_path("small_uniform.yaml") + " -o " + dir +
                  "/sweep --set workload.load=0.2,0.4 --set phases.measure=4us --set phases.drain=2us");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("warning: plots not rendered: gnuplot failed") != std::string::npos);
  for (const char* image : {"latency.png", "latency.svg", "throughput.png", "throughput.svg"})
    CHECK_FALSE(fs::exists(dir + "/sweep/" + image));
  CHECK(fs::exists(dir + "/sweep/curve.csv"));
}
