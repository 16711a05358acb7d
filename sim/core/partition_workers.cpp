#include "sim/core/partition_workers.h"

#include "sim/core/error.h"

namespace ibfsim {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long a thread waits before it blocks: a few hundred pause instructions (a barrier between
// two windows on an idle machine), then a few dozen yields of its core (on a machine with more
// runnable threads than cores the thread it waits for may need this one's core), then it sleeps.
constexpr int kSpins = 256;
constexpr int kYields = 32;

// Waits until `done()` or the spin and yields are over; returns done().
template <class Done>
bool spin_until(Done done) {
  for (int i = 0; i < kSpins; ++i) {
    if (done()) return true;
    cpu_relax();
  }
  for (int i = 0; i < kYields; ++i) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return done();
}


}  // namespace

PartitionWorkers::PartitionWorkers(unsigned threads) {
  IBFSIM_CHECK(threads >= 1, "at least one thread");
  workers_.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

PartitionWorkers::~PartitionWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_.store(true);
    generation_.fetch_add(1);
  }
  wake_workers_.notify_all();
  for (auto& t : workers_) t.join();
}

void PartitionWorkers::run(std::size_t count, const std::function<void(std::size_t)>& job) {
  if (workers_.empty() || count <= 1) {
    for (std::size_t k = 0; k < count; ++k) job(k);
    return;
  }
  count_ = count;
  job_ = &job;
  failures_.assign(count, nullptr);
  next_.store(0, std::memory_order_relaxed);
  busy_.store(threads(), std::memory_order_relaxed);
  // Sequentially consistent with the workers' sleepers_ count: either a worker about to block sees
  // the new generation, or this sees it counted and wakes it (no lost wake-up).
  generation_.fetch_add(1);
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_workers_.notify_all();
  }
  take_jobs();
  if (!spin_until([this] { return busy_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeps_.store(true);
    round_done_.wait(lock, [this] { return busy_.load() == 0; });
    caller_sleeps_.store(false);
  }
  job_ = nullptr;
  for (auto& f : failures_)
    if (f) std::rethrow_exception(f);
}

void PartitionWorkers::take_jobs() {
  for (;;) {
    const std::size_t k = next_.fetch_add(1, std::memory_order_relaxed);
    if (k >= count_) break;
    try {
      (*job_)(k);
    } catch (...) {
      failures_[k] = std::current_exception();
    }
  }
  // The last thread done wakes the caller if it stopped spinning (same pairing as above).
  if (busy_.fetch_sub(1) == 1 && caller_sleeps_.load()) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    round_done_.notify_one();
  }
}

void PartitionWorkers::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t g = seen;
    const bool woke = spin_until([&] {
      g = generation_.load(std::memory_order_acquire);
      return g != seen;
    });
    if (!woke) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);
      wake_workers_.wait(lock, [&] { return generation_.load() != seen; });
      sleepers_.fetch_sub(1);
      g = generation_.load();
    }
    seen = g;
    if (quit_.load()) return;
    take_jobs();
  }
}

}  // namespace ibfsim
