// Memory keys (memory_region.h): sequential keys as ConnectX hands them out, and random ones that
// a peer cannot guess.
#include <catch2/catch.hpp>

#include <cerrno>
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
  CHECK(t.check_remote(2 << 8 | 0xA5, 1, 0x100, 0x3000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
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
    CHECK(t.check_remote(k << 8 | 0xA5, 1, 0x100, 0x1000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  // Each key reaches its own region and no other; an L_Key is no R_Key.
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x100, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x100, 0x7000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOutOfBounds);
  CHECK(t.check_remote(mrs[5].lkey, 1, 0x100, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  CHECK(t.check_local(ibv_sge{0x6000, 0x10, mrs[5].lkey}, 1, IBV_ACCESS_LOCAL_WRITE) == MrCheck::kOk);
  // Deregistered: its keys find nothing any more.
  CHECK(t.dereg(mrs[5].lkey) == 0);
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x100, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  CHECK(t.dereg(mrs[5].lkey) == EINVAL);
  // The same seed and stream give the same keys (a run is reproducible).
  MrTable again;
  again.use_random_keys(RngStream(1, kMemoryKeyStream));
  CHECK(again.reg(1, 0x1000, 0x100, IBV_ACCESS_LOCAL_WRITE)->lkey == mrs[0].lkey);
}

TEST_CASE("key_byte memory keys: the region's index in the high 24 bits, a key byte from the seed below, the same "
          "on every run with that seed",
          "[transport][keys]") {
  MrTable t;
  t.set_key_mode(MemoryKeyMode::kKeyByte, RngStream(7, kMemoryKeyStream));
  std::set<std::uint8_t> bytes;
  std::vector<ibv_mr> mrs;
  for (std::uint32_t k = 0; k < 64; ++k) {
    const auto mr = t.reg(1, 0x1000 * (k + 1), 0x100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    REQUIRE(mr);
    CHECK(key_index(mr->lkey) == k);
    CHECK(key_index(mr->rkey) == k);
    bytes.insert(key_byte(mr->rkey));
    mrs.push_back(*mr);
  }
  // 64 draws of a byte: many different ones (a fixed byte would give 1).
  CHECK(bytes.size() > 40);
  // The right index with another key byte misses: 255 of 256 guesses of a live index.
  std::uint32_t hits = 0;
  for (std::uint32_t b = 0; b < 256; ++b)
    hits += t.check_remote(make_memory_key(5, static_cast<std::uint8_t>(b)), 1, 0x100, 0x6000, 0x10,
                           IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk;
  CHECK(hits == 1);
  CHECK(t.check_remote(mrs[5].rkey, 1, 0x100, 0x6000, 0x10, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  MrTable again;
  again.set_key_mode(MemoryKeyMode::kKeyByte, RngStream(7, kMemoryKeyStream));
  const auto first = again.reg(1, 0x1000, 0x100, IBV_ACCESS_LOCAL_WRITE);
  CHECK(first->lkey == mrs[0].lkey);
  CHECK(first->rkey == mrs[0].rkey);
}

TEST_CASE("ibv_rereg_mr keeps the region's index and gives it a new key byte: the old keys stop working",
          "[transport][keys]") {
  for (MemoryKeyMode mode : {MemoryKeyMode::kSequential, MemoryKeyMode::kKeyByte, MemoryKeyMode::kRandom}) {
    INFO(memory_key_mode_name(mode));
    MrTable t;
    t.set_key_mode(mode, RngStream(3, kMemoryKeyStream));
    REQUIRE(t.reg(1, 0x1000, 0x100, IBV_ACCESS_LOCAL_WRITE));
    ibv_mr mr = *t.reg(1, 0x2000, 0x100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    const ibv_mr old = mr;
    // Access changes to remote write too: new keys, and the old R_Key finds nothing.
    REQUIRE(t.rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, 0, 0, 0,
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE) == 0);
    CHECK(mr.lkey != old.lkey);
    CHECK(mr.rkey != old.rkey);
    if (mode != MemoryKeyMode::kRandom) {
      CHECK(key_index(mr.lkey) == 1);
      CHECK(key_index(mr.rkey) == 1);
    }
    if (mode == MemoryKeyMode::kSequential) {
      CHECK(mr.lkey == (1u << 8 | 0x5B));  // ibv_inc_rkey of the fixed bytes
      CHECK(mr.rkey == (1u << 8 | 0xA6));
    }
    CHECK(t.check_remote(old.rkey, 1, 0x100, 0x2000, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
    CHECK(t.check_remote(mr.rkey, 1, 0x100, 0x2000, 8, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
    CHECK(t.check_local(ibv_sge{0x2000, 8, old.lkey}, 1, 0) == MrCheck::kBadKey);
    CHECK(t.check_local(ibv_sge{0x2000, 8, mr.lkey}, 1, 0) == MrCheck::kOk);
    // Translation and PD.
    REQUIRE(t.rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD, 2, 0x3000, 0x40, 0) == 0);
    CHECK(t.check_remote(mr.rkey, 2, 0x100, 0x3000, 0x40, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
    CHECK(t.check_remote(mr.rkey, 1, 0x100, 0x3000, 0x40, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kWrongPd);
    CHECK(t.check_remote(mr.rkey, 2, 0x100, 0x2000, 8, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOutOfBounds);
    // Refused with the region unchanged: no flag, an unknown flag, remote write without local
    // write, a stale L_Key.
    const ibv_mr now = mr;
    CHECK(t.rereg(mr, 0, 0, 0, 0, 0) == IBV_REREG_MR_ERR_INPUT);
    CHECK(t.rereg(mr, 8, 0, 0, 0, 0) == IBV_REREG_MR_ERR_INPUT);
    CHECK(t.rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, 0, 0, 0, IBV_ACCESS_REMOTE_WRITE) == IBV_REREG_MR_ERR_INPUT);
    ibv_mr stale = old;
    CHECK(t.rereg(stale, IBV_REREG_MR_CHANGE_ACCESS, 0, 0, 0, 0) == IBV_REREG_MR_ERR_INPUT);
    CHECK(mr.lkey == now.lkey);
    CHECK(mr.rkey == now.rkey);
    CHECK(t.check_remote(mr.rkey, 2, 0x100, 0x3000, 0x40, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  }
}
