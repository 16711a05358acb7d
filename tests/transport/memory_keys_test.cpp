// Memory keys (memory_region.h): sequential keys as ConnectX hands them out, and random ones that
// a peer cannot guess.
#include <catch2/catch.hpp>

#include <set>

#include "sim/transport/memory_region.h"

using namespace ibfsim;
using namespace ibfsim::verbs;

TEST_CASE("sequential memory keys: index << 8 | a fixed byte, the k-th region's R_Key is k << 8 | 0xA5") {
  MrTable t;
  for (std::uint32_t k = 0; k < 4; ++k) {
    const auto mr = t.reg(1, 0x1000 * (k + 1), 0x100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    REQUIRE(mr);
    CHECK(mr->rkey == (k << 8 | 0xA5));
    CHECK(mr->lkey == (k << 8 | 0x5A));
  }
  CHECK(t.check_remote(2 << 8 | 0xA5, 1, 0x3000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
}

TEST_CASE("random memory keys: 32 random bits, distinct, never 0, found by their exact value only, and the sequential "
          "guesses all miss") {
  MrTable t;
  t.use_random_keys(RngStream(1, kMemoryKeyStream));
  std::set<std::uint32_t> keys;
  std::vector<ibv_mr> mrs;
  for (std::uint32_t k = 0; k < 64; ++k) {
    const auto mr = t.reg(1, 0x1000 * (k + 1), 0x100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    REQUIRE(mr);
    mrs.push_back(*mr);
    CHECK(mr->rkey != 0);
    CHECK(mr->lkey != 0);
    keys.insert(mr->rkey);
    keys.insert(mr->lkey);
  }
  CHECK(keys.size() == 128);
  for (std::uint32_t k = 0; k < 4096; ++k)
    CHECK(t.check_remote(k << 8 | 0xA5, 1, 0x1000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  // Each key reaches its own region and no other; an L_Key is no R_Key.
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x7000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOutOfBounds);
  CHECK(t.check_remote(mrs[5].lkey, 1, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  CHECK(t.check_local(ibv_sge{0x6000, 0x10, mrs[5].lkey}, 1, IBV_ACCESS_LOCAL_WRITE) == MrCheck::kOk);
  // Deregistered: its keys find nothing any more.
  CHECK(t.dereg(mrs[5].lkey));
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  CHECK_FALSE(t.dereg(mrs[5].lkey));
  // The same seed and stream give the same keys (a run is reproducible).
  MrTable again;
  again.use_random_keys(RngStream(1, kMemoryKeyStream));
  CHECK(again.reg(1, 0x1000, 0x100, IBV_ACCESS_LOCAL_WRITE)->lkey == mrs[0].lkey);
}
