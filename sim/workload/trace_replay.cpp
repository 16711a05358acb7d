#include "sim/workload/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"
#include "sim/workload/rc_pair.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kRecvDepth = 128;  // receives kept posted on each QP, renewed as they complete

}  // namespace

struct TraceReplay::Rank {
  Hca* hca = nullptr;
  PdHandle pd = 0;
  CqHandle send_cq = 0, recv_cq = 0;
  std::uint64_t buf = 0;
  ibv_mr mr;
  Listener send_listener, recv_listener;
  std::map<std::uint32_t, QueuePair*> qp_to;     // peer -> the QP it sends it on
  std::map<Qpn, std::uint32_t> peer_of;          // QPN -> peer
  std::map<std::uint32_t, std::uint64_t> unposted_recvs;  // peer -> receives still to post for it
  std::size_t step = 0;       // the step it runs (or waits the gap of)
  bool active = false;        // the step is posted
  std::uint32_t outstanding = 0;  // sends posted and not completed
  std::uint32_t awaiting = 0;     // of the step's acked and recvs, those not in yet
};

TraceReplay::TraceReplay(const TraceReplaySpec& spec, HostFabric& fabric, VerbsFlowOwner& owner)
    : spec_(spec), fabric_(fabric), owner_(owner) {}

TraceReplay::~TraceReplay() = default;

void TraceReplay::setup(Time begin) {
  begin_ = begin;
  const ReplayPlan& p = plan();
  const auto n = static_cast<std::uint32_t>(p.ranks());
  arrived_.assign(p.messages.size(), 0);
  acked_.assign(p.messages.size(), 0);
  std::vector<std::uint64_t> largest(n, 1);
  for (const ReplayMessage& m : p.messages) {
    IBFSIM_CHECK(m.bytes <= 0x80000000ull, "trace replay: a message over 2 GiB (trace_replay_spec.cpp refuses them)");
    largest[m.src] = std::max(largest[m.src], m.bytes);
    largest[m.dst] = std::max(largest[m.dst], m.bytes);
  }
  results_.resize(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    auto rank = std::make_unique<Rank>();
    rank->hca = fabric_.hca(*fabric_.topology().find_node(spec_.hosts[r]));
    Hca& h = *rank->hca;
    rank->pd = h.alloc_pd();
    rank->send_cq = h.create_cq(1u << 16);
    rank->recv_cq = h.create_cq(1u << 16);
    rank->send_listener.replay = rank->recv_listener.replay = this;
    rank->send_listener.rank = rank->recv_listener.rank = r;
    rank->recv_listener.recv = true;
    h.cq(rank->send_cq).set_listener(&rank->send_listener);
    h.cq(rank->recv_cq).set_listener(&rank->recv_listener);
    // One buffer per rank for what it sends and receives: no payload is carried.
    rank->buf = h.alloc_host_memory(largest[r]);
    const auto mr = h.reg_mr(rank->pd, rank->buf, largest[r], IBV_ACCESS_LOCAL_WRITE);
    IBFSIM_CHECK(mr.has_value(), "trace replay: ibv_reg_mr refused the buffer");
    rank->mr = *mr;
    results_[r].host = spec_.hosts[r];
    results_[r].posted.reserve(p.steps[r].size());
    ranks_.push_back(std::move(rank));
  }
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = a + 1; b < n; ++b)
      if (!p.by_pair[std::size_t{a} * n + b].empty() || !p.by_pair[std::size_t{b} * n + a].empty()) connect_pair(a, b);
  for (std::uint32_t r = 0; r < n; ++r) start_step(r, begin);
}

// One RC QP at each end, connected RESET -> INIT -> RTR -> RTS, with receives posted ahead for the
// messages the other end will send.
void TraceReplay::connect_pair(std::uint32_t a, std::uint32_t b) {
  const auto n = static_cast<std::uint32_t>(ranks_.size());
  const std::uint32_t end[2] = {a, b};
  RcPairEnd ends[2];
  for (int i = 0; i < 2; ++i) {
    const Rank& r = *ranks_[end[i]];
    ends[i] = RcPairEnd{r.hca, r.pd, r.send_cq, r.recv_cq};
  }
  RcPairSettings settings;
  settings.max_send_wr = 16;
  settings.max_recv_wr = kRecvDepth;
  settings.mtu = spec_.mtu;
  settings.sl = spec_.sl;
  settings.who = "trace replay";
  const std::array<QueuePair*, 2> qp = connect_rc_pair(ends, settings);
  for (int i = 0; i < 2; ++i) {
    Rank& r = *ranks_[end[i]];
    const std::uint32_t peer = end[1 - i];
    std::uint64_t& unposted = r.unposted_recvs[peer];
    unposted = plan().by_pair[std::size_t{peer} * n + end[i]].size();
    for (std::uint32_t k = 0; k < kRecvDepth && unposted > 0; ++k, --unposted) {
      ibv_recv_wr wr;
      wr.sg_list.push_back({r.buf, static_cast<std::uint32_t>(r.mr.length), r.mr.lkey});
      IBFSIM_CHECK(r.hca->post_recv(*qp[i], wr) == 0, "trace replay: post_recv refused");
    }
    r.qp_to[peer] = qp[i];
    r.peer_of[qp[i]->qpn()] = peer;
  }
}

void TraceReplay::start_step(std::uint32_t r, Time from) {
  Rank& rank = *ranks_[r];
  const auto& steps = plan().steps[r];
  if (rank.step == steps.size()) {
    results_[r].done = true;
    results_[r].end = from - begin_;
    ++done_ranks_;
    owner_.flow_progress();
    return;
  }
  rank.hca->schedule<&TraceReplay::step_due>(from + steps[rank.step].gap, this, r);
}

void TraceReplay::step_due(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  const ReplayStep& step = plan().steps[r][rank.step];
  results_[r].posted.push_back(ScheduledModule::now() - begin_);
  rank.active = true;
  rank.awaiting = 0;
  for (std::uint32_t m : step.recvs)
    if (!arrived_[m]) ++rank.awaiting;
  for (std::uint32_t m : step.acked)
    if (!acked_[m]) ++rank.awaiting;
  for (std::uint32_t m : step.sends) {
    const ReplayMessage& msg = plan().messages[m];
    ibv_send_wr wr;
    wr.wr_id = m;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = m;
    if (msg.bytes > 0) wr.sg_list.push_back({rank.buf, static_cast<std::uint32_t>(msg.bytes), rank.mr.lkey});
    IBFSIM_CHECK(rank.hca->post_send(*rank.qp_to.at(msg.dst), wr) == 0, "trace replay: post_send refused");
    ++rank.outstanding;
  }
  check_step(r);
}

void TraceReplay::check_step(std::uint32_t r) {
  Rank& rank = *ranks_[r];
  if (!rank.active || rank.awaiting > 0) return;
  rank.active = false;
  const Time now = ScheduledModule::now();
  results_[r].completed.push_back(now - begin_);
  ++rank.step;
  start_step(r, now);
}

void TraceReplay::Listener::on_completion(CqHandle cq, const ibv_wc&) {
  Hca& hca = *replay->ranks_[rank]->hca;
  ibv_wc wc;
  while (hca.poll_cq(cq, 1, &wc) == 1) {
    if (recv) replay->on_recv_completion(rank, wc);
    else replay->on_send_completion(rank, wc);
  }
}

void TraceReplay::on_send_completion(std::uint32_t r, const ibv_wc& wc) {
  Rank& rank = *ranks_[r];
  TraceReplayRank& res = results_[r];
  IBFSIM_CHECK(rank.outstanding > 0 && wc.wr_id < plan().messages.size() && !acked_[wc.wr_id],
               "trace replay: completion of an unknown send");
  --rank.outstanding;
  acked_[wc.wr_id] = 1;
  if (rank.active) {
    const auto& acked = plan().steps[r][rank.step].acked;
    if (std::find(acked.begin(), acked.end(), wc.wr_id) != acked.end()) --rank.awaiting;
  }
  if (wc.status != IBV_WC_SUCCESS) {
    ++res.error_completions;
  } else {
    const ReplayMessage& msg = plan().messages[wc.wr_id];
    ++res.messages_sent;
    res.bytes_sent += msg.bytes;
    if (!msg.collective) ++res.point_to_point_sent, res.point_to_point_bytes_sent += msg.bytes;
  }
  check_step(r);
  owner_.flow_progress();
}

void TraceReplay::on_recv_completion(std::uint32_t r, const ibv_wc& wc) {
  Rank& rank = *ranks_[r];
  TraceReplayRank& res = results_[r];
  if (wc.status != IBV_WC_SUCCESS) {
    ++res.error_completions;
    return;
  }
  const std::uint32_t m = wc.imm_data;
  IBFSIM_CHECK(m < plan().messages.size() && plan().messages[m].dst == r && !arrived_[m],
               "trace replay: a SEND with immediate that names no message to this rank");
  arrived_[m] = 1;
  ++res.messages_received;
  res.bytes_received += wc.byte_len;
  if (!plan().messages[m].collective) ++res.point_to_point_received, res.point_to_point_bytes_received += wc.byte_len;
  const std::uint32_t peer = rank.peer_of.at(wc.qp_num);
  if (std::uint64_t& unposted = rank.unposted_recvs[peer]; unposted > 0) {
    ibv_recv_wr again;
    again.sg_list.push_back({rank.buf, static_cast<std::uint32_t>(rank.mr.length), rank.mr.lkey});
    IBFSIM_CHECK(rank.hca->post_recv(*rank.qp_to.at(peer), again) == 0, "trace replay: post_recv refused");
    --unposted;
  }
  if (rank.active) {
    const auto& recvs = plan().steps[r][rank.step].recvs;
    if (std::find(recvs.begin(), recvs.end(), m) != recvs.end()) --rank.awaiting;
  }
  check_step(r);
  owner_.flow_progress();
}

void TraceReplay::take_in_results(std::vector<TraceReplayRank> results) {
  IBFSIM_CHECK(results.size() == results_.size(), "a trace replay's results for each of its ranks");
  results_ = std::move(results);
  done_ranks_ = static_cast<std::size_t>(
      std::count_if(results_.begin(), results_.end(), [](const TraceReplayRank& r) { return r.done; }));
}

Time TraceReplay::duration() const {
  Time end = 0;
  for (const TraceReplayRank& r : results_) end = std::max(end, r.end);
  return end;
}

std::string TraceReplay::summary() const {
  std::string out = fmt::format("trace replay of {} ({} ranks, {} messages planned):\n", spec_.file, results_.size(),
                                plan().messages.size());
  for (std::size_t r = 0; r < results_.size(); ++r) {
    const TraceReplayRank& x = results_[r];
    out += fmt::format("  rank {} on {}: sent {} messages ({} bytes), received {} ({} bytes), {} of {} steps{}\n", r,
                       x.host, x.messages_sent, x.bytes_sent, x.messages_received, x.bytes_received,
                       x.completed.size(), plan().steps[r].size(), x.done ? "" : " (not done)");
  }
  const Time trace = spec_.trace->duration, replay = duration();
  out += fmt::format("  replay {:.3f} us, trace {:.3f} us ({:+.3f}%)\n", to_ns(replay) / 1000.0, to_ns(trace) / 1000.0,
                     trace ? 100.0 * (static_cast<double>(replay) - static_cast<double>(trace)) / static_cast<double>(trace)
                           : 0.0);
  return out;
}

}  // namespace ibfsim
