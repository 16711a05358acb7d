#include <catch2/catch.hpp>

#include "sim/core/ring_queue.h"

using namespace ibfsim;

TEST_CASE("a ring queue erases from the middle keeping the order, across its wrap-around", "[core][ring_queue]") {
  RingQueue<int> q;
  for (int i = 0; i < 4; ++i) q.push_back(i);  // fills the first 4-slot buffer
  q.pop_front();
  q.pop_front();
  q.push_back(4);
  q.push_back(5);  // 2 3 4 5, with 4 and 5 in the slots 0 and 1 of the buffer
  REQUIRE(q.size() == 4);
  q.erase(1);  // 3: 4 moves back across the end of the buffer
  REQUIRE(q.size() == 3);
  CHECK(q.at(0) == 2);
  CHECK(q.at(1) == 4);
  CHECK(q.at(2) == 5);
  q.erase(0);
  CHECK(q.front() == 4);
  q.erase(1);
  CHECK(q.size() == 1);
  CHECK(q.front() == 4);
  q.push_back(6);
  CHECK(q.at(1) == 6);
}
