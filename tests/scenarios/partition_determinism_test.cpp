// Results do not depend on how the fabric is split (calendar_process.h, "Partitions and windows"):
// every file a run writes is byte-identical at --threads 1, 2 and 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/workload/otf2_trace_reader.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

std::string source_path(const std::string& rel) { return std::string(IBFSIM_SOURCE_DIR) + "/" + rel; }

// Every file under `dir`, by its path relative to it, sorted.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `scenario` at 1, 2 and 4 threads; checks that the runs split the fabric as asked (at least
// `min_parts_at_4` partitions at --threads 4) and wrote the same files with the same bytes.
void check_same_at_any_split(const std::string& name, const std::string& scenario, unsigned min_parts_at_4) {
  std::vector<std::string> dirs;
  std::string out4;
  for (unsigned t : {1u, 2u, 4u}) {
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
      INFO(name << ": " << f << " of run " << k);
      CHECK(read_file(dirs[k] + "/" + f) == read_file(dirs[0] + "/" + f));
    }
  }
}

}  // namespace

TEST_CASE("partitions: the quickstart writes the same bytes at 1, 2 and 4 threads", "[scenarios][partitions]") {
  check_same_at_any_split("quickstart", source_path("scenarios/quickstart.yaml"), 4);
}

TEST_CASE("partitions: cc_victim (congestion control, time series) the same at 1, 2 and 4 threads",
          "[scenarios][partitions]") {
  check_same_at_any_split("cc_victim", source_path("scenarios/cc_victim.yaml") + " --set phases.measure=200us", 4);
}

TEST_CASE("partitions: 128-host fat tree, in-band SM, a link failing during traffic, the same at 1, 2 and 4 threads",
          "[scenarios][partitions]") {
  check_same_at_any_split("fat_tree_fault", data_path("partitions_fat_tree_fault.yaml"), 4);
}

TEST_CASE("partitions: RC WRITE verbs flow (perftest) the same at 1, 2 and 4 threads", "[scenarios][partitions]") {
  // The flow's two hosts share a partition; the switches between them need not.
  check_same_at_any_split("perftest", source_path("scenarios/perftest_write_bw.yaml"), 2);
}

TEST_CASE("partitions: a collective traffic class the same at 1, 2 and 4 threads", "[scenarios][partitions]") {
  check_same_at_any_split("ring_allreduce", source_path("scenarios/ring_allreduce.yaml"), 1);
}

TEST_CASE("partitions: collectives (nccl_allreduce, ring and tree) the same at 1, 2 and 4 threads",
          "[scenarios][partitions][collectives]") {
  // The ranks share a partition; the fat tree's spines need not.
  check_same_at_any_split("nccl", source_path("scenarios/nccl_allreduce.yaml") +
                                      " --set collectives.0.max_bytes=64K --set collectives.1.max_bytes=64K", 2);
}

TEST_CASE("partitions: the OTF2 trace replay the same at 1, 2 and 4 threads", "[scenarios][partitions][otf2]") {
  // Built without OTF2 the scenario is refused (workload/otf2_trace_reader_test.cpp checks that).
  if (!ibfsim::otf2_supported()) return;
  // The trace's ranks share a partition; the other hosts and the switches need not.
  check_same_at_any_split("trace_replay", source_path("scenarios/trace_replay.yaml"), 2);
}

TEST_CASE("partitions: --threads and simulation.threads take 1..1024 or auto, anything else is an error",
          "[scenarios][partitions]") {
  const std::string dir = scratch_dir("partitions_bad");
  auto r = run_ibfsim("run " + source_path("scenarios/quickstart.yaml") + " -o " + dir + " --threads 0");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--threads 0: expected a number of threads from 1 to 1024, or auto") != std::string::npos);
  r = run_ibfsim("run " + source_path("scenarios/quickstart.yaml") + " -o " + dir + " --set simulation.threads=two");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("expected a number of threads from 1 to 1024, or auto") != std::string::npos);
}
