// The communication schedules of two collectives, as pure functions of (host, step, hosts):
//
//  * ring allreduce of a buffer of B bytes on n hosts (Patarasuk & Yuan; NCCL's ring): the buffer
//    is cut into n chunks; 2(n-1) steps, in each of which every host sends one chunk to its right
//    neighbour (i+1 mod n): n-1 reduce-scatter steps (at step s host i sends chunk i-s, adding what
//    it received to its own), then n-1 allgather steps (at step n-1+t host i sends chunk i+1-t,
//    the fully reduced chunks going round). Host i may send step s+1 once it has received step s
//    from its left neighbour i-1.
//  * all-to-all in rounds (pairwise exchange by shifts): n-1 rounds; in round r (1..n-1) host i
//    sends its block for host i+r and receives the block of host i-r; it starts round r+1 once
//    that block is in.
// Chunk c of a buffer of B bytes holds floor(B/n) bytes, plus one for c < B mod n.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

struct CollectiveSend {
  std::size_t dest = 0;     // host index
  std::size_t chunk = 0;    // ring allreduce: chunk index; all-to-all: the destination's block
  std::uint64_t bytes = 0;
};

std::uint64_t chunk_bytes(std::uint64_t buffer_bytes, std::size_t n, std::size_t chunk);

// Steps of a ring allreduce on n >= 2 hosts: 2(n-1).
std::size_t ring_allreduce_steps(std::size_t n);
// What host i sends at step s (0-based) of a ring allreduce of `buffer_bytes`.
CollectiveSend ring_allreduce_send(std::size_t i, std::size_t step, std::size_t n, std::uint64_t buffer_bytes);
// The host whose step-s message host i waits for before step s+1: its left neighbour.
std::size_t ring_allreduce_source(std::size_t i, std::size_t n);

// Rounds of an all-to-all on n >= 2 hosts: n-1 (steps 0..n-2 are rounds 1..n-1).
std::size_t all_to_all_rounds(std::size_t n);
// What host i sends at step s (round s+1) when every host sends `block_bytes` to every other.
CollectiveSend all_to_all_round_send(std::size_t i, std::size_t step, std::size_t n, std::uint64_t block_bytes);
// The host whose step-s block host i receives.
std::size_t all_to_all_round_source(std::size_t i, std::size_t step, std::size_t n);

}  // namespace ibfsim
