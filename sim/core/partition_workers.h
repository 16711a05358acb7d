// The threads that run a window's partitions (calendar_process.h, docs/architecture.md
// "Partitions"): the simulation's own thread plus `threads - 1` workers, created once per run and
// kept until it ends. run(count, job) calls job(k) once for every k < count, spread over the
// threads (each takes the next k from a shared counter), and returns once every call has returned.
//
// The barrier spins briefly (a window is short: a few dozen events per partition) and then
// blocks on a condition variable, so threads waiting between windows answer within a few hundred
// nanoseconds while busy, and threads idle between runs (a bring-up's pause, the write phase)
// sleep instead of spinning.
//
// Which thread runs which partition is not fixed and must not matter: a job may touch only its
// partition's state (and atomics whose result is order-free).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ibfsim {

class PartitionWorkers {
 public:
  explicit PartitionWorkers(unsigned threads);  // >= 1: 1 runs everything on the caller's thread
  ~PartitionWorkers();
  PartitionWorkers(const PartitionWorkers&) = delete;
  PartitionWorkers& operator=(const PartitionWorkers&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Runs job(0) ... job(count - 1) on the threads; the caller's thread takes part. An exception a
  // job throws is rethrown here once all have returned (the one of the lowest k, so that which
  // failure a run reports does not depend on the threads' timing).
  void run(std::size_t count, const std::function<void(std::size_t)>& job);

 private:
  void worker_loop();
  void take_jobs();  // runs jobs until none is left, then counts this thread done

  std::vector<std::thread> workers_;
  // The round being run: a new generation wakes the workers.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> next_{0};       // the next job to take
  std::atomic<unsigned> busy_{0};          // threads still taking jobs in this round
  std::size_t count_ = 0;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::vector<std::exception_ptr> failures_;  // [k]
  std::atomic<bool> quit_{false};
  // Blocking after the spin: workers wait for a new generation, the caller for busy_ == 0.
  std::mutex mutex_;
  std::condition_variable wake_workers_;
  std::condition_variable round_done_;
  std::atomic<unsigned> sleepers_{0};  // workers blocked (or about to block) on wake_workers_
  std::atomic<bool> caller_sleeps_{false};
};

}  // namespace ibfsim
