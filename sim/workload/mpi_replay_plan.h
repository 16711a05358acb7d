// What a replay of an MPI trace (mpi_trace.h) posts and when, as a pure function of the trace.
//
// Every call becomes a step of its rank: the rank computes for the call's gap (exactly the
// trace's), then posts the step's messages at once, and the step is done when every message it
// waits for has completed (a send: acknowledged, RC) and every message it receives has arrived.
// The next step's gap starts then. A blocking send waits for its own message; a non-blocking one
// (MPI_Isend) waits for nothing, and the MPI_Wait (or Waitall, Test) that completes its request
// waits for it; an MPI_Irecv posts nothing (every receive is posted in advance, as an MPI library's
// eager protocol would, so a blocking send completes without waiting for the receiver's call) and
// its completion waits for the message to arrive.
//
// Point-to-point calls pair up by (sender, receiver) in the order they are posted (MPI's
// non-overtaking rule), blocking and non-blocking alike; each pair's tag and bytes must agree.
// Collectives are decomposed into point-to-point messages over a ring of their communicator's
// ranks (in its order; the world's: rank order), as MPI libraries do for large messages:
//  * allreduce: reduce-scatter then allgather, 2(n-1) steps, each sending a 1/n chunk of the
//    call's bytes_sent to the next rank and receiving one from the previous;
//  * barrier: the same with no data (0-byte messages);
//  * allgather: n-1 steps, each forwarding one rank's bytes_sent;
//  * alltoall: n-1 steps, step k sending bytes_sent/n to rank r+k and receiving from r-k;
//  * bcast and reduce: a chain along the ring from the root (bcast) or to it (reduce), bytes_sent
//    (bcast: the root's) per hop; ranks not on a hop's end do nothing in that step.
// Every member of a communicator must make the same collectives on it in the same order (the
// k-th collective of each member is one operation).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/workload/mpi_trace.h"

namespace ibfsim {

struct ReplayMessage {
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t tag = 0;
  bool collective = false;       // part of a decomposed collective
};

struct ReplayStep {
  Time gap = 0;                      // compute before posting
  std::uint32_t call = 0;            // the trace call it comes from (its index on the rank)
  std::vector<std::uint32_t> sends;  // message ids (ReplayPlan::messages) posted at once
  std::vector<std::uint32_t> acked;  // sent message ids (posted now or before) that must complete
  std::vector<std::uint32_t> recvs;  // message ids that must arrive
};

struct ReplayPlan {
  std::vector<ReplayMessage> messages;
  std::vector<std::vector<ReplayStep>> steps;  // by rank, in order
  // Per ordered pair src * ranks + dst: its messages (how many receives the receiver posts for it).
  std::vector<std::vector<std::uint32_t>> by_pair;
  std::size_t ranks() const { return steps.size(); }
};

// Throws InputError naming the trace's file when calls do not pair up or collectives disagree.
ReplayPlan plan_replay(const MpiTrace& trace);

// The replay's timeline with every message taking `latency` from its post to its arrival and to
// its send completion (an idealized network): per rank, when each step posts and completes. The
// simulated replay's gaps equal these; its network times differ. Throws InputError on a deadlock
// (a step waiting for a message whose sender waits too), naming the ranks and their calls.
struct ReplayTimeline {
  std::vector<std::vector<Time>> posted, completed;  // by rank, by step
  Time end = 0;                                      // the last step's completion
};
ReplayTimeline replay_timeline(const ReplayPlan& plan, Time latency, const std::string& file);

}  // namespace ibfsim
