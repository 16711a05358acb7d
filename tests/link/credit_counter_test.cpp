#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/receive_buffer.h"

using namespace ibfsim;

TEST_CASE("a packet needs ceil(bytes / 64) credits", "[link][credits]") {
  CHECK(credits_for_bytes(24) == 1);
  CHECK(credits_for_bytes(64) == 1);
  CHECK(credits_for_bytes(65) == 2);
  CHECK(credits_for_bytes(2082) == 33);
  CHECK(credits_for_bytes(4130) == 65);
}

TEST_CASE("the transmitter obeys (FCCL - (FCTBS + CR)) mod 4096 <= 2048 across the wrap", "[link][credits]") {
  CreditCounter c;
  CHECK_FALSE(c.can_send(1));  // nothing before the first flow-control packet
  c.set_limit(40);
  CHECK(c.available() == 40);
  CHECK(c.can_send(40));
  CHECK_FALSE(c.can_send(41));
  c.consume(33);
  CHECK(c.fctbs() == 33);
  CHECK_FALSE(c.can_send(8));
  CHECK(c.can_send(7));
  // Run the counters up to the 12-bit wrap: FCTBS 4090, limit wraps to 20 (= 4116 mod 4096).
  CreditCounter w;
  w.set_limit(4000);
  CHECK_FALSE(w.can_send(1));  // a limit more than 2048 ahead reads as behind
  for (int i = 0; i < 409; ++i) {
    w.set_limit((w.fctbs() + 10) & 0xFFF);  // the peer grants 10 blocks at a time
    w.consume(10);
  }
  CHECK(w.fctbs() == 4090);
  w.set_limit((4090 + 26) & 0xFFF);
  CHECK(w.fccl() == 20);
  CHECK(w.available() == 26);
  CHECK(w.can_send(26));
  CHECK_FALSE(w.can_send(27));
  w.consume(26);
  CHECK(w.fctbs() == 20);
  CHECK_THROWS_AS(w.consume(1), SimError);  // sending without credit is a broken invariant
}

TEST_CASE("the receiver advertises ABR + free blocks, free capped at 2048, and never overflows", "[link][credits]") {
  ReceiveBuffer b(3000);
  CHECK(b.fccl() == 2048);  // 3000 free, capped
  b.receive(1000);
  CHECK(b.abr() == 1000);
  CHECK(b.fccl() == (1000 + 2000) % 4096);
  b.receive(2000);
  CHECK(b.occupied() == 3000);
  CHECK(b.fccl() == 3000);
  CHECK_THROWS_AS(b.receive(1), SimError);  // credits would have gone negative
  b.release(3000);
  CHECK(b.fccl() == (3000 + 2048) % 4096);
  CHECK(b.max_occupied() == 3000);
  CHECK(b.resync(3000));
  CHECK_FALSE(b.resync(3010));  // a lost packet: ABR jumps to FCTBS
  CHECK(b.abr() == 3010);
  CHECK_THROWS_AS(b.release(1), SimError);
}
