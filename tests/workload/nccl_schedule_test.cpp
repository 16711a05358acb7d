// NCCL-style schedules (nccl_schedule.h): exact transfer lists for small rank counts, written
// out by hand from the rules in the header; NCCL's binary tree against the tree its source
// draws for 13 ranks; byte totals of a large ring allreduce.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/workload/nccl_schedule.h"

using namespace ibfsim;

namespace {

std::vector<std::string> texts(const std::vector<NcclTransfer>& ts) {
  std::vector<std::string> out;
  for (const NcclTransfer& t : ts) out.push_back(nccl_transfer_text(t));
  return out;
}

NcclPlan plan(NcclOp op, NcclAlgorithm a, std::uint32_t n, std::uint32_t channels = 1,
              std::uint64_t chunk = 1 << 20) {
  NcclPlan p;
  p.op = op;
  p.algorithm = a;
  p.ranks = n;
  p.channels = channels;
  p.chunk_bytes = chunk;
  return p;
}

}  // namespace

TEST_CASE("nccl ring allreduce on 2 ranks: reduce-scatter step, allgather step", "[workload][nccl]") {
  const auto t = texts(nccl_schedule(plan(NcclOp::kAllReduce, NcclAlgorithm::kRing, 2), 16));
  REQUIRE(t == std::vector<std::string>{"0->1 ch0 8B", "1->0 ch0 8B", "0->1 ch0 8B after 1 reduce",
                                        "1->0 ch0 8B after 0 reduce"});
}

TEST_CASE("nccl ring allreduce on 3 ranks: uneven segments, each step after the left neighbour's", "[workload][nccl]") {
  // 16 B = 4 floats: segments 0, 1, 2 hold 2, 1, 1 floats.
  const auto t = texts(nccl_schedule(plan(NcclOp::kAllReduce, NcclAlgorithm::kRing, 3), 16));
  REQUIRE(t == std::vector<std::string>{
                   "0->1 ch0 8B", "1->2 ch0 4B", "2->0 ch0 4B",                                  // step 0: segment i
                   "0->1 ch0 4B after 2 reduce", "1->2 ch0 8B after 0 reduce", "2->0 ch0 4B after 1 reduce",  // i-1
                   "0->1 ch0 4B after 5 reduce", "1->2 ch0 4B after 3 reduce", "2->0 ch0 8B after 4 reduce",  // i+1
                   "0->1 ch0 8B after 8", "1->2 ch0 4B after 6", "2->0 ch0 4B after 7"});        // step 3: segment i
}

TEST_CASE("nccl ring allgather: channels split the data, loops of ranks x chunk", "[workload][nccl]") {
  // 48 B = 12 floats, 6 per channel; chunk 8 B = 2 floats: loops of 4 floats (2+2), then 2 (1+1).
  const auto t = texts(nccl_schedule(plan(NcclOp::kAllGather, NcclAlgorithm::kRing, 2, 2, 8), 48));
  REQUIRE(t == std::vector<std::string>{"0->1 ch0 8B", "1->0 ch0 8B", "0->1 ch0 4B", "1->0 ch0 4B", "0->1 ch1 8B",
                                        "1->0 ch1 8B", "0->1 ch1 4B", "1->0 ch1 4B"});
}

TEST_CASE("nccl ring reducescatter on 3 ranks: rank i ends with segment i", "[workload][nccl]") {
  // 24 B = 6 floats, 2 per segment; rank i sends segment i-s-1 at step s.
  const auto ts = nccl_schedule(plan(NcclOp::kReduceScatter, NcclAlgorithm::kRing, 3), 24);
  REQUIRE(texts(ts) == std::vector<std::string>{"0->1 ch0 8B", "1->2 ch0 8B", "2->0 ch0 8B",
                                                "0->1 ch0 8B after 2 reduce", "1->2 ch0 8B after 0 reduce",
                                                "2->0 ch0 8B after 1 reduce"});
}

TEST_CASE("nccl ring broadcast: a chain from the root, chunk by chunk", "[workload][nccl]") {
  NcclPlan p = plan(NcclOp::kBroadcast, NcclAlgorithm::kRing, 3, 1, 4);
  p.root = 1;
  const auto t = texts(nccl_schedule(p, 8));
  REQUIRE(t == std::vector<std::string>{"1->2 ch0 4B", "2->0 ch0 4B after 0", "1->2 ch0 4B", "2->0 ch0 4B after 2"});
}

TEST_CASE("nccl alltoall: every block at once, in rounds", "[workload][nccl]") {
  const auto t = texts(nccl_schedule(plan(NcclOp::kAllToAll, NcclAlgorithm::kRing, 3), 12));
  REQUIRE(t == std::vector<std::string>{"0->1 ch0 4B", "1->2 ch0 4B", "2->0 ch0 4B", "0->2 ch0 4B", "1->0 ch0 4B",
                                        "2->1 ch0 4B"});
}

TEST_CASE("nccl binary tree: the tree NCCL's source draws for 13 ranks", "[workload][nccl]") {
  // 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10; 2 -> 1, 3; 6 -> 5, 7; 10 -> 9, 11.
  const std::uint32_t none = kNcclNoRank;
  const std::vector<std::array<std::uint32_t, 3>> want = {
      {none, none, 8}, {2, none, none}, {4, 1, 3},     {2, none, none}, {8, 2, 6},
      {6, none, none}, {4, 5, 7},       {6, none, none}, {0, 4, 12},    {10, none, none},
      {12, 9, 11},     {10, none, none}, {8, 10, none}};
  for (std::uint32_t r = 0; r < 13; ++r) {
    const NcclTreeNode t = nccl_btree(13, r);
    INFO("rank " << r);
    REQUIRE(std::array<std::uint32_t, 3>{t.parent, t.children[0], t.children[1]} == want[r]);
  }
}

TEST_CASE("nccl double tree: the second tree is mirrored (even n) or shifted (odd n)", "[workload][nccl]") {
  // n = 4: tree 0 is 0 -> 2 -> {1, 3}; tree 1 is 3 -> 1 -> {2, 0}.
  REQUIRE(nccl_double_tree(4, 3, 1).parent == kNcclNoRank);
  REQUIRE(nccl_double_tree(4, 3, 1).children[1] == 1);
  REQUIRE(nccl_double_tree(4, 1, 1).parent == 3);
  REQUIRE(nccl_double_tree(4, 1, 1).children == std::array<std::uint32_t, 2>{2, 0});
  // n = 3: tree 0 is 0 -> 2 -> 1; shifted by one: 1 -> 0 -> 2.
  REQUIRE(nccl_double_tree(3, 1, 1).children[1] == 0);
  REQUIRE(nccl_double_tree(3, 0, 1).parent == 1);
  REQUIRE(nccl_double_tree(3, 0, 1).children == std::array<std::uint32_t, 2>{2, kNcclNoRank});
  REQUIRE(nccl_double_tree(3, 2, 1).parent == 0);
}

TEST_CASE("nccl tree allreduce on 4 ranks: up after the children, down after the parent", "[workload][nccl]") {
  const auto t = texts(nccl_schedule(plan(NcclOp::kAllReduce, NcclAlgorithm::kTree, 4), 8));
  REQUIRE(t == std::vector<std::string>{"1->2 ch0 8B", "3->2 ch0 8B", "2->0 ch0 8B after 0,1 reduce",
                                        "0->2 ch0 8B after 2 reduce", "2->1 ch0 8B after 3", "2->3 ch0 8B after 3"});
  // Two channels: channel 1 runs on the mirrored tree 3 -> 1 -> {2, 0}, each on half the data.
  const auto t2 = texts(nccl_schedule(plan(NcclOp::kAllReduce, NcclAlgorithm::kTree, 4, 2), 16));
  REQUIRE(t2 == std::vector<std::string>{"1->2 ch0 8B", "3->2 ch0 8B", "2->0 ch0 8B after 0,1 reduce",
                                         "0->2 ch0 8B after 2 reduce", "2->1 ch0 8B after 3", "2->3 ch0 8B after 3",
                                         "2->1 ch1 8B", "0->1 ch1 8B", "1->3 ch1 8B after 6,7 reduce",
                                         "3->1 ch1 8B after 8 reduce", "1->2 ch1 8B after 9", "1->0 ch1 8B after 9"});
}

TEST_CASE("nccl ring allreduce: each rank sends 2(n-1)/n of the buffer", "[workload][nccl]") {
  const std::uint64_t size = 1 << 20;
  const auto ts = nccl_schedule(plan(NcclOp::kAllReduce, NcclAlgorithm::kRing, 8, 2, 64 * 1024), size);
  REQUIRE(ts.size() == 2 * 14 * 8);
  for (std::uint32_t r = 0; r < 8; ++r) {
    std::uint64_t sent = 0;
    for (const NcclTransfer& t : ts)
      if (t.src == r) sent += t.bytes;
    REQUIRE(sent == 2 * 7 * size / 8);
  }
  for (std::size_t k = 0; k < ts.size(); ++k)
    for (std::uint32_t a : ts[k].after) REQUIRE((a == kNcclNoTransfer || a < k));
}

TEST_CASE("nccl sizes and bus factors as nccl-tests computes them", "[workload][nccl]") {
  NcclPlan p = plan(NcclOp::kAllGather, NcclAlgorithm::kRing, 8);
  REQUIRE(nccl_round_size(p, 8) == 0);
  REQUIRE(nccl_round_size(p, 100) == 96);
  p.op = NcclOp::kAllReduce;
  REQUIRE(nccl_round_size(p, 10) == 8);
  REQUIRE(nccl_bus_factor(NcclOp::kAllReduce, 8) == Approx(1.75));
  REQUIRE(nccl_bus_factor(NcclOp::kAllGather, 8) == Approx(0.875));
  REQUIRE(nccl_bus_factor(NcclOp::kAllToAll, 4) == Approx(0.75));
  REQUIRE(nccl_bus_factor(NcclOp::kBroadcast, 4) == 1.0);
}
