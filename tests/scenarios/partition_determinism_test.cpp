// Results do not depend on how the fabric is split (calendar_process.h, "Partitions and windows"):
// every file a run writes is byte-identical at --threads 1, 2, 3 and 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/workload/otf2_trace_reader.h"
#include "tests/support/same_at_any_split.h"

using namespace ibfsim::test;

namespace {

std::string source_path(const std::string& rel) { return std::string(IBFSIM_SOURCE_DIR) + "/" + rel; }

}  // namespace

TEST_CASE("partitions: the quickstart writes the same bytes at 1, 2, 3 and 4 threads", "[scenarios][partitions]") {
  check_same_at_any_split("quickstart", source_path("scenarios/quickstart.yaml"), 4);
}

TEST_CASE("partitions: cc_victim (congestion control, time series) the same at 1, 2, 3 and 4 threads",
          "[scenarios][partitions]") {
  check_same_at_any_split("cc_victim", source_path("scenarios/cc_victim.yaml") + " --set phases.measure=200us", 4);
}

TEST_CASE("partitions: 128-host fat tree, in-band SM, a link failing during traffic, the same at 1, 2, 3 and 4 threads",
          "[scenarios][partitions]") {
  check_same_at_any_split("fat_tree_fault", data_path("partitions_fat_tree_fault.yaml"), 4);
}

TEST_CASE("partitions: RC WRITE verbs flow (perftest) the same at 1, 2, 3 and 4 threads", "[scenarios][partitions]") {
  // The flow's two hosts share a partition; the switches between them need not.
  check_same_at_any_split("perftest", source_path("scenarios/perftest_write_bw.yaml"), 2);
}

TEST_CASE("partitions: two subnets joined by a router, verbs flows across it, the same at 1, 2, 3 and 4 threads",
          "[scenarios][partitions][routers]") {
  // Each subnet's SM sweeps in its own partition; the router's tables come from the LIDs both set.
  const SplitRuns runs = check_same_at_any_split("routers", data_path("ranks_routers.yaml"), 4);
  // Both flows crossed r1, every message of each completed, and nothing was dropped on the way.
  for (const std::string& out : runs.outputs) {
    CHECK(out.find("flow lat: RC write h2 <-> h5, 2 B x 100, latency test: 100 of 100 completed") != std::string::npos);
    CHECK(out.find("flow bw: RC write h6 -> h3, 16384 B x 100, tx_depth 16: 100 of 100 completed") != std::string::npos);
    CHECK(out.find(" delivered, 0 dropped") != std::string::npos);
  }
}

TEST_CASE("partitions: a collective traffic class the same at 1, 2, 3 and 4 threads", "[scenarios][partitions]") {
  check_same_at_any_split("ring_allreduce", source_path("scenarios/ring_allreduce.yaml"), 1);
}

TEST_CASE("partitions: collectives (nccl_allreduce, ring and tree) the same at 1, 2, 3 and 4 threads",
          "[scenarios][partitions][collectives]") {
  // The ranks share a partition; the fat tree's spines need not.
  check_same_at_any_split("nccl", source_path("scenarios/nccl_allreduce.yaml") +
                                      " --set collectives.0.max_bytes=64K --set collectives.1.max_bytes=64K", 2);
}

TEST_CASE("partitions: the OTF2 trace replay the same at 1, 2, 3 and 4 threads", "[scenarios][partitions][otf2]") {
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
