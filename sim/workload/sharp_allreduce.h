// `algorithm: sharp` of a `collectives:` allreduce (nccl_spec.h): the reduction happens in the
// switches, on a SHARP aggregation tree (sim/fabric/aggregation_tree.h) of aggregation nodes
// (sim/transport/sharp/aggregation_node.h), as NCCL's CollNet with the SHARP plugin does.
//
// Set-up: every rank gets a UD QP (Q_Key kSharpQKey) at elaboration, and the switches of the tree
// the AM will compute their aggregation nodes (on every MPI rank). When the collective starts,
// it asks the Aggregation Manager (sharp_aggregation_manager.h) for a tree over its ranks' hosts;
// the AM configures every tree switch's aggregation node in band (MADs, taking simulated time) and
// the first size starts when its last answer is in; each rank then gets an address handle to its
// leaf switch's LID. A job the AM refuses (a node at max_trees) does not run: the collective ends
// with no rows and its table says why.
//
// A size's buffer is cut into chunks of min(mtu, sharp.buffer) bytes (whole elements), one
// aggregation operation each, numbered across iterations. Per iteration a rank posts its chunks as
// UD SENDs with immediate (the operation) to its leaf's node, at most kSharpSendDepth
// unacknowledged by their send completions, and is done once every chunk's result has come back
// (its receive completion). Timing and the barrier are nccl-tests' as for ring and tree
// (nccl_collective.h). With outputs.data_check the chunks carry values (rank r's element i is
// r + 1 + i mod 5, sharp_data_check.h) and every result element is checked against the exact
// reduction by the collective's redop (sum, min, max): #wrong.
//
// A lost packet stalls its operation at the nodes: a rank waiting for results that has had none
// for sharp.timeout (one pending deadline event per rank, pushed on by results) fails the job,
// naming its first missing operation; the collective ends there and the next one starts.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/fabric/aggregation_tree.h"
#include "sim/fabric/fabric.h"
#include "sim/transport/hca.h"
#include "sim/workload/nccl_spec.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

struct NcclResultRow;

inline constexpr std::uint32_t kSharpSendDepth = 64;  // UD SENDs a rank keeps posted

// The bytes of one aggregation operation: min(mtu, sharp.buffer), whole elements.
std::uint32_t sharp_operation_bytes(const NcclCollectiveSpec& spec);

class SharpAggregationManager;
struct SharpJobOutcome;

class SharpAllreduce {
 public:
  // `size_done(last)`: a size is measured (its row is in rows), or (last, no rows) the job was
  // refused; called from a completion or the AM's last answer.
  SharpAllreduce(const NcclCollectiveSpec& spec, Fabric& fabric, VerbsFlowOwner& owner, std::vector<std::size_t> nodes,
                 SharpAggregationManager& manager, std::function<void(bool)> size_done);
  ~SharpAllreduce();
  void setup();
  void start_size();  // the next size (the first after setup)
  const std::vector<NcclResultRow>& rows() const;
  std::uint64_t error_completions() const { return error_completions_; }
  std::uint64_t wrong() const { return wrong_; }          // result elements that were not the exact reduction
  bool data_checked() const { return data_checked_; }
  const AggregationTree& tree() const { return tree_; }
  std::uint32_t chunk_bytes() const { return chunk_; }
  // The AM's set-up: whether the job got its tree, how long it took, the MADs; a line for the table.
  bool refused() const { return refused_; }
  Time setup_time() const { return setup_time_; }
  std::uint64_t setup_mads() const { return setup_mads_; }
  std::string setup_note() const;
  // A rank that waited sharp.timeout for a result in vain failed the job (a lost packet): the
  // collective ends there, its table naming the operation.
  bool failed() const { return !failure_.empty(); }
  std::string name() const { return spec_.name; }  // event traces

  // --- events (event.h) ---
  struct RankRef {
    std::uint32_t rank;
    std::string text() const { return "rank " + std::to_string(rank); }
  };
  // Rank r's timeout is due: it fails the job if r still waits and has had no result for sharp.timeout.
  void deadline(RankRef r);

 private:
  struct Rank;
  struct Listener : CompletionListener {
    SharpAllreduce* run = nullptr;
    std::uint32_t rank = 0;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };

  void job_answered(const SharpJobOutcome& o);
  void fill(std::uint32_t r);
  void start_iteration(std::uint32_t r);
  void pump(std::uint32_t r);
  void on_send_completion(std::uint32_t r, const verbs::ibv_wc& wc);
  void on_recv_completion(std::uint32_t r, const verbs::ibv_wc& wc);
  void check_result(std::uint32_t r, std::uint32_t chunk, std::uint64_t addr);
  void check_iteration_done(std::uint32_t r);
  void check_barrier();
  void arm(std::uint32_t r);

  NcclCollectiveSpec spec_;
  Fabric& fabric_;
  VerbsFlowOwner& owner_;
  std::vector<std::size_t> nodes_;
  SharpAggregationManager& manager_;
  std::function<void(bool)> size_done_;
  bool requested_ = false, ready_ = false, refused_ = false;
  Time setup_time_ = 0;
  std::uint64_t setup_mads_ = 0;
  std::string refused_by_;
  std::string unanswered_by_;  // a tree switch that never answered the set-up (refused_ then too)
  std::string failure_;  // what timed out (empty: nothing)
  AggregationTree tree_;
  std::uint8_t tree_id_ = 0;
  std::uint32_t chunk_ = 0;  // bytes per operation
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::vector<std::uint64_t> sizes_;
  std::size_t size_index_ = 0;
  std::uint64_t size_ = 0;
  std::uint32_t chunks_ = 0;     // operations per iteration
  std::uint32_t op_base_ = 0;    // the first operation of this size
  std::uint32_t total_iterations_ = 0;
  std::uint32_t at_barrier_ = 0;
  bool timed_ = false;
  Time timed_start_ = 0;
  bool data_checked_ = false;
  std::uint64_t wrong_ = 0, wrong_before_ = 0, error_completions_ = 0;
  std::unique_ptr<std::vector<NcclResultRow>> rows_;
};

}  // namespace ibfsim
