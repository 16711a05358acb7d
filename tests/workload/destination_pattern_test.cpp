// The synthetic traffic patterns as exact maps over host indices, each checked against its
// definition written out by hand for small host counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "sim/workload/destination_pattern.h"

using namespace ibfsim;

namespace {
std::vector<std::size_t> map_all(std::size_t n, std::size_t (*f)(std::size_t, std::size_t)) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(f(i, n));
  return out;
}
}  // namespace

TEST_CASE("transpose of 16 hosts swaps row and column of the 4 x 4 matrix", "[workload][pattern]") {
  // Host r*4 + c -> c*4 + r; for 16 = 2^4 hosts this swaps the two 2-bit halves of the address.
  const std::vector<std::size_t> want = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
  CHECK(map_all(16, transpose_destination) == want);
  for (std::size_t s = 0; s < 16; ++s) CHECK(transpose_destination(s, 16) == (((s & 3) << 2) | (s >> 2)));
  // 9 hosts (3 x 3): 1 = (0,1) -> (1,0) = 3; 5 = (1,2) -> (2,1) = 7; the diagonal 0, 4, 8 stays.
  const std::vector<std::size_t> want9 = {0, 3, 6, 1, 4, 7, 2, 5, 8};
  CHECK(map_all(9, transpose_destination) == want9);
}

TEST_CASE("bit complement of 8 hosts inverts every address bit", "[workload][pattern]") {
  // 000 -> 111, 001 -> 110, ..., 111 -> 000.
  const std::vector<std::size_t> want = {7, 6, 5, 4, 3, 2, 1, 0};
  CHECK(map_all(8, bit_complement_destination) == want);
  CHECK(bit_complement_destination(5, 32) == 26);  // 00101 -> 11010
}

TEST_CASE("tornado moves every torus coordinate by ceil(d/2) - 1", "[workload][pattern]") {
  // A ring of 8 hosts: + 3 (mod 8).
  for (std::size_t s = 0; s < 8; ++s) CHECK(tornado_destination(s, {8}, 1) == (s + 3) % 8);
  // A ring of 5: ceil(5/2) - 1 = 2.
  for (std::size_t s = 0; s < 5; ++s) CHECK(tornado_destination(s, {5}, 1) == (s + 2) % 5);
  // A 4 x 4 torus, 1 host per switch, last coordinate fastest: (x, y) -> (x+1, y+1).
  CHECK(tornado_destination(0, {4, 4}, 1) == 5);   // (0,0) -> (1,1)
  CHECK(tornado_destination(3, {4, 4}, 1) == 4);   // (0,3) -> (1,0)
  CHECK(tornado_destination(15, {4, 4}, 1) == 0);  // (3,3) -> (0,0)
  CHECK(tornado_destination(6, {4, 4}, 1) == 11);  // (1,2) -> (2,3)
  // 4 x 4 x 4 with 2 hosts per switch: host 2*s + j -> 2*t + j, t = (x+1, y+1, z+1).
  // Host 1 is switch (0,0,0) slot 1 -> switch (1,1,1) = 16 + 4 + 1 = 21, slot 1: host 43.
  CHECK(tornado_destination(1, {4, 4, 4}, 2) == 43);
  // Host 126 is switch 63 = (3,3,3) slot 0 -> (0,0,0) slot 0.
  CHECK(tornado_destination(126, {4, 4, 4}, 2) == 0);
  // A dimension of 2 does not move: ceil(2/2) - 1 = 0.
  CHECK(tornado_destination(1, {2, 4}, 1) == 2);  // (0,1) -> (0,2)
}

TEST_CASE("shift(k) and all-to-all visit the hosts in order", "[workload][pattern]") {
  CHECK(shift_destination(0, 8, 1) == 1);
  CHECK(shift_destination(7, 8, 1) == 0);
  CHECK(shift_destination(2, 8, -3) == 7);
  CHECK(shift_destination(5, 8, 11) == 0);  // 11 mod 8 = 3
  // all_to_all: message m of host s goes to s + 1 + (m mod (n-1)): 4 hosts, host 2: 3, 0, 1, 3, ...
  const std::vector<std::size_t> want = {3, 0, 1, 3, 0};
  for (std::uint64_t m = 0; m < want.size(); ++m) CHECK(all_to_all_destination(2, 4, m) == want[m]);
  // In each round (same m) all hosts aim at distinct hosts.
  for (std::uint64_t m = 0; m < 3; ++m) {
    std::set<std::size_t> d;
    for (std::size_t s = 0; s < 4; ++s) d.insert(all_to_all_destination(s, 4, m));
    CHECK(d.size() == 4);
  }
}

TEST_CASE("random permutation is a derangement and depends only on the seed", "[workload][pattern]") {
  for (std::size_t n : {2u, 3u, 8u, 100u}) {
    RngStream a(7, 1), b(7, 1), c(8, 1);
    const auto p = random_derangement(n, a);
    CHECK(p == random_derangement(n, b));
    std::vector<std::size_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(sorted[i] == i);  // a permutation
      CHECK(p[i] != i);       // no host sends to itself
    }
    if (n == 2) CHECK(p == std::vector<std::size_t>{1, 0});  // the only derangement of two
    if (n == 100) CHECK(p != random_derangement(n, c));
  }
}

TEST_CASE("pattern objects: fixed points stay silent, uniform never picks the source", "[workload][pattern]") {
  DestinationPatternSpec t;
  t.kind = PatternKind::kTranspose;
  DestinationPattern tr(t, 16, RngStream(1, 0));
  CHECK_FALSE(tr.sends(0));   // (0,0)
  CHECK_FALSE(tr.sends(5));   // (1,1)
  CHECK(tr.sends(1));
  CHECK(tr.reachable(1) == std::vector<std::size_t>{4});
  CHECK(tr.reachable(5).empty());

  DestinationPatternSpec u;
  DestinationPattern uni(u, 5, RngStream(1, 0));
  RngStream r(3, 3);
  std::vector<int> hits(5, 0);
  for (int k = 0; k < 4000; ++k) ++hits[uni.next(2, k, r)];
  CHECK(hits[2] == 0);
  // 4000 draws over 4 hosts: each within 6 standard deviations (sqrt(4000 * 1/4 * 3/4) = 27) of 1000.
  for (std::size_t d : {0u, 1u, 3u, 4u}) CHECK(std::abs(hits[d] - 1000) < 165);
  CHECK(uni.reachable(2) == std::vector<std::size_t>{0, 1, 3, 4});
}

TEST_CASE("hotspot sends its fraction to the hot hosts and the rest uniformly", "[workload][pattern]") {
  DestinationPatternSpec h;
  h.kind = PatternKind::kHotspot;
  h.hotspots = {0};
  h.hotspot_fraction = 0.5;
  DestinationPattern p(h, 9, RngStream(1, 0));
  RngStream r(5, 5);
  const int draws = 16000;
  int to_hot = 0;
  for (int k = 0; k < draws; ++k) to_hot += p.next(4, k, r) == 0;
  // P(host 0) = 0.5 + 0.5 * 1/8 = 0.5625: expect 9000, sd sqrt(16000 * 0.5625 * 0.4375) = 63.
  CHECK(std::abs(to_hot - 9000) < 380);
  // The hot host itself never sends to itself: its messages are uniform over the others.
  for (int k = 0; k < 100; ++k) CHECK(p.next(0, k, r) != 0);
}
