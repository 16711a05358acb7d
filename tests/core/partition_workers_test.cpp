// The threads that run a window's partitions (partition_workers.h), and the per-partition slots
// of the packet pool and the packet ledger they write (partition_slot.h).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/partition_slot.h"
#include "sim/core/partition_workers.h"

using namespace ibfsim;

TEST_CASE("partition workers run every job exactly once per round, on several threads", "[core][threads]") {
  PartitionWorkers w(3);
  CHECK(w.threads() == 3);
  constexpr std::size_t kJobs = 7;
  std::vector<std::atomic<int>> runs(kJobs);
  std::mutex m;
  std::set<std::thread::id> seen;
  for (int round = 0; round < 2000; ++round) {
    w.run(kJobs, [&](std::size_t k) {
      runs[k].fetch_add(1);
      // Long enough now and then that the other threads take jobs too.
      if (round % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard<std::mutex> lock(m);
      seen.insert(std::this_thread::get_id());
    });
    // Every job of the round has returned when run() does.
    for (std::size_t k = 0; k < kJobs; ++k) REQUIRE(runs[k].load() == round + 1);
  }
  CHECK(seen.size() >= 2);
  CHECK(seen.count(std::this_thread::get_id()) == 1);  // the caller takes part
}

TEST_CASE("partition workers sleep between rounds and wake for the next", "[core][threads]") {
  PartitionWorkers w(2);
  std::atomic<int> n{0};
  w.run(2, [&](std::size_t) { n.fetch_add(1); });
  // Far past the spin: both workers are blocked now, and the next round still runs everything.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  w.run(4, [&](std::size_t) { n.fetch_add(1); });
  CHECK(n.load() == 6);
}

TEST_CASE("a job's exception reaches the caller once the round is over: the lowest job's", "[core][threads]") {
  PartitionWorkers w(2);
  std::atomic<int> done{0};
  try {
    w.run(5, [&](std::size_t k) {
      done.fetch_add(1);
      if (k == 3) throw std::runtime_error("job 3");
      if (k == 1) throw std::runtime_error("job 1");
    });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "job 1");
  }
  CHECK(done.load() == 5);
  // The pool still works.
  w.run(3, [&](std::size_t) { done.fetch_add(1); });
  CHECK(done.load() == 8);
}

TEST_CASE("one thread runs the jobs in order on the caller's thread", "[core][threads]") {
  PartitionWorkers w(1);
  std::vector<std::size_t> order;
  w.run(4, [&](std::size_t k) { order.push_back(k); });
  CHECK(order == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("the packet ledger counts per partition and reads their sums", "[core][ledger][threads]") {
  PacketLedger l;
  l.set_partitions(2);
  PartitionWorkers w(2);
  // Partition k counts 1000 * (k + 1) packets created, injected and delivered, on its own thread.
  w.run(2, [&](std::size_t k) {
    partition_slot = static_cast<unsigned>(k) + 1;
    for (std::size_t i = 0; i < 1000 * (k + 1); ++i) {
      l.created();
      l.injected();
      l.delivered();
    }
    l.dropped(DropReason::kLinkDown);
    l.management_created();
    partition_slot = 0;
  });
  l.created();  // outside any partition: slot 0
  l.injected();
  CHECK(l.created_count() == 3001);
  CHECK(l.delivered_count() == 3000);
  CHECK(l.dropped_count(DropReason::kLinkDown) == 2);
  CHECK(l.dropped_total() == 2);
  CHECK(l.management_created_count() == 2);
  CHECK(l.management_alive() == 2);
}

TEST_CASE("the packet pool frees a packet into the partition that releases it and balances at barriers",
          "[core][threads]") {
  PacketPool pool;
  pool.set_partitions(2);
  // Partition 0 makes 1000 packets, partition 1 frees them all.
  std::vector<Packet*> made;
  partition_slot = 1;
  for (int i = 0; i < 1000; ++i) made.push_back(pool.acquire());
  partition_slot = 2;
  for (Packet* p : made) pool.release(p);
  partition_slot = 0;
  CHECK(pool.live() == 0);
  // Balancing gives partition 0 packets back: its next 256 acquisitions make no new packet.
  pool.balance();
  partition_slot = 1;
  std::set<Packet*> again;
  for (int i = 0; i < 256; ++i) again.insert(pool.acquire());
  partition_slot = 0;
  std::size_t reused = 0;
  for (Packet* p : made) reused += again.count(p);
  CHECK(reused == 256);
  CHECK(pool.live() == 256);
}
