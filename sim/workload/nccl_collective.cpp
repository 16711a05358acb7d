#include "sim/workload/nccl_collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"
#include "sim/workload/rc_pair.h"
#include "sim/workload/sharp_allreduce.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kRecvDepth = 128;  // receives kept posted on each QP (each WRITE with immediate takes one)

std::uint64_t conn_key(std::uint64_t channel, std::uint64_t a, std::uint64_t b) { return (channel << 40) | (a << 20) | b; }

}  // namespace

struct NcclCollective::Rank {
  std::size_t node = 0;
  Hca* hca = nullptr;
  PdHandle pd = 0;
  CqHandle send_cq = 0, recv_cq = 0;
  std::uint64_t buf = 0;
  ibv_mr mr;
  Listener send_listener, recv_listener;
  std::vector<std::uint32_t> conns;  // the connections it sends on
  std::vector<std::uint32_t> recvs;  // this size's transfers into it
  std::uint32_t sends = 0;           // this size's transfers from it
  std::uint32_t iter = 0;            // the iteration it runs (or, waiting, the next one)
  std::uint32_t have = 0;            // transfers of `iter` arrived
  std::uint32_t unposted = 0;        // transfers of `iter` not posted yet
  bool waiting = false;              // at the barrier
  Time end = 0;                      // end of its last timed iteration
  Time link_out_free = 0;            // intra-node fabric: when its link out is free
  Time link_in_free = 0;             // ... and its link in
};

struct NcclCollective::Conn {
  std::uint32_t channel = 0, src = 0, dst = 0;
  QueuePair* qp = nullptr;           // at via (none: intra)
  std::uint32_t via = 0;             // the rank whose HCA sends (src, or a rank of src's server)
  bool intra = false;                // src and dst share a server: the intra-node fabric
  std::vector<std::uint32_t> order;  // this size's transfers, in program order
  std::size_t head = 0;              // the next to post in the running iteration
  std::uint32_t outstanding = 0;     // posted, not acknowledged
  std::uint64_t posted = 0;          // ever: picks the receiver's buffer slot
};

NcclCollective::NcclCollective(const NcclCollectiveSpec& spec, HostFabric& fabric, VerbsFlowOwner& owner)
    : spec_(spec), plan_(spec.plan()), fabric_(fabric), owner_(owner), sizes_(spec.sizes()) {
  for (const std::string& name : spec_.ranks) nodes_.push_back(*fabric_.topology().find_node(name));
  const Topology& topo = fabric_.topology();
  const auto server_of = topo.server_of();
  std::vector<std::uint32_t> in_server(topo.servers.size(), 0);
  for (std::size_t node : nodes_) {
    std::optional<NcclRankPlace> place;
    if (const auto s = server_of[node]) {
      const auto& hosts = topo.servers[*s].hosts;
      place = NcclRankPlace{*s, static_cast<std::uint32_t>(std::find(hosts.begin(), hosts.end(), node) - hosts.begin())};
      if (++in_server[*s] == 2) servers_ = true;
    }
    places_.push_back(place);
  }
  if (servers_ && spec_.algorithm != NcclAlgorithm::kSharp) plan_.rings = nccl_rail_rings(places_, plan_.channels);
}

NcclCollective::~NcclCollective() = default;

const std::vector<NcclResultRow>& NcclCollective::rows() const { return sharp_ && !taken_in_ ? sharp_->rows() : rows_; }

std::string NcclCollective::sharp_note() const {
  if (taken_in_) return sharp_note_;
  return sharp_ ? sharp_->setup_note() : std::string();
}

std::uint64_t NcclCollective::error_completions() const {
  return error_completions_ + (sharp_ && !taken_in_ ? sharp_->error_completions() : 0);
}

void NcclCollective::setup(Time begin, NcclCollective* after) {
  begin_ = begin;
  if (spec_.algorithm == NcclAlgorithm::kSharp) {
    // SHARP aggregates in InfiniBand switches (a RoCE scenario refuses it).
    Fabric* ib = fabric_.infiniband();
    IBFSIM_CHECK(ib != nullptr, "collectives: algorithm sharp on a fabric that is not InfiniBand");
    IBFSIM_CHECK(sharp_manager_ != nullptr, "collective: algorithm sharp without an aggregation manager");
    sharp_ = std::make_unique<SharpAllreduce>(spec_, *ib, owner_, nodes_, *sharp_manager_, [this](bool last) {
      const Time now = ScheduledModule::now();
      Hca* first = fabric_.hca(nodes_.front());
      if (!last) return first->schedule<&NcclCollective::size_starts>(now, this);
      done_ = true;
      if (next_) first->schedule<&NcclCollective::size_starts>(now, next_);
      owner_.flow_progress();
    });
    sharp_->setup();
    if (after) after->next_ = this;
    else fabric_.hca(nodes_.front())->schedule<&NcclCollective::size_starts>(begin, this);
    return;
  }
  const std::uint64_t region = std::uint64_t{kNcclSteps} * std::max<std::uint64_t>(spec_.chunk_size, 1);
  for (std::uint32_t r = 0; r < nodes_.size(); ++r) {
    auto rank = std::make_unique<Rank>();
    rank->node = nodes_[r];
    rank->hca = fabric_.hca(nodes_[r]);
    Hca& h = *rank->hca;
    rank->pd = h.alloc_pd();
    rank->send_cq = h.create_cq(1u << 16);
    rank->recv_cq = h.create_cq(1u << 20);
    rank->send_listener.coll = rank->recv_listener.coll = this;
    rank->send_listener.rank = rank->recv_listener.rank = r;
    rank->recv_listener.recv = true;
    h.cq(rank->send_cq).set_listener(&rank->send_listener);
    h.cq(rank->recv_cq).set_listener(&rank->recv_listener);
    rank->buf = h.alloc_host_memory(region);
    const auto mr = h.reg_mr(rank->pd, rank->buf, region, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    IBFSIM_CHECK(mr.has_value(), "collective: ibv_reg_mr refused the buffer");
    rank->mr = *mr;
    ranks_.push_back(std::move(rank));
  }
  // The connections every size uses: those of the smallest (a step with no data still happens).
  for (const NcclTransfer& t : nccl_schedule(plan_, nccl_round_size(plan_, sizes_.front()))) {
    if (conn_by_key_.count(conn_key(t.channel, t.src, t.dst))) continue;
    if (servers_) {
      const bool same = places_[t.src] && places_[t.dst] && places_[t.src]->server == places_[t.dst]->server;
      if (same) add_intra_conn(t.channel, t.src, t.dst);
      else connect_directed(t.channel, t.src, t.dst, sender_for(t.src, t.dst));
    } else if (!conn_by_key_.count(conn_key(t.channel, t.dst, t.src))) {
      connect_pair(t.channel, std::min(t.src, t.dst), std::max(t.src, t.dst));
    }
  }
  if (after) after->next_ = this;
  else ranks_.front()->hca->schedule<&NcclCollective::size_starts>(begin, this);
}

// One RC QP at ranks a and b, connected RESET -> INIT -> RTR -> RTS, as a collective's connections
// use them: [0] at a, [1] at b.
std::array<QueuePair*, 2> NcclCollective::rc_qps(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t end[2] = {a, b};
  RcPairEnd ends[2];
  for (int i = 0; i < 2; ++i) {
    const Rank& r = *ranks_[end[i]];
    ends[i] = RcPairEnd{r.hca, r.pd, r.send_cq, r.recv_cq};
  }
  RcPairSettings settings;
  settings.max_send_wr = 2 * kNcclSteps;
  settings.max_recv_wr = kRecvDepth;
  settings.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  settings.mtu = spec_.mtu;
  settings.sl = spec_.sl;
  settings.who = "collective";
  return connect_rc_pair(ends, settings);
}

// Both directions between a and b on one QP pair, receives posted; each end's QP sends that
// direction's connection.
void NcclCollective::connect_pair(std::uint32_t channel, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t end[2] = {a, b};
  const std::array<QueuePair*, 2> qp = rc_qps(a, b);
  for (int i = 0; i < 2; ++i) {
    Rank& r = *ranks_[end[i]];
    for (std::uint32_t k = 0; k < kRecvDepth; ++k) {
      ibv_recv_wr wr;
      wr.wr_id = k;
      IBFSIM_CHECK(r.hca->post_recv(*qp[i], wr) == 0, "collective: post_recv refused");
    }
    Conn c;
    c.channel = channel;
    c.src = c.via = end[i];
    c.dst = end[1 - i];
    c.qp = qp[i];
    const auto index = static_cast<std::uint32_t>(conns_.size());
    conn_by_key_[conn_key(channel, c.src, c.dst)] = index;
    conn_by_qp_[(std::uint64_t{c.src} << 32) | qp[i]->qpn()] = index;
    r.conns.push_back(index);
    conns_.push_back(std::move(c));
  }
}

std::uint32_t NcclCollective::sender_for(std::uint32_t src, std::uint32_t dst) const {
  if (!places_[src] || !places_[dst] || places_[src]->rail == places_[dst]->rail) return src;
  for (std::uint32_t r = 0; r < places_.size(); ++r)
    if (places_[r] && places_[r]->server == places_[src]->server && places_[r]->rail == places_[dst]->rail) return r;
  return src;  // no rank of src's server on that rail: src's own HCA crosses rails
}

void NcclCollective::connect_directed(std::uint32_t channel, std::uint32_t src, std::uint32_t dst, std::uint32_t via) {
  const std::array<QueuePair*, 2> qp = rc_qps(via, dst);
  Rank& receiver = *ranks_[dst];
  for (std::uint32_t k = 0; k < kRecvDepth; ++k) {
    ibv_recv_wr wr;
    wr.wr_id = k;
    IBFSIM_CHECK(receiver.hca->post_recv(*qp[1], wr) == 0, "collective: post_recv refused");
  }
  Conn c;
  c.channel = channel;
  c.src = src;
  c.dst = dst;
  c.via = via;
  c.qp = qp[0];
  const auto index = static_cast<std::uint32_t>(conns_.size());
  conn_by_key_[conn_key(channel, src, dst)] = index;
  conn_by_qp_[(std::uint64_t{via} << 32) | qp[0]->qpn()] = index;
  ranks_[src]->conns.push_back(index);
  conns_.push_back(std::move(c));
}

void NcclCollective::add_intra_conn(std::uint32_t channel, std::uint32_t src, std::uint32_t dst) {
  Conn c;
  c.channel = channel;
  c.src = c.via = src;
  c.dst = dst;
  c.intra = true;
  const auto index = static_cast<std::uint32_t>(conns_.size());
  conn_by_key_[conn_key(channel, src, dst)] = index;
  ranks_[src]->conns.push_back(index);
  conns_.push_back(std::move(c));
}

void NcclCollective::size_starts() {
  if (sharp_) return sharp_->start_size();
  start_size();
}

void NcclCollective::start_size() {
  const std::uint64_t size = nccl_round_size(plan_, sizes_[size_index_]);
  transfers_ = nccl_schedule(plan_, size);
  const std::size_t n = transfers_.size();
  conn_of_.assign(n, 0);
  arrived_.assign(n, 0);
  reduced_.assign(n, 0);
  reducing_.assign(n, 0);
  for (Conn& c : conns_) c.order.clear();
  for (auto& r : ranks_) {
    r->recvs.clear();
    r->sends = 0;
    r->iter = 0;
    r->waiting = false;
    r->end = 0;
  }
  for (std::uint32_t t = 0; t < n; ++t) {
    const NcclTransfer& x = transfers_[t];
    const auto it = conn_by_key_.find(conn_key(x.channel, x.src, x.dst));
    IBFSIM_CHECK(it != conn_by_key_.end(), "collective: a transfer on a connection the smallest size did not use");
    conn_of_[t] = it->second;
    conns_[it->second].order.push_back(t);
    ranks_[x.dst]->recvs.push_back(t);
    ++ranks_[x.src]->sends;
  }
  total_iterations_ = spec_.warmup_iterations + spec_.iterations;
  timed_ = spec_.warmup_iterations == 0;
  timed_start_ = ScheduledModule::now();
  at_barrier_ = 0;
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) start_iteration(r);
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) check_iteration_done(r);
}

void NcclCollective::start_iteration(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  rank.waiting = false;
  for (std::uint32_t c : rank.conns) conns_[c].head = 0;
  rank.unposted = rank.sends;
  rank.have = 0;
  for (std::uint32_t t : rank.recvs)
    if (arrived_[t] > rank.iter) ++rank.have;
  pump(r);
}

bool NcclCollective::ready(const Rank& rank, std::uint32_t t) {
  const NcclTransfer& x = transfers_[t];
  for (std::uint32_t d : x.after)
    if (d != kNcclNoTransfer && arrived_[d] <= rank.iter) return false;
  if (!x.reduce || spec_.reduce_gbps <= 0 || x.bytes == 0 || reduced_[t] > rank.iter) return true;
  if (!reducing_[t]) {
    // One byte at 1 GB/s takes 1 ns = 1e6 fs.
    reducing_[t] = 1;
    const auto fs = static_cast<Time>(std::ceil(static_cast<double>(x.bytes) * 1e6 / spec_.reduce_gbps));
    rank.hca->schedule<&NcclCollective::reduced>(ScheduledModule::now() + fs, this, t);
  }
  return false;
}

void NcclCollective::reduced(std::uint32_t t) {
  ++reduced_[t];
  reducing_[t] = 0;
  const std::uint32_t r = transfers_[t].src;
  pump(r);
  check_iteration_done(r);
}

void NcclCollective::pump(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  if (rank.waiting) return;
  for (std::uint32_t ci : rank.conns) {
    Conn& c = conns_[ci];
    while (c.head < c.order.size() && c.outstanding < kNcclSteps && ready(rank, c.order[c.head])) {
      post(c, c.order[c.head]);
      ++c.head;
      --rank.unposted;
    }
  }
}

void NcclCollective::post(Conn& c, std::uint32_t t) {
  ++c.outstanding;
  ++unacknowledged_;
  if (!c.intra && c.via == c.src) return post_write(c, t);
  // Over the intra-node fabric, to the receiver or to the rank whose HCA sends it on.
  Rank& src = *ranks_[c.src];
  const Time start = std::max(ScheduledModule::now(), src.link_out_free);
  src.link_out_free = start + spec_.intra_node.serialization(transfers_[t].bytes);
  ranks_[c.intra ? c.dst : c.via]->hca->schedule<&NcclCollective::leg_head_arrives>(start + spec_.intra_node.latency,
                                                                                     this, t);
}

const NcclCollective::Conn& NcclCollective::conn_of(std::uint32_t t) const { return conns_[conn_of_[t]]; }

void NcclCollective::leg_head_arrives(std::uint32_t t) {
  const Conn& c = conn_of(t);
  Rank& to = *ranks_[c.intra ? c.dst : c.via];
  const Time start = std::max(ScheduledModule::now(), to.link_in_free);
  to.link_in_free = start + spec_.intra_node.serialization(transfers_[t].bytes);
  to.hca->schedule<&NcclCollective::leg_arrives>(to.link_in_free, this, t);
}

void NcclCollective::leg_arrives(std::uint32_t t) {
  Conn& c = conns_[conn_of_[t]];
  if (!c.intra) return post_write(c, t);  // at via: its HCA sends it on
  ranks_[c.src]->hca->schedule<&NcclCollective::leg_acknowledged>(ScheduledModule::now(), this, t);
  transfer_arrived(c.dst, t);
}

void NcclCollective::leg_acknowledged(std::uint32_t t) {
  Conn& c = conns_[conn_of_[t]];
  --c.outstanding;
  --unacknowledged_;
  pump(c.src);
  check_iteration_done(c.src);
  check_barrier();
  owner_.flow_progress();
}

// The RC WRITE with immediate of transfer t, from the HCA of the connection's `via` rank.
void NcclCollective::post_write(Conn& c, std::uint32_t t) {
  const NcclTransfer& x = transfers_[t];
  Rank& src = *ranks_[c.via];
  const Rank& dst = *ranks_[c.dst];
  const std::uint64_t slot = (c.posted++ % kNcclSteps) * std::max<std::uint64_t>(spec_.chunk_size, 1);
  ibv_send_wr wr;
  wr.wr_id = t;
  wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.imm_data = t;
  if (x.bytes > 0) wr.sg_list.push_back({src.buf + slot, static_cast<std::uint32_t>(x.bytes), src.mr.lkey});
  wr.rdma.remote_addr = dst.buf + slot;
  wr.rdma.rkey = dst.mr.rkey;
  IBFSIM_CHECK(src.hca->post_send(*c.qp, wr) == 0, "collective: post_send refused");
}

void NcclCollective::Listener::on_completion(CqHandle cq, const ibv_wc&) {
  Hca& hca = *coll->ranks_[rank]->hca;
  ibv_wc wc;
  while (hca.poll_cq(cq, 1, &wc) == 1) {
    if (recv) coll->on_recv_completion(rank, wc);
    else coll->on_send_completion(rank, wc);
  }
}

void NcclCollective::on_send_completion(std::uint32_t r, const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) ++error_completions_;
  const auto it = conn_by_qp_.find((std::uint64_t{r} << 32) | wc.qp_num);
  IBFSIM_CHECK(it != conn_by_qp_.end() && conns_[it->second].outstanding > 0, "collective: completion of an unknown send");
  --conns_[it->second].outstanding;
  --unacknowledged_;
  const std::uint32_t owner = conns_[it->second].src;  // r, or the rank whose WRITE r sent on
  pump(owner);
  check_iteration_done(owner);
  check_barrier();
  owner_.flow_progress();
}

void NcclCollective::on_recv_completion(std::uint32_t r, const ibv_wc& wc) {
  Rank& rank = *ranks_[r];
  if (wc.status != IBV_WC_SUCCESS) {
    ++error_completions_;
    return;
  }
  ibv_recv_wr again;
  if (QueuePair* q = rank.hca->qp(wc.qp_num); q && q->state() != IBV_QPS_ERR)
    IBFSIM_CHECK(rank.hca->post_recv(*q, again) == 0, "collective: post_recv refused");
  const std::uint32_t t = wc.imm_data;
  IBFSIM_CHECK(t < transfers_.size() && transfers_[t].dst == r,
               "collective: a WRITE with immediate that names no transfer to this rank");
  transfer_arrived(r, t);
}

void NcclCollective::transfer_arrived(std::uint32_t r, std::uint32_t t) {
  Rank& rank = *ranks_[r];
  ++arrived_[t];
  if (!rank.waiting && arrived_[t] == rank.iter + 1) ++rank.have;
  pump(r);
  check_iteration_done(r);
  owner_.flow_progress();
}

void NcclCollective::check_iteration_done(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  while (!rank.waiting && rank.have == rank.recvs.size() && rank.unposted == 0) {
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
}

void NcclCollective::check_barrier() {
  if (at_barrier_ != ranks_.size() || unacknowledged_ != 0 || done_) return;
  at_barrier_ = 0;
  const Time now = ScheduledModule::now();
  if (!timed_) {
    timed_ = true;
    timed_start_ = now;
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) start_iteration(r);
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) check_iteration_done(r);
    return;
  }
  NcclResultRow row;
  row.size_bytes = nccl_round_size(plan_, sizes_[size_index_]);
  const bool per_rank = spec_.op == NcclOp::kAllGather || spec_.op == NcclOp::kReduceScatter ||
                        spec_.op == NcclOp::kAllToAll;
  row.count = row.size_bytes / spec_.type_bytes / (per_rank ? ranks_.size() : 1);
  double sum_fs = 0;
  for (const auto& rank : ranks_) sum_fs += static_cast<double>(rank->end - timed_start_);
  set_nccl_timing(row, sum_fs, ranks_.size(), spec_.iterations, nccl_bus_factor(spec_.op, plan_.ranks));
  rows_.push_back(row);
  if (++size_index_ < sizes_.size()) {
    for (auto& rank : ranks_) rank->waiting = true;  // until the next size starts
    ranks_.front()->hca->schedule<&NcclCollective::size_starts>(now, this);
    return;
  }
  done_ = true;
  if (next_) ranks_.front()->hca->schedule<&NcclCollective::size_starts>(now, next_);
  owner_.flow_progress();
}

void set_nccl_timing(NcclResultRow& row, double elapsed_fs_sum, std::size_t ranks, std::uint32_t iterations,
                     double bus_factor) {
  row.time_us = elapsed_fs_sum / static_cast<double>(ranks) / iterations / 1e9;
  row.algbw_gbps = row.time_us > 0 ? static_cast<double>(row.size_bytes) / (row.time_us * 1e3) : 0;
  row.busbw_gbps = row.algbw_gbps * bus_factor;
}

std::string nccl_tests_table(const NcclCollectiveSpec& spec, const std::vector<NcclResultRow>& rows, bool done,
                             const std::string& note) {
  const bool reduces = spec.op == NcclOp::kAllReduce || spec.op == NcclOp::kReduceScatter;
  const int root = spec.op == NcclOp::kBroadcast ? static_cast<int>(spec.root) : -1;
  std::string s =
      spec.algorithm == NcclAlgorithm::kSharp
          ? fmt::format("# {}: {} sharp, {} ranks, reduced in the switches, operations of {} B\n", spec.name,
                        nccl_op_name(spec.op), spec.ranks.size(), sharp_operation_bytes(spec))
          : fmt::format("# {}: {} {}, {} ranks, {} channels, chunk {} B\n", spec.name, nccl_op_name(spec.op),
                        nccl_algorithm_name(spec.algorithm), spec.ranks.size(), spec.channels, spec.chunk_size);
  s += note;
  s += fmt::format("#{:>62}{}\n", "", "out-of-place");
  s += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "size", "count", "type",
                   "redop", "root", "time", "algbw", "busbw", "#wrong");
  s += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "(B)", "(elements)", "", "",
                   "", "(us)", "(GB/s)", "(GB/s)", "");
  double bus_sum = 0;
  for (const NcclResultRow& r : rows) {
    // nccl-tests: fewer decimals as the time grows.
    const std::string time = r.time_us >= 10000 ? fmt::format("{:7.0f}", r.time_us)
                             : r.time_us >= 100 ? fmt::format("{:7.1f}", r.time_us)
                                                : fmt::format("{:7.2f}", r.time_us);
    s += fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {}  {:6.2f}  {:6.2f}  {:>6}\n", r.size_bytes, r.count,
                     spec.datatype, reduces ? sharp_op_name(spec.redop) : "none", root, time, r.algbw_gbps, r.busbw_gbps,
                     r.wrong ? std::to_string(*r.wrong) : std::string("N/A"));
    bus_sum += r.busbw_gbps;
  }
  s += fmt::format("# Avg bus bandwidth    : {:g}\n", rows.empty() ? 0.0 : bus_sum / static_cast<double>(rows.size()));
  if (!done)
    s += fmt::format("# NOT FINISHED: {} of {} sizes measured when the run ended (phases.limit, or a WRITE that "
                     "failed)\n",
                     rows.size(), spec.sizes().size());
  return s;
}

}  // namespace ibfsim
