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

// Runs `scenario` (a path and any extra arguments) at 1, 2, 3 and 4 threads; checks that the runs
// split the fabric as asked (at least `min_parts_at_4` partitions at --threads 4) and wrote the same
// files with the same bytes.
inline void check_same_at_any_split(const std::string& name, const std::string& scenario, unsigned min_parts_at_4) {
  std::vector<std::string> dirs;
  std::string out4;
  for (unsigned t : {1u, 2u, 3u, 4u}) {
    const std::string dir = scratch_dir("partitions_" + name + "_" + std::to_string(t));
    const auto r = run_ibfsim("run " + scenario + " -o " + dir + " --threads " + std::to_string(t));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    if (t == 1) CHECK(r.output.find("partitions: 1 (single)") != std::string::npos);
    if (t == 4) out4 = r.output;
    dirs.push_back(dir);
  }
  const auto p = out4.find("partitions: ");
  REQUIRE(p != std::string::npos);
  CHECK(std::stoul(out4.substr(p + 12)) >= min_parts_at_4);
  const std::vector<std::string> files = files_under(dirs[0]);
  REQUIRE(files.size() >= 3);
  for (std::size_t k = 1; k < dirs.size(); ++k) {
    CHECK(files_under(dirs[k]) == files);
    for (const std::string& f : files) {
      INFO(name << ": " << f << " of the run at " << k + 1 << " threads");
      CHECK(read_file(dirs[k] + "/" + f) == read_file(dirs[0] + "/" + f));
    }
  }
}

}  // namespace ibfsim::test
