// Runs one `collectives:` entry (nccl_spec.h) as NCCL's IB transport would, through the HCAs'
// verbs API: per channel, one connected RC QP pair between each two ranks the schedule joins
// (nccl_schedule.h), created and connected at time 0; every transfer an RDMA WRITE with
// immediate (the immediate names the transfer, as NCCL's completes the receiver's step) into the
// receiver's registered buffer.
//
// Each connection (channel, sender, receiver) sends its transfers in schedule order, as the GPU
// kernel's program order does: the next one goes as soon as the transfers it waits for have
// arrived at the sender (their receive completion), after its reduction (reduce_bandwidth), and
// while fewer than kNcclSteps of the connection's WRITEs are unacknowledged (NCCL's 8 buffer
// slots per connection). Nothing is computed on data: payload bytes are not carried.
//
// Timing as nccl-tests measures: per size, every rank runs warmup_iterations, then all ranks meet
// (a barrier, once every WRITE is acknowledged) and run `iterations` back to back; a rank's
// iteration ends when its last transfer has arrived and its last WRITE is posted; its time is
// (end of its last iteration - barrier) / iterations, and the size's time the mean over ranks.
// The next size starts at the next barrier.
//
// Servers (Topology::servers, rail-optimised fabrics): a transfer between two ranks of one server
// goes over the server's intra-node fabric (intra_node_spec.h) instead: its sender's link out
// holds it bytes / bandwidth from when the link is free, its head reaches the receiver `latency`
// after it started, and it is in once the receiver's link in has taken it (events on the two
// hosts' calendars: leg_head_arrives, leg_arrives); it counts as acknowledged when it is in. With
// servers, each channel runs its own ring (nccl_rail_rings.h), and a transfer to another server
// whose receiver's rail differs from the sender's first crosses the intra-node fabric to the
// sender's server's rank on the receiver's rail, whose HCA then sends the RC WRITE (as NCCL's PXN):
// one RC QP pair per such direction.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/fabric/host_fabric.h"
#include "sim/transport/hca.h"
#include "sim/workload/nccl_rail_rings.h"
#include "sim/workload/nccl_spec.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

inline constexpr std::uint32_t kNcclSteps = 8;  // WRITEs a connection may have unacknowledged

// One line of nccl-tests' table (out-of-place).
struct NcclResultRow {
  std::uint64_t size_bytes = 0, count = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;  // GB/s = 1e9 bytes/s, as nccl-tests
  // Result elements that were wrong, over every iteration and rank, when values were carried and
  // checked (algorithm: sharp with outputs.data_check); unset: N/A.
  std::optional<std::uint64_t> wrong;
};

// A row's timing columns as nccl-tests computes them: time = the ranks' mean elapsed time from the
// timed start, per iteration; algbw = size / time; busbw = algbw x the op's bus factor.
void set_nccl_timing(NcclResultRow& row, double elapsed_fs_sum, std::size_t ranks, std::uint32_t iterations,
                     double bus_factor);

class SharpAllreduce;
class SharpAggregationManager;

class NcclCollective {
 public:
  NcclCollective(const NcclCollectiveSpec& spec, HostFabric& fabric, VerbsFlowOwner& owner);
  ~NcclCollective();
  NcclCollective(const NcclCollective&) = delete;
  NcclCollective& operator=(const NcclCollective&) = delete;

  // QPs, memory and connections at time 0; the first size starts at `begin` (or, with `after`,
  // when that collective is done).
  void setup(Time begin, NcclCollective* after);
  // algorithm: sharp: the aggregation manager that sets its tree up (before setup).
  void set_sharp_manager(SharpAggregationManager* m) { sharp_manager_ = m; }
  const NcclCollectiveSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }  // in event traces
  bool done() const { return done_; }
  const std::vector<NcclResultRow>& rows() const;
  std::uint64_t error_completions() const;
  // Across MPI ranks the collectives run on their ranks' MPI rank only (they share a partition);
  // the others' copies never ran and take in the rows, the end, the error completions (all of
  // them, SHARP's too) and SHARP's set-up line from there (run_rank_tallies.cpp).
  void take_in_results(std::vector<NcclResultRow> rows, bool done, std::uint64_t error_completions,
                       std::string sharp_note) {
    rows_ = std::move(rows);
    done_ = done;
    error_completions_ = error_completions;
    sharp_note_ = std::move(sharp_note);
    taken_in_ = true;
  }
  // algorithm: sharp: its run (sharp_allreduce.h); nullptr otherwise.
  const SharpAllreduce* sharp() const { return sharp_.get(); }
  // algorithm: sharp: the set-up line of nccl-tests' table (SharpAllreduce::setup_note); empty otherwise.
  std::string sharp_note() const;
  // Rank nodes (fabric node indices), rank 0 first.
  const std::vector<std::size_t>& nodes() const { return nodes_; }

  // --- events (event.h) ---
  void size_starts();
  // Transfer t's reduction at its sender is done (reduce_bandwidth).
  void reduced(std::uint32_t t);
  // Intra-node fabric: transfer t's head reaches the end of its leg (the receiver, or the rank
  // whose HCA sends it on); all of it is in; the sender hears it is in.
  void leg_head_arrives(std::uint32_t t);
  void leg_arrives(std::uint32_t t);
  void leg_acknowledged(std::uint32_t t);

 private:
  struct Rank;
  struct Conn;
  struct Listener : CompletionListener {
    NcclCollective* coll = nullptr;
    std::uint32_t rank = 0;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };

  std::array<QueuePair*, 2> rc_qps(std::uint32_t a, std::uint32_t b);
  void connect_pair(std::uint32_t channel, std::uint32_t a, std::uint32_t b);
  // One RC QP pair for the connection src -> dst alone, its sender's QP at rank `via`'s HCA.
  void connect_directed(std::uint32_t channel, std::uint32_t src, std::uint32_t dst, std::uint32_t via);
  void add_intra_conn(std::uint32_t channel, std::uint32_t src, std::uint32_t dst);
  // The rank whose HCA sends src's transfers to dst: src, or (another server, another rail) the
  // rank of src's server on dst's rail, when it is one of the ranks.
  std::uint32_t sender_for(std::uint32_t src, std::uint32_t dst) const;
  void post_write(Conn& c, std::uint32_t t);
  void transfer_arrived(std::uint32_t r, std::uint32_t t);
  const Conn& conn_of(std::uint32_t t) const;
  void start_size();
  void start_iteration(std::uint32_t r);
  void pump(std::uint32_t r);
  bool ready(const Rank& rank, std::uint32_t t);
  void post(Conn& c, std::uint32_t t);
  void on_send_completion(std::uint32_t r, const verbs::ibv_wc& wc);
  void on_recv_completion(std::uint32_t r, const verbs::ibv_wc& wc);
  void check_iteration_done(std::uint32_t r);
  void check_barrier();
  void begin_after_barrier();

  NcclCollectiveSpec spec_;
  NcclPlan plan_;
  HostFabric& fabric_;
  VerbsFlowOwner& owner_;
  std::vector<std::size_t> nodes_;
  std::vector<std::optional<NcclRankPlace>> places_;  // by rank: its server and rail, if any
  bool servers_ = false;                              // some rank shares its server with another
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::vector<Conn> conns_;
  std::map<std::uint64_t, std::uint32_t> conn_by_key_;  // (channel, src, dst) -> conns_ index
  std::map<std::uint64_t, std::uint32_t> conn_by_qp_;   // (rank, QPN) -> the connection it sends on
  NcclCollective* next_ = nullptr;                      // starts when this one is done
  std::unique_ptr<SharpAllreduce> sharp_;               // algorithm: sharp
  bool taken_in_ = false;                               // results from another MPI rank (take_in_results)
  std::string sharp_note_;                              // taken in with them
  SharpAggregationManager* sharp_manager_ = nullptr;
  Time begin_ = 0;

  // The running size.
  std::vector<std::uint64_t> sizes_;
  std::size_t size_index_ = 0;
  std::vector<NcclTransfer> transfers_;
  std::vector<std::uint32_t> conn_of_;   // by transfer
  std::vector<std::uint32_t> arrived_;   // by transfer: iterations it has arrived in
  std::vector<std::uint32_t> reduced_;   // by transfer: iterations its reduction is done for
  std::vector<std::uint8_t> reducing_;   // by transfer: its reduction is under way
  std::uint32_t total_iterations_ = 0;
  std::uint32_t at_barrier_ = 0;
  std::uint64_t unacknowledged_ = 0;
  bool timed_ = false;  // past the warmup barrier
  Time timed_start_ = 0;

  std::vector<NcclResultRow> rows_;
  bool done_ = false;
  std::uint64_t error_completions_ = 0;
};

// nccl-tests' table for `rows` of collective `spec` (the header lines, then one line per size,
// out-of-place columns; #wrong is N/A unless values were checked: NcclResultRow::wrong). `done` false: a last line says the
// run ended before every size was measured.
// `note`: lines after the title (SHARP's set-up).
std::string nccl_tests_table(const NcclCollectiveSpec& spec, const std::vector<NcclResultRow>& rows, bool done = true,
                             const std::string& note = "");

}  // namespace ibfsim
