// Checks that results do not depend on how the fabric is split (core/calendar_process.h, "Partitions
// and windows"): a scenario's run writes the same files with the same bytes at 1, 2, 3 and 4 threads.
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

// The runs of check_same_at_any_split, at 1, 2, 3 and 4 threads.
struct SplitRuns {
  std::vector<std::string> dirs;     // [threads - 1]: its results folder
  std::vector<std::string> outputs;  // [threads - 1]: what it printed
};

// Runs `scenario` (a path and any extra arguments) at 1, 2, 3 and 4 threads; checks that each ended
// with `exit_code`, that the runs split the fabric as asked (at least `min_parts_at_4` partitions at
// --threads 4) and wrote the same files with the same bytes.
inline SplitRuns check_same_at_any_split(const std::string& name, const std::string& scenario, unsigned min_parts_at_4,
                                         int exit_code = 0) {
  SplitRuns runs;
  for (unsigned t : {1u, 2u, 3u, 4u}) {
    const std::string dir = scratch_dir("partitions_" + name + "_" + std::to_string(t));
    const auto r = run_ibfsim("run " + scenario + " -o " + dir + " --threads " + std::to_string(t));
    INFO(r.output);
    REQUIRE(r.exit_code == exit_code);
    if (t == 1) CHECK(r.output.find("partitions: 1 (single)") != std::string::npos);
    if (t == 4) REQUIRE(partitions_in(r.output) >= std::max(1u, min_parts_at_4));
    runs.dirs.push_back(dir);
    runs.outputs.push_back(r.output);
  }
  const std::vector<std::string> files = files_under(runs.dirs[0]);
  REQUIRE(files.size() >= 3);
  for (std::size_t k = 1; k < runs.dirs.size(); ++k) {
    CHECK(files_under(runs.dirs[k]) == files);
    for (const std::string& f : files) {
      INFO(name << ": " << f << " of the run at " << k + 1 << " threads");
      CHECK(read_file(runs.dirs[k] + "/" + f) == read_file(runs.dirs[0] + "/" + f));
    }
  }
  return runs;
}

}  // namespace ibfsim::test
