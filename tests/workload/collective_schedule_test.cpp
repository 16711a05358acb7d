// The collectives' schedules, checked by playing them out on sets of contributions: after the
// reduce-scatter of a ring allreduce each host holds one fully reduced chunk, after the allgather
// every host holds all of them; an all-to-all in rounds delivers each block exactly once.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "sim/workload/collective_schedule.h"

using namespace ibfsim;

TEST_CASE("ring allreduce: every host ends with every chunk reduced over every host", "[workload][collective]") {
  for (std::size_t n : {2u, 3u, 4u, 7u}) {
    // have[i][c]: the hosts whose contribution to chunk c host i holds.
    std::vector<std::vector<std::set<std::size_t>>> have(n, std::vector<std::set<std::size_t>>(n));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < n; ++c) have[i][c] = {i};
    REQUIRE(ring_allreduce_steps(n) == 2 * (n - 1));
    for (std::size_t s = 0; s < ring_allreduce_steps(n); ++s) {
      auto next = have;
      for (std::size_t i = 0; i < n; ++i) {
        const CollectiveSend m = ring_allreduce_send(i, s, n, 1000);
        REQUIRE(m.dest == (i + 1) % n);
        REQUIRE(ring_allreduce_source(m.dest, n) == i);
        // Reduce-scatter adds; allgather overwrites with the reduced chunk (a superset).
        for (std::size_t h : have[i][m.chunk]) next[m.dest][m.chunk].insert(h);
      }
      have = next;
      if (s == n - 2) {
        // After reduce-scatter, host i holds chunk i+1 complete.
        for (std::size_t i = 0; i < n; ++i) CHECK(have[i][(i + 1) % n].size() == n);
      }
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < n; ++c) CHECK(have[i][c].size() == n);
  }
}

TEST_CASE("ring allreduce: chunk sizes split the buffer, each host sends 2(n-1)/n of it", "[workload][collective]") {
  // 1000 bytes on 3 hosts: chunks 334, 333, 333.
  CHECK(chunk_bytes(1000, 3, 0) == 334);
  CHECK(chunk_bytes(1000, 3, 1) == 333);
  CHECK(chunk_bytes(1000, 3, 2) == 333);
  // 4 hosts, 4096 bytes: 6 steps of 1024 bytes = 6144 = 2 * 3/4 * 4096.
  std::uint64_t sent = 0;
  for (std::size_t s = 0; s < 6; ++s) sent += ring_allreduce_send(1, s, 4, 4096).bytes;
  CHECK(sent == 6144);
}

TEST_CASE("all-to-all rounds deliver every block exactly once", "[workload][collective]") {
  for (std::size_t n : {2u, 5u, 8u}) {
    std::set<std::pair<std::size_t, std::size_t>> got;  // (from, to)
    for (std::size_t s = 0; s < all_to_all_rounds(n); ++s)
      for (std::size_t i = 0; i < n; ++i) {
        const CollectiveSend m = all_to_all_round_send(i, s, n, 64);
        CHECK(m.dest != i);
        CHECK(all_to_all_round_source(m.dest, s, n) == i);
        CHECK(got.insert({i, m.dest}).second);
      }
    CHECK(got.size() == n * (n - 1));
  }
}
