// An MPI application's trace as plain data: per rank, its MPI calls in program order with their
// bytes, and the compute time before each (what trace replay needs; mpi_replay_plan.h). Read from
// an OTF2 archive by otf2_trace_reader.h; nothing here depends on OTF2.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

// kIsend and kIrecv post a non-blocking send or receive (MPI_Isend, MPI_Irecv); the kWait that
// names the same request (in MPI_Wait, MPI_Waitall, a successful MPI_Test...) is where the rank
// waits for it to complete.
enum class MpiCallKind : std::uint8_t { kSend, kRecv, kCollective, kIsend, kIrecv, kWait };
// The collectives a replay knows (OTF2's MPI collective operations of the same names).
enum class MpiCollectiveOp : std::uint8_t { kBarrier, kBcast, kReduce, kAllreduce, kAllgather, kAlltoall };
const char* mpi_collective_name(MpiCollectiveOp op);  // "allreduce", ...

inline constexpr std::uint32_t kNoRoot = 0xffffffffu;

struct MpiCall {
  MpiCallKind kind = MpiCallKind::kSend;
  // kSend / kRecv / kIsend / kIrecv / kWait: the other side (a rank of the world, not of the
  // call's communicator), tag, bytes (a kIrecv's from its completion, which is where OTF2 records them).
  std::uint32_t peer = 0, tag = 0;
  std::uint64_t bytes = 0;
  // kIsend / kIrecv / kWait: the request (the trace's id); kWait: the index on this rank of the
  // kIsend or kIrecv it completes, and whether that was a send.
  std::uint64_t request = 0;
  std::uint32_t posted_call = 0;
  bool completes_send = false;
  // kCollective: the operation, its root (kNoRoot when it has none), what this rank sent and
  // received as the trace records it, and the communicator's size.
  MpiCollectiveOp op = MpiCollectiveOp::kBarrier;
  std::uint32_t root = kNoRoot;
  std::uint64_t bytes_sent = 0, bytes_received = 0;
  std::uint32_t comm_size = 0;
  // kCollective: the communicator's members, world ranks in the communicator's order (empty: the
  // whole world). A replay decomposes the call over the ring of its members.
  std::vector<std::uint32_t> comm;
  // When the call began and ended (the MPI region's enter and leave), from the trace's start.
  Time begin = 0, end = 0;
  // Compute before the call: begin minus the previous call's end (the trace's start for the first);
  // 0 when calls overlap (several MPI events in one region, as MPI_Sendrecv records).
  Time gap = 0;
};

struct MpiTraceRank {
  std::string name;  // the location's name in the trace
  std::vector<MpiCall> calls;
};

struct MpiTrace {
  std::string file;                   // for messages
  std::uint64_t timer_resolution = 0; // ticks per second
  std::uint64_t global_offset = 0;    // the clock's value at the trace's start
  Time duration = 0;                  // the trace's length (its clock properties)
  std::vector<MpiTraceRank> ranks;    // by world rank
};

// Clock ticks `ticks` after the trace's start in femtoseconds (rounded to the nearest).
Time trace_ticks_to_fs(std::uint64_t ticks, std::uint64_t timer_resolution);

// Sets every call's gap from begin and end (program order).
void set_compute_gaps(MpiTrace& trace);

}  // namespace ibfsim
