// Rings on rail-optimised servers (nccl_rail_rings.h) and the schedules that follow them
// (NcclPlan::rings, nccl_schedule.h), written out by hand.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/workload/nccl_rail_rings.h"
#include "sim/workload/nccl_schedule.h"

using namespace ibfsim;

namespace {

std::vector<std::string> texts(const std::vector<NcclTransfer>& ts) {
  std::vector<std::string> out;
  for (const NcclTransfer& t : ts) out.push_back(nccl_transfer_text(t));
  return out;
}

}  // namespace

TEST_CASE("rail rings: server by server in first-appearance order, each server by rail from channel c's rail",
          "[workload][nccl]") {
  // Ranks 0..3 on (server, rail): (1, 1), (0, 0), (0, 1), (1, 0). Server 1 comes first (rank 0),
  // its ranks by rail: 3, 0; server 0: 1, 2. Channel c starts each server at its (c mod 2)-th rank.
  // Channel 0's crossings between servers, 0 -> 1 and 2 -> 3, go from rail 1 to rail 0: the
  // sending server's rail-0 rank (3, 1) sends them on, so they stay on rail 0.
  const std::vector<std::optional<NcclRankPlace>> places = {NcclRankPlace{1, 1}, NcclRankPlace{0, 0},
                                                            NcclRankPlace{0, 1}, NcclRankPlace{1, 0}};
  const auto rings = nccl_rail_rings(places, 3);
  REQUIRE(rings.size() == 3);
  CHECK(rings[0] == std::vector<std::uint32_t>{3, 0, 1, 2});
  CHECK(rings[1] == std::vector<std::uint32_t>{0, 3, 2, 1});
  CHECK(rings[2] == rings[0]);
  // A rank without a server is a server of its own; with no server shared, no rings at all.
  CHECK(nccl_rail_rings({NcclRankPlace{0, 1}, std::nullopt, NcclRankPlace{0, 0}}, 1) ==
        std::vector<std::vector<std::uint32_t>>{{2, 0, 1}});
  CHECK(nccl_rail_rings({NcclRankPlace{0, 0}, std::nullopt, NcclRankPlace{1, 0}}, 2).empty());
}

TEST_CASE("nccl schedules follow each channel's ring: ring allgather and broadcast", "[workload][nccl]") {
  NcclPlan p;
  p.op = NcclOp::kAllGather;
  p.ranks = 3;
  p.channels = 1;
  p.rings = {{2, 0, 1}};
  // 12 B = 3 floats, one per segment. Position i on the ring is rank rings[0][i]; step 1 of
  // position i waits for step 0 of position i - 1.
  CHECK(texts(nccl_schedule(p, 12)) == std::vector<std::string>{"2->0 ch0 4B", "0->1 ch0 4B", "1->2 ch0 4B",
                                                                "2->0 ch0 4B after 2", "0->1 ch0 4B after 0",
                                                                "1->2 ch0 4B after 1"});
  p.op = NcclOp::kBroadcast;
  p.root = 0;
  p.chunk_bytes = 4;
  // The chain starts at the root's position on the ring: 0 -> 1 -> 2.
  CHECK(texts(nccl_schedule(p, 4)) == std::vector<std::string>{"0->1 ch0 4B", "1->2 ch0 4B after 0"});
}
