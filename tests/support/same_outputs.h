// Results do not depend on how a run's fabric is split (calendar_process.h, "Partitions and
// windows"): a scenario run at several --threads writes the same files with the same bytes.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

namespace ibfsim::test {

// Every file under `dir`, by its path relative to it, sorted.
inline std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// The number after "partitions: " in a run's summary (0: no such line).
inline unsigned partitions_in(const std::string& output) {
  const auto p = output.find("partitions: ");
  return p == std::string::npos ? 0u : static_cast<unsigned>(std::stoul(output.substr(p + 12)));
}

struct ThreadRuns {
  std::vector<std::string> dirs;     // [run]: its results folder
  std::vector<std::string> outputs;  // [run]: what it printed
};

// Runs `scenario` (a path and any flags) at each of `threads` (the first 1); checks that each ended
// with `exit_code`, the first ran in one partition, the last in at least `min_parts_at_last`, and
// that every run wrote the same files as the first, byte for byte.
inline ThreadRuns check_same_at_threads(const std::string& name, const std::string& scenario,
                                        const std::vector<unsigned>& threads, unsigned min_parts_at_last,
                                        int exit_code = 0) {
  ThreadRuns runs;
  for (const unsigned t : threads) {
    const std::string dir = scratch_dir("partitions_" + name + "_" + std::to_string(t));
    const CommandResult r = run_ibfsim("run " + scenario + " -o " + dir + " --threads " + std::to_string(t));
    INFO(r.output);
    REQUIRE(r.exit_code == exit_code);
    runs.dirs.push_back(dir);
    runs.outputs.push_back(r.output);
  }
  INFO(runs.outputs.front());
  CHECK(runs.outputs.front().find("partitions: 1 (single)") != std::string::npos);
  INFO(runs.outputs.back());
  CHECK(partitions_in(runs.outputs.back()) >= min_parts_at_last);
  const std::vector<std::string> files = files_under(runs.dirs.front());
  REQUIRE(files.size() >= 3);
  for (std::size_t k = 1; k < runs.dirs.size(); ++k) {
    CHECK(files_under(runs.dirs[k]) == files);
    for (const std::string& f : files) {
      INFO(name << ": " << f << " at --threads " << threads[k]);
      CHECK(read_file(runs.dirs[k] + "/" + f) == read_file(runs.dirs.front() + "/" + f));
    }
  }
  return runs;
}

}  // namespace ibfsim::test
