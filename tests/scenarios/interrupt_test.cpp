// Ctrl-C: an interrupted `ibfsim run` stops cleanly, writes complete results marked partial (never
// a half-written file) and exits with code 130; progress shows only on a terminal.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// CPU time (user) the process has used, in seconds, from /proc/PID/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 14 && rest >> field; ++i) {
    if (i == 14) return std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return 0;
}

}  // namespace

TEST_CASE("SIGINT stops ibfsim run cleanly: results.json complete, marked partial, exit code 130", "[scenarios][interrupt]") {
  const std::string dir = std::filesystem::absolute(scratch_dir("interrupt")).string();
  const std::string out = dir + "/out";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int o = open((dir + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open((dir + "/stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execl(IBFSIM_BINARY, IBFSIM_BINARY, "run", data_path("long_uniform.yaml").c_str(), "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Let it get well into the simulation: half a second of CPU (elaborating this fabric takes a
  // small part of that). It will not finish meanwhile: the whole run takes minutes.
  for (int i = 0; i < 6000 && cpu_seconds(pid) < 0.5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(kill(pid, SIGINT) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const nlohmann::json r = nlohmann::json::parse(read_file(out + "/results.json"));  // complete JSON
  CHECK(r["partial"] == true);
  // It stopped part-way: after traffic began, long before the 5 ms window ended.
  const double end = r["phases"]["end_ns"];
  CHECK(end > r["phases"]["start_ns"].get<double>());
  CHECK(end < r["phases"]["start_ns"].get<double>() + 5'000'000);
  CHECK(r["flows"][0]["messages"]["offered"].get<std::uint64_t>() > 0);
  CHECK(r["message_latency"]["count"].get<std::uint64_t>() > 0);
  CHECK(r["saturation"]["saturated"] == false);  // an interrupted run is not judged saturated
  // Every result file is there and none is left half-written under a temporary name.
  for (const char* f : {"ports.csv", "port_vls.csv", "classes.csv"}) CHECK(std::filesystem::exists(out + "/" + f));
  for (const auto& e : std::filesystem::directory_iterator(out))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  const std::string summary = read_file(dir + "/stdout.txt");
  CHECK(summary.find("INTERRUPTED") != std::string::npos);
  // stderr is a file, not a terminal: no progress line was drawn.
  const std::string err = read_file(dir + "/stderr.txt");
  CHECK(err.find("simulated") == std::string::npos);
  CHECK(err.find('\r') == std::string::npos);
}

TEST_CASE("SIGINT during the subnet manager's bring-up: results marked partial, the fabric never up, exit code 130",
          "[scenarios][interrupt]") {
  const std::string dir = std::filesystem::absolute(scratch_dir("interrupt_bring_up")).string();
  const std::string out = dir + "/out";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int o = open((dir + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(o, 2);
    execl(IBFSIM_BINARY, IBFSIM_BINARY, "run", data_path("bring_up_2000.yaml").c_str(), "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // The run's header comes out before anything is simulated: it is there while the run goes on.
  for (int i = 0; i < 6000 && read_file(dir + "/stdout.txt").find("\nfabric: 2") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const std::string header = read_file(dir + "/stdout.txt");
  CHECK(header.rfind("ibfsim ", 0) == 0);
  CHECK(header.find("\nfabric: 2") != std::string::npos);
  CHECK(waitpid(pid, nullptr, WNOHANG) == 0);  // still running
  // Building the fabric takes about a fifth of the CPU time to the end of the bring-up: at 40%
  // of it the SM is sweeping.
  for (int i = 0; i < 6000 && cpu_seconds(pid) < 0.7; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(kill(pid, SIGINT) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  const std::string summary = read_file(dir + "/stdout.txt");
  INFO(summary);
  CHECK(WEXITSTATUS(status) == 130);
  const nlohmann::json r = nlohmann::json::parse(read_file(out + "/results.json"));
  CHECK(r["partial"] == true);
  CHECK(r["phases"]["fabric_up_ns"].is_null());
  CHECK(r["packets"]["created"] == 0);
  const double stopped = r["phases"]["end_ns"];
  CHECK(stopped > 0);
  CHECK(stopped < 85'122'603.52);  // the whole bring-up's simulated time
  CHECK(summary.find("fabric never up: interrupted during the subnet manager's bring-up") != std::string::npos);
  CHECK(summary.find("INTERRUPTED") != std::string::npos);
}

TEST_CASE("on a terminal, a long run shows simulated time, wall time and time left", "[long][interrupt]") {
  // script(1) gives the run a pseudo-terminal; timeout interrupts it after 4 s of wall time, by
  // which the meter (silent for the first second, then four redraws a second) has drawn.
  const std::string dir = std::filesystem::absolute(scratch_dir("progress_tty")).string();
  const std::string log = dir + "/typescript";
  const CommandResult r = run_command("script -q -e -c 'timeout --preserve-status -s INT 4 " + std::string(IBFSIM_BINARY) + " run " +
                                      data_path("long_uniform.yaml") + " -o " + dir + "/out' " + log);
  CHECK(r.exit_code == 130);
  const std::string t = read_file(log);
  CHECK(t.find("simulated ") != std::string::npos);
  CHECK(t.find(" of 5.102 ms") != std::string::npos);  // from the start of traffic: 2 us + 5 ms + 100 us
  CHECK(t.find("left") != std::string::npos);
  CHECK(t.find("\r\033[K") != std::string::npos);
  CHECK(nlohmann::json::parse(read_file(dir + "/out/results.json"))["partial"] == true);
}

TEST_CASE("on a terminal, the subnet manager's bring-up shows nodes found, SMPs and the time left", "[long][interrupt]") {
  const std::string dir = std::filesystem::absolute(scratch_dir("progress_tty_bring_up")).string();
  const std::string log = dir + "/typescript";
  const CommandResult r = run_command("script -q -e -c 'timeout --preserve-status -s INT 4 " + std::string(IBFSIM_BINARY) +
                                      " run " + data_path("bring_up_2000.yaml") + " -o " + dir + "/out' " + log);
  const std::string t = read_file(log);
  INFO(t.substr(0, 2000));
  CHECK(t.find("bring-up: ") != std::string::npos);
  CHECK(t.find(" nodes found, ") != std::string::npos);
  CHECK(t.find(" SMPs asked for, simulated ") != std::string::npos);
  CHECK(t.find(" left") != std::string::npos);
}
