#include "sim/workload/collective_schedule.h"

#include "sim/core/error.h"

namespace ibfsim {

std::uint64_t chunk_bytes(std::uint64_t buffer_bytes, std::size_t n, std::size_t chunk) {
  return buffer_bytes / n + (chunk < buffer_bytes % n ? 1 : 0);
}

std::size_t ring_allreduce_steps(std::size_t n) { return 2 * (n - 1); }

CollectiveSend ring_allreduce_send(std::size_t i, std::size_t step, std::size_t n, std::uint64_t buffer_bytes) {
  IBFSIM_CHECK(n >= 2 && i < n && step < ring_allreduce_steps(n), "ring allreduce: step out of range");
  CollectiveSend s;
  s.dest = (i + 1) % n;
  if (step < n - 1) s.chunk = (i + n - step) % n;        // reduce-scatter: chunk i - s
  else s.chunk = (i + 1 + n - (step - (n - 1))) % n;     // allgather: chunk i + 1 - t
  s.bytes = chunk_bytes(buffer_bytes, n, s.chunk);
  return s;
}

std::size_t ring_allreduce_source(std::size_t i, std::size_t n) { return (i + n - 1) % n; }

std::size_t all_to_all_rounds(std::size_t n) { return n - 1; }

CollectiveSend all_to_all_round_send(std::size_t i, std::size_t step, std::size_t n, std::uint64_t block_bytes) {
  IBFSIM_CHECK(n >= 2 && i < n && step < n - 1, "all-to-all: round out of range");
  CollectiveSend s;
  s.dest = (i + step + 1) % n;
  s.chunk = s.dest;
  s.bytes = block_bytes;
  return s;
}

std::size_t all_to_all_round_source(std::size_t i, std::size_t step, std::size_t n) {
  return (i + n - (step + 1) % n) % n;
}

}  // namespace ibfsim
