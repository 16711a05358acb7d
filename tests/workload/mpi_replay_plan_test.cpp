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
// A non-blocking send or receive (request `request`), and the wait that completes the call at
// index `posted` on the same rank.
MpiCall isend(std::uint32_t to, std::uint64_t bytes, Time gap, std::uint64_t request) {
  MpiCall c = send(to, bytes, gap);
  c.kind = MpiCallKind::kIsend, c.request = request;
  return c;
}
MpiCall irecv(std::uint32_t from, std::uint64_t bytes, Time gap, std::uint64_t request) {
  MpiCall c = isend(from, bytes, gap, request);
  c.kind = MpiCallKind::kIrecv;
  return c;
}
MpiCall wait(const MpiCall& posted_as, std::uint32_t posted, Time gap) {
  MpiCall c = posted_as;
  c.kind = MpiCallKind::kWait, c.posted_call = posted, c.completes_send = posted_as.kind == MpiCallKind::kIsend;
  c.gap = gap;
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

TEST_CASE("mpi replay: non-blocking calls post without waiting, their waits wait, blocking and non-blocking "
          "pair in posting order",
          "[workload][mpi_replay]") {
  // Rank 0: MPI_Isend of 4096 B (gap 10 ns), a blocking send of 8 B (gap 20 ns), then MPI_Wait for
  // the first (gap 300 ns). Rank 1: MPI_Irecv (gap 5 ns), MPI_Irecv (gap 6 ns), waits for the
  // second (gap 7 ns), then for the first (0: the same MPI_Waitall).
  const MpiCall s0 = isend(1, 4096, 10 * kNs, 1), r0 = irecv(0, 4096, 5 * kNs, 1), r1 = irecv(0, 8, 6 * kNs, 2);
  const ReplayPlan p = plan_replay(trace({{s0, send(1, 8, 20 * kNs), wait(s0, 0, 300 * kNs)},
                                          {r0, r1, wait(r1, 1, 7 * kNs), wait(r0, 0, 0)}}));
  REQUIRE(p.messages.size() == 2);
  CHECK(message_text(p.messages[0]) == "0->1 4096B");  // the first posted of each side pair up
  CHECK(message_text(p.messages[1]) == "0->1 8B");
  using V = std::vector<std::uint32_t>;
  REQUIRE(p.steps[0].size() == 3);
  CHECK((p.steps[0][0].sends == V{0} && p.steps[0][0].acked.empty()));  // the Isend waits for nothing
  CHECK((p.steps[0][1].sends == V{1} && p.steps[0][1].acked == V{1}));   // the blocking send for itself
  CHECK((p.steps[0][2].sends.empty() && p.steps[0][2].acked == V{0}));  // the wait for the Isend's
  REQUIRE(p.steps[1].size() == 4);
  CHECK((p.steps[1][0].recvs.empty() && p.steps[1][1].recvs.empty()));
  CHECK(p.steps[1][2].recvs == V{1});
  CHECK(p.steps[1][3].recvs == V{0});
  CHECK(p.steps[1][3].gap == 0);
  // Latency 1 us. Rank 0: the Isend posts and completes at 10 ns; the send posts at 30 ns and is
  // acknowledged at 1030 ns; the wait posts at 1330 ns, the Isend's long done (1010 ns). Rank 1:
  // 5 ns, 11 ns, then waits from 18 ns for the 8 B message (1030 ns) and at once for the first.
  const ReplayTimeline t = replay_timeline(p, kUs, "t.otf2");
  CHECK(t.posted[0] == std::vector<Time>{10 * kNs, 30 * kNs, 1330 * kNs});
  CHECK(t.completed[0] == std::vector<Time>{10 * kNs, 1030 * kNs, 1330 * kNs});
  CHECK(t.posted[1] == std::vector<Time>{5 * kNs, 11 * kNs, 18 * kNs, 1030 * kNs});
  CHECK(t.completed[1] == std::vector<Time>{5 * kNs, 11 * kNs, 1030 * kNs, 1030 * kNs});
  CHECK(t.end == 1330 * kNs);
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

TEST_CASE("mpi replay: collectives over sub-communicators run over the ring of their members, in the "
          "communicator's order",
          "[workload][mpi_replay]") {
  // Ranks 3 and 1 (in that order) allreduce 101 bytes twice; ranks 0, 2, 3 bcast 64 bytes from
  // world rank 2; then all four reach a barrier. Rank 1's and rank 0's calls interleave
  // differently: only each communicator's own order matters.
  auto on = [](MpiCall c, std::vector<std::uint32_t> comm) {
    c.comm = std::move(comm);
    return c;
  };
  const std::vector<std::uint32_t> odd{3, 1}, three{0, 2, 3};
  const MpiCall ar = on(coll(MpiCollectiveOp::kAllreduce, 101, 0), odd);
  const MpiCall bc = on(coll(MpiCollectiveOp::kBcast, 64, 0, 2), three);
  const MpiCall bar = coll(MpiCollectiveOp::kBarrier, 0, 0);
  const ReplayPlan p = plan_replay(trace({{bc, bar}, {ar, ar, bar}, {bc, bar}, {ar, bc, ar, bar}}));
  std::vector<std::string> msgs;
  for (const ReplayMessage& m : p.messages) msgs.push_back(message_text(m));
  // Communicators are planned in the order of their member lists: the world's barrier first
  // (2(4-1) steps of 0 bytes around the ring, 24 messages), then the bcast (a chain 2 -> 3 -> 0:
  // ring positions 1, 2, 0), then each allreduce: 2(2-1) steps of chunks of 51 and 50 bytes
  // between 3 and 1 (member 0 is rank 3: it sends chunk 0 first).
  REQUIRE(p.messages.size() == 24 + 2 + 8);
  CHECK(msgs[0] == "0->1 0B");
  CHECK(msgs[24] == "2->3 64B");
  CHECK(msgs[25] == "3->0 64B");
  const std::vector<std::string> want_allreduce{"3->1 51B", "1->3 50B", "3->1 50B", "1->3 51B"};
  CHECK(std::vector<std::string>(msgs.begin() + 26, msgs.begin() + 30) == want_allreduce);
  CHECK(std::vector<std::string>(msgs.begin() + 30, msgs.end()) == want_allreduce);
  CHECK(p.steps[0].size() == 1 + 6);  // bcast (receive) then the barrier
  CHECK(p.steps[1].size() == 2 + 2 + 6);
  CHECK(p.steps[3].size() == 2 + 2 + 2 + 6);  // its allreduce, bcast (receive, then send), allreduce
  CHECK(replay_timeline(p, kUs, "t.otf2").end > 0);
  // A communicator whose members disagree on their calls, and a root outside it.
  CHECK_THROWS_WITH(plan_replay(trace({{bar}, {ar, bar}, {bar}, {bar}})),
                    "t.otf2: rank 3 makes 0 collective calls on the communicator of ranks 3,1 and rank 1 makes 1; "
                    "every rank must make the same");
  CHECK_THROWS_WITH(plan_replay(trace({{bar}, {on(coll(MpiCollectiveOp::kBcast, 8, 0, 0), odd), bar}, {bar},
                                       {on(coll(MpiCollectiveOp::kBcast, 8, 0, 0), odd), bar}})),
                    "t.otf2: a bcast rooted at rank 0, which is not in its communicator");
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
