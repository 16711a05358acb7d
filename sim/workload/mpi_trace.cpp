#include "sim/workload/mpi_trace.h"

namespace ibfsim {

const char* mpi_collective_name(MpiCollectiveOp op) {
  switch (op) {
    case MpiCollectiveOp::kBarrier: return "barrier";
    case MpiCollectiveOp::kBcast: return "bcast";
    case MpiCollectiveOp::kReduce: return "reduce";
    case MpiCollectiveOp::kAllreduce: return "allreduce";
    case MpiCollectiveOp::kAllgather: return "allgather";
    case MpiCollectiveOp::kAlltoall: return "alltoall";
  }
  return "?";
}

Time trace_ticks_to_fs(std::uint64_t ticks, std::uint64_t timer_resolution) {
  // 128-bit: a trace of hours at a GHz clock times 10^15 overflows 64 bits.
  const unsigned __int128 fs = static_cast<unsigned __int128>(ticks) * static_cast<unsigned __int128>(kSec);
  return static_cast<Time>((fs + timer_resolution / 2) / timer_resolution);
}

void set_compute_gaps(MpiTrace& trace) {
  for (MpiTraceRank& rank : trace.ranks) {
    Time previous_end = 0;
    for (MpiCall& call : rank.calls) {
      call.gap = call.begin > previous_end ? call.begin - previous_end : 0;
      if (call.end > previous_end) previous_end = call.end;
    }
  }
}

}  // namespace ibfsim
