// The replay plan of an MPI trace (mpi_replay_plan.h), on traces written out by hand: pairing of
// sends and receives, the ring decomposition of collectives (exact bytes per message), the
// idealized timeline (exact femtoseconds), and the errors a bad trace gets.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/workload/mpi_replay_plan.h"

using namespace ibfsim;

namespace {

MpiCall send(std::uint32_t to, std::uint64_t bytes, Time gap, std::uint32_t tag = 0) {
  MpiCall c;
  c.kind = MpiCallKind::kSend, c.peer = to, c.bytes = bytes, c.gap = gap, c.tag = tag;
  return c;
}
MpiCall recv(std::uint32_t from, std::uint64_t bytes, Time gap, std::uint32_t tag = 0) {
  MpiCall c = send(from, bytes, gap, tag);
  c.kind = MpiCallKind::kRecv;
  return c;
}
MpiCall coll(MpiCollectiveOp op, std::uint64_t bytes, Time gap, std::uint32_t root = kNoRoot) {
  MpiCall c;
  c.kind = MpiCallKind::kCollective, c.op = op, c.bytes_sent = c.bytes_received = bytes, c.gap = gap, c.root = root;
  return c;
}
MpiTrace trace(std::vector<std::vector<MpiCall>> calls) {
  MpiTrace t;
  t.file = "t.otf2";
  for (auto& c : calls) t.ranks.push_back(MpiTraceRank{"", std::move(c)});
  return t;
}
std::string message_text(const ReplayMessage& m) {
  return std::to_string(m.src) + "->" + std::to_string(m.dst) + " " + std::to_string(m.bytes) + "B";
}

}  // namespace

TEST_CASE("mpi replay: a send pairs with the receive, gaps kept, timeline with a fixed latency", "[workload][mpi_replay]") {
  const ReplayPlan p = plan_replay(trace({{send(1, 4096, 100 * kNs, 7), send(1, 8, 5 * kNs, 7)},
                                          {recv(0, 4096, 30 * kNs, 7), recv(0, 8, 0, 7)}}));
  REQUIRE(p.messages.size() == 2);
  CHECK(message_text(p.messages[0]) == "0->1 4096B");
  CHECK(p.steps[0].size() == 2);
  CHECK(p.steps[0][0].gap == 100 * kNs);
  CHECK(p.steps[0][1].gap == 5 * kNs);
  CHECK(p.steps[1][0].recvs == std::vector<std::uint32_t>{0});
  CHECK(p.by_pair[0 * 2 + 1].size() == 2);
  // Latency 1 us: rank 0 posts at 100 ns, done at 1100 ns, posts again at 1105 ns, done at 2105 ns;
  // rank 1 waits from 30 ns, gets the first at 1100 ns and the second at 2105 ns.
  const ReplayTimeline t = replay_timeline(p, kUs, "t.otf2");
  CHECK(t.posted[0] == std::vector<Time>{100 * kNs, 1105 * kNs});
  CHECK(t.completed[0] == std::vector<Time>{1100 * kNs, 2105 * kNs});
  CHECK(t.posted[1] == std::vector<Time>{30 * kNs, 1100 * kNs});
  CHECK(t.completed[1] == std::vector<Time>{1100 * kNs, 2105 * kNs});
  CHECK(t.end == 2105 * kNs);
}

TEST_CASE("mpi replay: allreduce over 4 ranks is a ring of 6 steps with 1/4 chunks", "[workload][mpi_replay]") {
  std::vector<std::vector<MpiCall>> calls(4, {coll(MpiCollectiveOp::kAllreduce, 1026, 50 * kNs)});
  const ReplayPlan p = plan_replay(trace(calls));
  REQUIRE(p.messages.size() == 24);  // 4 ranks x 2(n-1)
  std::uint64_t bytes0 = 0;
  for (const ReplayMessage& m : p.messages) {
    CHECK(m.dst == (m.src + 1) % 4);
    if (m.src == 0) bytes0 += m.bytes;
  }
  // 1026 = 257 + 257 + 256 + 256: rank 0 sends chunks 0, 3, 2 then 1, 0, 3.
  CHECK(bytes0 == 257 + 256 + 256 + 257 + 257 + 256);
  REQUIRE(p.steps[0].size() == 6);
  CHECK(p.steps[0][0].gap == 50 * kNs);
  CHECK(p.steps[0][1].gap == 0);
  // Every step waits one latency after the previous: 50 ns + 6 x 1 us.
  CHECK(replay_timeline(p, kUs, "t.otf2").end == 6050 * kNs);
}

TEST_CASE("mpi replay: bcast is a chain from the root, reduce a chain to it", "[workload][mpi_replay]") {
  std::vector<std::vector<MpiCall>> b(3, {coll(MpiCollectiveOp::kBcast, 64, 0, 1)});
  ReplayPlan p = plan_replay(trace(b));
  REQUIRE(p.messages.size() == 2);
  CHECK(message_text(p.messages[0]) == "1->2 64B");
  CHECK(message_text(p.messages[1]) == "2->0 64B");
  std::vector<std::vector<MpiCall>> r(3, {coll(MpiCollectiveOp::kReduce, 64, 0, 1)});
  p = plan_replay(trace(r));
  REQUIRE(p.messages.size() == 2);
  CHECK(message_text(p.messages[0]) == "2->0 64B");
  CHECK(message_text(p.messages[1]) == "0->1 64B");
  CHECK(p.steps[0].size() == 2);  // receives from 2, then sends to the root
}

TEST_CASE("mpi replay: mismatched traces and deadlocks are refused naming the file", "[workload][mpi_replay]") {
  CHECK_THROWS_WITH(plan_replay(trace({{send(1, 8, 0)}, {}})),
                    "t.otf2: rank 0 sends 1 message(s) to rank 1, which receives 0");
  CHECK_THROWS_WITH(plan_replay(trace({{send(1, 8, 0)}, {recv(0, 16, 0)}})),
                    Catch::Contains("sent as 8 bytes with tag 0 (call 0), received as 16 bytes"));
  CHECK_THROWS_WITH(plan_replay(trace({{coll(MpiCollectiveOp::kBarrier, 0, 0)}, {}})),
                    "t.otf2: rank 0 makes 1 collective calls and rank 1 makes 0; every rank must make the same");
  // Both receive first: a deadlock in MPI too.
  const ReplayPlan p = plan_replay(trace({{recv(1, 8, 0), send(1, 8, 0)}, {recv(0, 8, 0), send(0, 8, 0)}}));
  CHECK_THROWS_WITH(replay_timeline(p, kUs, "t.otf2"),
                    "t.otf2: the trace deadlocks when replayed (rank 0 at call 0, rank 1 at call 0)");
}
