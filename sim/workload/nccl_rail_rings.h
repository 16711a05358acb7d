// The rings of a collective on rail-optimised servers (several HCAs, one per GPU, per server; HCA
// k of every server on rail k's leaves): as NCCL builds them, a channel's ring goes through every
// GPU of a server and crosses between servers on one rail. NCCL's ring search
// (src/graph/search.cc) enters a server through a NIC and, unless cross-NIC rings are allowed,
// leaves it through the same NIC; the GPU the ring ends on reaches that NIC over NVLink (PXN).
// Here: channel c's ring visits the servers in the order their first rank appears in the scenario,
// and in each server its ranks in rail order starting at the (c mod m)-th of its m ranks; the
// step from a server's last rank to the next server's first leaves through the HCA of the first
// rank's rail in the sending server (nccl_collective.h: over the intra-node fabric to it, then RC
// WRITE), so every channel's inter-server traffic stays on the rail of its first rank.
// Pure function over plain data.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace ibfsim {

// Where a rank's HCA sits: its server (Topology::servers index) and rail (its index in the
// server's host list).
struct NcclRankPlace {
  std::size_t server = 0;
  std::uint32_t rail = 0;
};

// Per channel, its ring's ranks in order (NcclPlan::rings). Ranks without a server count as
// servers of their own. Empty (every channel on the ranks' order) when no two ranks share a server.
std::vector<std::vector<std::uint32_t>> nccl_rail_rings(const std::vector<std::optional<NcclRankPlace>>& places,
                                                        std::uint32_t channels);

}  // namespace ibfsim
