// The OTF2 reader (otf2_trace_reader.h) on the trace scenarios/trace_replay.yaml replays, written
// by scripts/make_otf2_trace.py with a 2 GHz clock starting at tick 7e12: exact ranks, peers, bytes
// and femtosecond times; and the errors. Built without OTF2, the reader's refusal.
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/error.h"
#include "sim/workload/otf2_trace_reader.h"

using namespace ibfsim;

namespace {
const std::string kTrace = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/traces/ring_allreduce/traces.otf2";
}

TEST_CASE("otf2 reader: the ring and allreduce trace, times from the clock properties", "[workload][otf2]") {
  if (!otf2_supported()) {
    CHECK_THROWS_WITH(read_otf2_trace(kTrace), Catch::Contains("this ibfsim was built without OTF2"));
    return;
  }
  const MpiTrace t = read_otf2_trace(kTrace);
  CHECK(t.timer_resolution == 2000000000u);
  CHECK(t.global_offset == 7000000000000u);
  CHECK(t.duration == 13530 * kNs);  // 27060 ticks of 0.5 ns
  REQUIRE(t.ranks.size() == 4);
  CHECK(t.ranks[1].name == "rank 1 main thread");
  const auto& c = t.ranks[1].calls;
  REQUIRE(c.size() == 6);
  // Rank 1 (odd) receives first: 4096 bytes from rank 0, in MPI_Recv from 2300 to 3200 ticks.
  CHECK(c[0].kind == MpiCallKind::kRecv);
  CHECK(c[0].peer == 0);
  CHECK(c[0].tag == 7);
  CHECK(c[0].bytes == 4096);
  CHECK(c[0].begin == 1150 * kNs);
  CHECK(c[0].end == 1600 * kNs);
  CHECK(c[0].gap == 1150 * kNs);
  CHECK(c[1].kind == MpiCallKind::kSend);
  CHECK(c[1].peer == 2);
  CHECK(c[1].bytes == 4160);
  CHECK(c[1].gap == 80 * kNs);
  CHECK(c[2].kind == MpiCallKind::kCollective);
  CHECK(c[2].op == MpiCollectiveOp::kAllreduce);
  CHECK(c[2].root == kNoRoot);
  CHECK(c[2].bytes_sent == 65536);
  CHECK(c[2].bytes_received == 65536);
  CHECK(c[2].comm_size == 4);
  CHECK(c[2].gap == 2625 * kNs);
  CHECK(c[2].begin == 4755 * kNs);
  CHECK(c[2].end == 6005 * kNs);
  // Rank 3's second round: the ring wraps to rank 0.
  CHECK(t.ranks[3].calls[4].peer == 0);
  CHECK(t.ranks[3].calls[4].bytes == 8384);
}

TEST_CASE("otf2 reader: a missing archive and a file that is not one are refused", "[workload][otf2]") {
  if (!otf2_supported()) return;  // the test above checks the refusal
  CHECK_THROWS_WITH(read_otf2_trace("/nonexistent/t.otf2", "s.yaml:3:9"),
                    "s.yaml:3:9: /nonexistent/t.otf2: no such file (expected an OTF2 archive's anchor file, NAME.otf2)");
  const std::string not_otf2 = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/trace_replay.yaml";
  CHECK_THROWS_WITH(read_otf2_trace(not_otf2), Catch::StartsWith(not_otf2 + ": not a readable OTF2 archive"));
}

TEST_CASE("mpi trace: ticks to femtoseconds at any resolution, rounded to the nearest", "[workload][otf2]") {
  CHECK(trace_ticks_to_fs(3, 1000000000u) == 3 * kNs);
  CHECK(trace_ticks_to_fs(1, 3000000000u) == 333333);  // 333333.3 fs
  CHECK(trace_ticks_to_fs(2, 3000000000u) == 666667);  // 666666.7 fs
  // An hour at 1 GHz: 3.6e12 ticks, 3.6e18 fs (over 64 bits before the division).
  CHECK(trace_ticks_to_fs(3600000000000u, 1000000000u) == 3600 * kSec);
}
