// Ranks: one simulation across several processes started by Open MPI's `mpirun -np R`
// (docs/architecture.md, "Ranks"). Every rank builds the whole fabric and splits it into the same
// partitions; rank r runs the contiguous block of partitions [first, end) that partition_block
// gives it. At each window's barrier the ranks agree on the next window (min_time of their
// earliest events) and swap the events that cross between them, as bytes (rank_event_codec.h).
//
// This is the only place that talks to MPI. A build without it (IBFSIM_MPI off, or no
// libopenmpi-dev) has one rank; started by mpirun with more than one, init() says so and the
// command stops (exit 2). Every collective below must be called by every rank, in the same order.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

namespace ranks {

// Whether this build can run across ranks.
bool supported();
// Joins the ranks mpirun started (MPI_Init), if any; call first in main. Throws InputError when
// started as one of several ranks by a build without MPI.
void init(int* argc, char*** argv);
// Leaves them (MPI_Finalize); harmless without init.
void finalize();
// This process's rank and the number of ranks (0 and 1 outside mpirun).
int rank();
int size();
inline bool several() { return size() > 1; }

// The partitions rank `r` of `ranks` runs: a contiguous block [first, end), the first
// parts % ranks ranks one partition more. `parts` >= `ranks`.
struct Block {
  unsigned first = 0, end = 0;
  bool holds(unsigned part) const { return part >= first && part < end; }
};
Block partition_block(unsigned r, unsigned parts, unsigned ranks);
// The rank that runs partition `part`.
unsigned rank_of_partition(unsigned part, unsigned parts, unsigned ranks);

// --- collectives (every rank, same order; with one rank they return their argument) ---
Time min_time(Time local);
Time max_time(Time local);
bool any(bool local);
// Element-wise sums, in place.
void sum(std::vector<std::uint64_t>& values);
// out[d]: the bytes for rank d (out[rank()] is ignored). Returns in[s]: the bytes rank s sent to
// this one (empty for itself).
std::vector<std::vector<std::uint8_t>> exchange(const std::vector<std::vector<std::uint8_t>>& out);
// Rank 0 receives every rank's bytes, in rank order (its own first); the others an empty vector.
std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine);
// Every rank receives rank 0's bytes.
void broadcast(std::vector<std::uint8_t>& bytes);
// Every rank receives every rank's bytes, in rank order (a gather, then a broadcast).
std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine);

}  // namespace ranks

}  // namespace ibfsim
