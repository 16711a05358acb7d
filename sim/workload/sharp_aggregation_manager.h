// SHARP's Aggregation Manager (as sharp_am, which runs beside the subnet manager): per job (an
// `algorithm: sharp` collective) it computes the aggregation tree over the job's hosts
// (sim/fabric/aggregation_tree.h) and configures every tree switch's aggregation node in band,
// with TreeConfig MADs (sim/transport/sharp/sharp_mad.h) sent from its host's QP1 as GMPs on SL 0.
// Every MAD is answered (the node's management processor, aggregation_node.h); the job is ready
// when every answer is in, and refused when a node answered kSharpStatusNoTree (it holds
// `max_trees` trees). The job learns the outcome at the last answer, on the AM host's calendar.
//
// It runs on the subnet manager's HCA (subnet_manager.host) on the SM's port; with the SM on a
// switch, or `subnet_manager: static`, on the first HCA with a cabled port (its first cabled
// port). How a job asks (sharpd, the job's processes talking to the AM) is not modelled: the
// request reaches the AM at once; only the switches' set-up is on the wire. A MAD with no answer
// after the job's `mad_timeout` is sent again (the same TransactionID), at most `mad_retries`
// times; then the job fails, naming the switch. Trees are not released when a job ends.
#pragma once
#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "sim/fabric/aggregation_tree.h"
#include "sim/fabric/fabric.h"
#include "sim/subnet_manager/sma/sma_shell.h"
#include "sim/transport/sharp/aggregation_node.h"

namespace ibfsim {

struct Scenario;

// Where the AM runs: the HCA node and its port.
struct SharpManagerPlace {
  std::size_t host = 0;
  PortNum port = 1;
};
// Throws InputError when no HCA has a cabled port.
SharpManagerPlace sharp_manager_place(const Scenario& sc);

struct SharpJobRequest {
  std::string name;                            // the collective's, in messages
  std::vector<std::size_t> hosts;              // topology node indices, job order
  std::vector<AggregationEndpoint> endpoints;  // each host's UD QP (LID, QPN), job order
  SharpOp op = SharpOp::kSum;
  SharpType type = SharpType::kFloat32;
  std::uint8_t sl = 0;                         // the job's data SL (what the nodes send on)
  AggregationNodeConfig config;                // the switches' aggregation nodes
  Time mad_timeout = 1 * kMs;                  // the AM's wait for each answer
  unsigned mad_retries = 3;                    // resends of a MAD before the job fails
};

struct SharpJobOutcome {
  bool ready = false;
  std::uint8_t tree_id = 0;
  AggregationTree tree;
  Time requested = 0, answered = 0;  // set-up: answered - requested
  std::uint64_t mads = 0;            // TreeConfig MADs sent for the job
  std::string refused_by;            // the first tree switch (in tree order) that refused, if any
  std::string unanswered_by;         // the first tree switch (in tree order) that never answered, if any
};

struct SharpManagerStats {
  std::uint64_t jobs = 0, jobs_refused = 0, mads_sent = 0, mads_answered = 0;
  std::uint64_t mads_resent = 0;      // sent again after mad_timeout (also counted in mads_sent)
  std::uint64_t mads_unanswered = 0;  // given up on after mad_retries resends
  std::uint64_t jobs_unanswered = 0;  // jobs that failed at set-up for want of an answer
  std::uint64_t jobs_failed = 0;  // jobs whose ranks gave up on a lost operation (sharp.timeout)
  Time setup_time = 0;  // summed over the jobs answered
};

class SharpAggregationManager : public GsiClient {
 public:
  static const char* name() { return "sharp aggregation manager"; }  // in event traces
  // Attaches itself to the host's SMA as the client of class 0x0A.
  SharpAggregationManager(Fabric& fabric, SharpManagerPlace place);
  std::size_t host() const { return place_.host; }
  const SharpManagerStats& stats() const { return stats_; }
  // A job asks for a tree, now (on the host's calendar or during elaboration's successors); `done`
  // is called when the last answer is in.
  void request(const SharpJobRequest& job, std::function<void(const SharpJobOutcome&)> done);
  void on_gsi_answer(const ReceivedGmp& gmp, PortNum port) override;
  // Event (event.h): the answer to `tid`, sent for the `tries`th time, is late.
  void mad_timed_out(std::uint64_t tid, unsigned tries);
  // A job's ranks report that it failed (an operation timed out); counted.
  void job_failed() { ++stats_.jobs_failed; }
  // Across MPI ranks the AM runs on its host's rank only (with the jobs' hosts, one partition); the
  // others' copies never ran and take in its figures from there (run_rank_tallies.cpp).
  void take_in_stats(const SharpManagerStats& s) { stats_ = s; }

 private:
  struct Job {
    SharpJobOutcome outcome;
    std::vector<bool> refused;     // per tree node
    std::vector<bool> unanswered;  // per tree node
    std::uint64_t waiting = 0;     // MADs neither answered nor given up on
    Time mad_timeout = 0;
    unsigned mad_retries = 0;
    std::function<void(const SharpJobOutcome&)> done;
  };
  struct PendingMad {
    std::size_t job = 0, tree_node = 0;
    Mad mad{};
    Lid dlid = 0;
    unsigned tries = 0;
  };
  void send(std::uint64_t tid);
  void settle(std::size_t job);  // one of its MADs answered or given up on
  void finish(Job& job);
  Fabric& fabric_;
  SharpManagerPlace place_;
  std::deque<Job> jobs_;  // stable: a job's done() may ask for the next
  std::map<std::uint64_t, PendingMad> tid_;  // MADs waiting for their answer, by TransactionID
  std::uint64_t next_tid_ = 0x5A00000000000001ull;
  SharpManagerStats stats_;
};

}  // namespace ibfsim
