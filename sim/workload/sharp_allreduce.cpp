#include "sim/workload/sharp_allreduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/network/grh.h"
#include "sim/transport/sharp/sharp_reduction.h"
#include "sim/workload/nccl_collective.h"
#include "sim/workload/sharp_aggregation_manager.h"
#include "sim/workload/sharp_data_check.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kRecvSlots = 512;  // receives kept posted per rank (each result takes one)
// kGrhBytes (grh.h): a UD receive buffer starts with room for a GRH

}  // namespace

struct SharpAllreduce::Rank {
  Hca* hca = nullptr;
  PdHandle pd = 0;
  CqHandle send_cq = 0, recv_cq = 0;
  QueuePair* qp = nullptr;
  AhHandle leaf = 0;
  std::uint64_t send_buf = 0, recv_buf = 0;
  ibv_mr send_mr, recv_mr;
  Listener send_listener, recv_listener;
  std::uint32_t iter = 0;         // the iteration it runs (or, waiting, the next one)
  std::uint32_t next = 0;         // its next chunk to post in `iter`
  std::uint32_t have = 0;         // results of `iter` in
  std::uint32_t outstanding = 0;  // SENDs posted, not completed
  bool waiting = true;            // at the barrier (or before the first size)
  Time end = 0;
  std::vector<std::uint8_t> got;  // per chunk of `iter`: its result is in
  Time last_result = 0;           // when it last had a result (or began waiting for some)
  bool armed = false;             // its deadline event is pending
};

std::uint32_t sharp_operation_bytes(const NcclCollectiveSpec& spec) {
  return std::min(spec.mtu, spec.sharp.buffer_bytes) / spec.type_bytes * spec.type_bytes;
}

SharpAllreduce::SharpAllreduce(const NcclCollectiveSpec& spec, Fabric& fabric, VerbsFlowOwner& owner,
                               std::vector<std::size_t> nodes, SharpAggregationManager& manager,
                               std::function<void(bool)> size_done)
    : spec_(spec), fabric_(fabric), owner_(owner), nodes_(std::move(nodes)), manager_(manager), size_done_(std::move(size_done)),
      sizes_(spec.sizes()), rows_(std::make_unique<std::vector<NcclResultRow>>()) {}

SharpAllreduce::~SharpAllreduce() = default;

const std::vector<NcclResultRow>& SharpAllreduce::rows() const { return *rows_; }

void SharpAllreduce::setup() {
  chunk_ = sharp_operation_bytes(spec_);
  // The tree the AM will compute (a function of the topology and the hosts) has its switches'
  // aggregation nodes made now, at elaboration, on every MPI rank: the rank that simulates a switch
  // needs its node before the AM's MADs reach it (the AM runs on its host's rank), and
  // aggregation_nodes.csv has the same rows on every rank (every sharp entry has the same config).
  for (const AggregationTreeNode& n : aggregation_tree(fabric_.topology(), nodes_).nodes)
    fabric_.aggregation_node(n.node, spec_.sharp);
  std::uint64_t largest = 0;
  for (std::uint64_t s : sizes_) largest = std::max(largest, s);
  for (std::uint32_t r = 0; r < nodes_.size(); ++r) {
    auto rank = std::make_unique<Rank>();
    rank->hca = fabric_.hca(nodes_[r]);
    Hca& h = *rank->hca;
    rank->pd = h.alloc_pd();
    rank->send_cq = h.create_cq(1u << 16);
    rank->recv_cq = h.create_cq(1u << 16);
    rank->send_listener.run = rank->recv_listener.run = this;
    rank->send_listener.rank = rank->recv_listener.rank = r;
    rank->recv_listener.recv = true;
    h.cq(rank->send_cq).set_listener(&rank->send_listener);
    h.cq(rank->recv_cq).set_listener(&rank->recv_listener);
    rank->send_buf = h.alloc_host_memory(std::max<std::uint64_t>(largest, 64));
    const std::uint64_t recv_len = std::uint64_t{kRecvSlots} * (kGrhBytes + chunk_);
    rank->recv_buf = h.alloc_host_memory(recv_len);
    const auto smr = h.reg_mr(rank->pd, rank->send_buf, std::max<std::uint64_t>(largest, 64), IBV_ACCESS_LOCAL_WRITE);
    const auto rmr = h.reg_mr(rank->pd, rank->recv_buf, recv_len, IBV_ACCESS_LOCAL_WRITE);
    IBFSIM_CHECK(smr && rmr, "sharp: ibv_reg_mr refused a buffer");
    rank->send_mr = *smr;
    rank->recv_mr = *rmr;
    ibv_qp_init_attr init;
    init.send_cq = rank->send_cq;
    init.recv_cq = rank->recv_cq;
    init.qp_type = IBV_QPT_UD;
    init.cap.max_send_wr = kSharpSendDepth;
    init.cap.max_recv_wr = kRecvSlots;
    rank->qp = h.create_qp(rank->pd, init);
    IBFSIM_CHECK(rank->qp != nullptr, "sharp: create_qp failed");
    ibv_qp_attr at;
    at.qp_state = IBV_QPS_INIT;
    at.pkey_index = 0;
    at.port_num = 1;
    at.qkey = kSharpQKey;
    IBFSIM_CHECK(h.modify_qp(*rank->qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0,
                 "sharp: QP to INIT refused");
    at.qp_state = IBV_QPS_RTR;
    IBFSIM_CHECK(h.modify_qp(*rank->qp, at, IBV_QP_STATE) == 0, "sharp: QP to RTR refused");
    at.qp_state = IBV_QPS_RTS;
    at.sq_psn = 0;
    IBFSIM_CHECK(h.modify_qp(*rank->qp, at, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0, "sharp: QP to RTS refused");
    for (std::uint32_t k = 0; k < kRecvSlots; ++k) {
      ibv_recv_wr wr;
      wr.wr_id = k;
      wr.sg_list.push_back({rank->recv_buf + k * (kGrhBytes + chunk_), static_cast<std::uint32_t>(kGrhBytes + chunk_), rank->recv_mr.lkey});
      IBFSIM_CHECK(h.post_recv(*rank->qp, wr) == 0, "sharp: post_recv refused");
    }
    data_checked_ = h.carry_payload();
    ranks_.push_back(std::move(rank));
  }
}

void SharpAllreduce::job_answered(const SharpJobOutcome& o) {
  setup_time_ = o.answered - o.requested;
  setup_mads_ = o.mads;
  if (!o.ready) {
    refused_ = true;
    refused_by_ = o.refused_by;
    unanswered_by_ = o.unanswered_by;
    size_done_(true);
    return;
  }
  ready_ = true;
  tree_ = o.tree;
  tree_id_ = o.tree_id;
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    Rank& rank = *ranks_[r];
    ibv_ah_attr ah;
    ah.dlid = fabric_.switch_at(tree_.nodes[tree_.leaf_of_host[r]].node)->lid();
    ah.sl = spec_.sl;
    ah.port_num = 1;
    rank.leaf = rank.hca->create_ah(rank.pd, ah);
    IBFSIM_CHECK(rank.leaf != 0, "sharp: ibv_create_ah refused");
  }
  start_size();
}

std::string SharpAllreduce::setup_note() const {
  const std::string am = fabric_.topology().nodes[manager_.host()].name;
  if (refused_ && !unanswered_by_.empty())
    return fmt::format("# {}: FAILED at set-up: {} never answered a TreeConfig MAD of the aggregation manager on {} "
                       "after {} tries (sharp.mad_timeout {} each, {} in all); the collective did not run\n",
                       spec_.name, unanswered_by_, am, spec_.sharp_mad_retries + 1,
                       format_duration(spec_.sharp_mad_timeout), format_duration(setup_time_));
  if (refused_)
    return fmt::format("# {}: REFUSED: {} holds sharp.max_trees ({}) trees already; the aggregation manager on {} "
                       "could not set up the job's tree and the collective did not run\n",
                       spec_.name, refused_by_, spec_.sharp.max_trees, am);
  if (failed())
    return fmt::format("# {}: tree {} set up in {:.6f} us, {} MADs; FAILED: {}; the collective ended there\n", spec_.name,
                       tree_id_, static_cast<double>(setup_time_) / 1e9, setup_mads_, failure_);
  if (!ready_) return fmt::format("# {}: the aggregation manager on {} has not set up the tree\n", spec_.name, am);
  return fmt::format("# {}: tree {} of {} switches set up by the aggregation manager on {} in {:.6f} us, {} MADs\n",
                     spec_.name, tree_id_, tree_.nodes.size(), am, static_cast<double>(setup_time_) / 1e9, setup_mads_);
}

// Rank r's buffer: sharp_data_check.h's values.
void SharpAllreduce::fill(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  sharp_fill_values(spec_.sharp_type, r, 0, size_ / spec_.type_bytes, rank.hca->memory().bytes(rank.send_buf, size_));
}

void SharpAllreduce::start_size() {
  if (!ready_) {
    // The job's first start: the AM sets its tree up first (in band); the size starts after.
    if (requested_) return;
    requested_ = true;
    SharpJobRequest job;
    job.name = spec_.name;
    job.hosts = nodes_;
    for (const auto& rank : ranks_) job.endpoints.push_back({rank->hca->lid(), rank->qp->qpn()});
    job.op = spec_.redop;
    job.type = spec_.sharp_type;
    job.sl = spec_.sl;
    job.config = spec_.sharp;
    job.mad_timeout = spec_.sharp_mad_timeout;
    job.mad_retries = spec_.sharp_mad_retries;
    manager_.request(job, [this](const SharpJobOutcome& o) { job_answered(o); });
    return;
  }
  size_ = nccl_round_size(spec_.plan(), sizes_[size_index_]);
  chunks_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (size_ + chunk_ - 1) / chunk_));
  total_iterations_ = spec_.warmup_iterations + spec_.iterations;
  timed_ = spec_.warmup_iterations == 0;
  timed_start_ = ScheduledModule::now();
  at_barrier_ = 0;
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    ranks_[r]->iter = 0;
    ranks_[r]->end = 0;
    if (data_checked_) fill(r);
  }
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) start_iteration(r);
}

void SharpAllreduce::start_iteration(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  rank.waiting = false;
  rank.next = 0;
  rank.have = 0;
  rank.got.assign(chunks_, 0);
  rank.last_result = ScheduledModule::now();
  arm(r);
  pump(r);
}

// One pending deadline per rank, pushed on by results as they come (not one event per result).
void SharpAllreduce::arm(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  if (rank.armed) return;
  rank.armed = true;
  rank.hca->schedule<&SharpAllreduce::deadline>(rank.last_result + spec_.sharp_timeout, this, RankRef{r});
}

void SharpAllreduce::deadline(RankRef ref) {
  Rank& rank = *ranks_[ref.rank];
  rank.armed = false;
  if (failed() || rank.waiting) return;  // at the barrier: nothing outstanding (a new iteration re-arms)
  const Time now = ScheduledModule::now();
  if (now < rank.last_result + spec_.sharp_timeout) return arm(ref.rank);
  std::uint32_t c = 0;
  while (c < chunks_ && rank.got[c]) ++c;
  const std::uint32_t op = (op_base_ + rank.iter * chunks_ + c) & 0xFFFFFF;
  failure_ = fmt::format("operation {} of tree {} (size {} B, iteration {}, chunk {}): rank {} ({}) had no result for "
                         "sharp.timeout ({:g} us), a packet of the tree was lost",
                         op, tree_id_, size_, rank.iter, c, ref.rank, fabric_.topology().nodes[nodes_[ref.rank]].name,
                         static_cast<double>(spec_.sharp_timeout) / 1e9);
  manager_.job_failed();
  size_done_(true);
}

void SharpAllreduce::pump(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  while (!rank.waiting && rank.next < chunks_ && rank.outstanding < kSharpSendDepth) {
    const std::uint32_t c = rank.next++;
    const std::uint64_t off = std::uint64_t{c} * chunk_;
    const auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_, size_ - std::min(size_, off)));
    const std::uint32_t op = (op_base_ + rank.iter * chunks_ + c) & 0xFFFFFF;
    ibv_send_wr wr;
    wr.wr_id = c;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = (std::uint32_t{tree_id_} << 24) | op;
    if (bytes > 0) wr.sg_list.push_back({rank.send_buf + off, bytes, rank.send_mr.lkey});
    wr.ud.ah = rank.leaf;
    wr.ud.remote_qpn = kAggregationQpn;
    wr.ud.remote_qkey = kSharpQKey;
    IBFSIM_CHECK(rank.hca->post_send(*rank.qp, wr) == 0, "sharp: post_send refused");
    ++rank.outstanding;
  }
}

void SharpAllreduce::Listener::on_completion(CqHandle cq, const ibv_wc&) {
  Hca& hca = *run->ranks_[rank]->hca;
  ibv_wc wc;
  while (hca.poll_cq(cq, 1, &wc) == 1) {
    if (recv) run->on_recv_completion(rank, wc);
    else run->on_send_completion(rank, wc);
  }
}

void SharpAllreduce::on_send_completion(std::uint32_t r, const ibv_wc& wc) {
  if (failed()) return;  // the job is over: what is still in flight is ignored
  if (wc.status != IBV_WC_SUCCESS) ++error_completions_;
  --ranks_[r]->outstanding;
  pump(r);
  check_iteration_done(r);
  check_barrier();
  owner_.flow_progress();
}

void SharpAllreduce::on_recv_completion(std::uint32_t r, const ibv_wc& wc) {
  if (failed()) return;
  Rank& rank = *ranks_[r];
  if (wc.status != IBV_WC_SUCCESS) {
    ++error_completions_;
    return;
  }
  const auto slot = static_cast<std::uint32_t>(wc.wr_id);
  const std::uint64_t addr = rank.recv_buf + std::uint64_t{slot} * (kGrhBytes + chunk_);
  const std::uint32_t op = wc.imm_data & 0xFFFFFF;
  const std::uint32_t c = (op - op_base_ - rank.iter * chunks_) & 0xFFFFFF;
  IBFSIM_CHECK((wc.imm_data >> 24) == tree_id_ && c < chunks_ && !rank.waiting,
               "sharp: a result for an operation this rank is not running");
  if (data_checked_) check_result(r, c, addr + kGrhBytes);
  rank.got[c] = 1;
  rank.last_result = ScheduledModule::now();
  ibv_recv_wr again;
  again.wr_id = slot;
  again.sg_list.push_back({addr, static_cast<std::uint32_t>(kGrhBytes + chunk_), rank.recv_mr.lkey});
  IBFSIM_CHECK(rank.hca->post_recv(*rank.qp, again) == 0, "sharp: post_recv refused");
  ++rank.have;
  check_iteration_done(r);
  owner_.flow_progress();
}

// Every element of chunk c against the exact reduction (sharp_data_check.h).
void SharpAllreduce::check_result(std::uint32_t r, std::uint32_t chunk, std::uint64_t addr) {
  const std::uint64_t off = std::uint64_t{chunk} * chunk_;
  const std::uint64_t bytes = std::min<std::uint64_t>(chunk_, size_ - std::min(size_, off));
  const std::uint8_t* b = ranks_[r]->hca->memory().bytes(addr, std::max<std::uint64_t>(bytes, 1));
  wrong_ += sharp_count_wrong(spec_.redop, spec_.sharp_type, ranks_.size(), off / spec_.type_bytes, b,
                              bytes / spec_.type_bytes);
}

void SharpAllreduce::check_iteration_done(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  if (rank.waiting || rank.have < chunks_ || rank.next < chunks_) return;
  if (timed_) rank.end = ScheduledModule::now();
  ++rank.iter;
  if ((!timed_ && rank.iter == spec_.warmup_iterations) || rank.iter == total_iterations_) {
    rank.waiting = true;
    ++at_barrier_;
    check_barrier();
    return;
  }
  start_iteration(r);
}

void SharpAllreduce::check_barrier() {
  if (at_barrier_ != ranks_.size()) return;
  for (const auto& r : ranks_)
    if (r->outstanding != 0) return;
  at_barrier_ = 0;
  const Time now = ScheduledModule::now();
  if (!timed_) {
    timed_ = true;
    timed_start_ = now;
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) start_iteration(r);
    return;
  }
  NcclResultRow row;
  row.size_bytes = size_;
  row.count = size_ / spec_.type_bytes;
  if (data_checked_) row.wrong = wrong_ - wrong_before_;
  wrong_before_ = wrong_;
  double sum_fs = 0;
  for (const auto& rank : ranks_) sum_fs += static_cast<double>(rank->end - timed_start_);
  set_nccl_timing(row, sum_fs, ranks_.size(), spec_.iterations,
                  nccl_bus_factor(NcclOp::kAllReduce, static_cast<std::uint32_t>(ranks_.size())));
  rows_->push_back(row);
  op_base_ = (op_base_ + total_iterations_ * chunks_) & 0xFFFFFF;
  const bool last = ++size_index_ == sizes_.size();
  size_done_(last);
}

}  // namespace ibfsim
