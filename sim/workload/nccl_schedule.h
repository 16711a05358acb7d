// NCCL-style collectives as lists of transfers: which rank writes how many bytes to which rank,
// on which channel, once which earlier transfers have arrived at it. Pure functions over plain
// data (no SystemC); the run (nccl_collective.h) posts each transfer as an RDMA WRITE with
// immediate as soon as the transfers it waits for have arrived, so a chunk moves on the moment it
// is in (pipelining).
//
// Data: `size_bytes` / type_bytes elements, split among the channels (channel c gets
// floor(E/C) elements, one more for c < E mod C), each channel's share in pieces of at most
// chunk_bytes (a whole number of elements). Ranks are 0..n-1 in the order the scenario lists
// them; every channel uses the same ring i -> i+1 mod n, unless NcclPlan::rings gives each channel
// its own order (nccl_rail_rings.h: server by server, so that a ring leaves every server on one rail).
// Below, "rank i" of the ring schedules is the rank at position i of the channel's ring.
//
//  * ring allreduce: a channel's elements in loops of n * chunk; a loop's n segments (segment j:
//    floor(L/n), one more for j < L mod n) go round in 2(n-1) steps: at step s < n-1 rank i sends
//    segment i-s (reduce-scatter: steps 1..n-1 reduce what came in with its own data first), at
//    step n-1+t segment i+1-t (allgather). Step s of rank i waits for step s-1 of rank i-1.
//  * ring allgather: n-1 steps per loop, rank i sends segment i-s; step s waits for step s-1 of
//    rank i-1. `size_bytes` is the gathered buffer (n blocks).
//  * ring reducescatter: n-1 steps per loop, rank i sends segment i-s-1, steps >= 1 reducing
//    first; `size_bytes` is the input buffer (n blocks).
//  * ring broadcast: a chain from the root (root -> root+1 -> ... -> root-1); each chunk moves on
//    as soon as it has arrived.
//  * alltoall: every rank sends its block of size/n bytes to every other rank at once (as NCCL's
//    grouped point-to-point sends do), each block in chunks, no waiting; in round order
//    (peer i+1, i+2, ...).
//  * tree allreduce (NCCL's double binary tree): channel c < ceil(C/2) uses tree 0, the others
//    tree 1 (ncclGetBtree's tree over ranks 0..n-1; tree 1 is it shifted by one rank for odd n,
//    mirrored (n-1-r) for even n). Per chunk: a rank sends up once its children's chunks have
//    arrived (reducing them), the root sends down once its children's chunks are in, every
//    other rank sends down once the chunk has come from its parent.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ibfsim {

enum class NcclOp { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast };
// kSharp: allreduce reduced in the switches (SHARP aggregation trees, sharp_allreduce.h); it has no
// transfer schedule here.
enum class NcclAlgorithm { kRing, kTree, kSharp };

const char* nccl_op_name(NcclOp op);              // "allreduce", ...
const char* nccl_algorithm_name(NcclAlgorithm a);  // "ring", "tree", "sharp"

struct NcclPlan {
  NcclOp op = NcclOp::kAllReduce;
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  std::uint32_t ranks = 2;
  std::uint32_t channels = 1;
  std::uint64_t chunk_bytes = 128 * 1024;
  std::uint32_t type_bytes = 4;
  std::uint32_t root = 0;  // broadcast
  // Ring and broadcast: channel c's ring is rings[c mod rings.size()] (every rank once, in ring
  // order); empty: 0, 1, ..., n-1 for every channel.
  std::vector<std::vector<std::uint32_t>> rings;
};

inline constexpr std::uint32_t kNcclNoTransfer = ~std::uint32_t{0};

struct NcclTransfer {
  std::uint32_t channel = 0;
  std::uint32_t src = 0, dst = 0;  // ranks
  std::uint64_t bytes = 0;         // may be 0: the step still happens (a flag write)
  bool reduce = false;             // src reduces what it received before sending it on
  // Transfers (indices into the schedule) that must have arrived at src before it posts this.
  std::array<std::uint32_t, 2> after{kNcclNoTransfer, kNcclNoTransfer};
  bool operator==(const NcclTransfer& o) const {
    return channel == o.channel && src == o.src && dst == o.dst && bytes == o.bytes && reduce == o.reduce &&
           after == o.after;
  }
};

// The transfers of one operation of `size_bytes` (already rounded as nccl_round_size does),
// in the order each rank posts those it can post at once. Every `after` index is smaller than
// the transfer's own.
std::vector<NcclTransfer> nccl_schedule(const NcclPlan& plan, std::uint64_t size_bytes);

// nccl-tests' sizes: allgather, reducescatter and alltoall buffers are a whole number of
// elements per rank (size rounded down to a multiple of ranks * type_bytes); the others to a
// multiple of type_bytes.
std::uint64_t nccl_round_size(const NcclPlan& plan, std::uint64_t size_bytes);
// nccl-tests' bus bandwidth factor: 2(n-1)/n allreduce, (n-1)/n allgather, reducescatter and
// alltoall, 1 broadcast.
double nccl_bus_factor(NcclOp op, std::uint32_t ranks);

// ncclGetBtree's binary tree over ranks 0..n-1 (root 0, which has one child): parent and
// children of `rank` (kNcclNoRank: none); tree 1 of the double tree as described above.
inline constexpr std::uint32_t kNcclNoRank = ~std::uint32_t{0};
struct NcclTreeNode {
  std::uint32_t parent = kNcclNoRank;
  std::array<std::uint32_t, 2> children{kNcclNoRank, kNcclNoRank};
};
NcclTreeNode nccl_btree(std::uint32_t ranks, std::uint32_t rank);
NcclTreeNode nccl_double_tree(std::uint32_t ranks, std::uint32_t rank, unsigned tree);

// "3->0 ch0 12B after 1,2 reduce": one line per transfer, for tests and traces.
std::string nccl_transfer_text(const NcclTransfer& t);

}  // namespace ibfsim
