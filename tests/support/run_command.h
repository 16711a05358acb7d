// Runs a shell command from a test and captures what it printed (stdout and stderr together).
#pragma once
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace ibfsim::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(f);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `ibfsim run` on a scenario under tests/scenarios/data (or any path), with extra arguments.
inline CommandResult run_ibfsim(const std::string& args) {
  return run_command(std::string("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ") + IBFSIM_BINARY + " " + args);
}

inline std::string data_path(const std::string& name) {
  return std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh, empty folder for one test's outputs.
inline std::string scratch_dir(const std::string& name) {
  const std::string dir = std::string("ibfsim_test_out/") + name;
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

}  // namespace ibfsim::test
