#include "sim/workload/verbs_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "sim/core/big_endian.h"
#include "sim/core/error.h"
#include "sim/link/lrh.h"
#include "sim/transport/opcode.h"
#include "sim/workload/message_pattern.h"
#include "sim/workload/perftest_latency.h"
#include "sim/transport/packet_fields.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kGuardBytes = 4096;  // unregistered memory after each region: must stay untouched
constexpr std::uint32_t kUdGrhRoom = 40;     // a UD receive buffer starts with room for a GRH
constexpr std::uint64_t kAtomicInitial = 0x0100000000000000ull;

double ns(double fs) { return fs / 1e6; }

ibv_mr registered(const std::optional<ibv_mr>& mr) {
  IBFSIM_CHECK(mr.has_value(), "verbs flow: ibv_reg_mr refused a region");
  return *mr;
}

// The counters of a QP that grow when a request reaches it and is not executed.
std::uint64_t not_executed(const QpStats& s) {
  return s.duplicates_received + s.out_of_sequence_dropped + s.rnr_naks_sent + s.naks_error_sent +
         s.no_recv_wqe_dropped + s.remote_access_errors + s.uc_messages_dropped + s.qkey_violations;
}

nlohmann::json qp_stats_json(const QpStats& s) {
  return {{"packets_sent", s.packets_sent},
          {"packets_retransmitted", s.packets_retransmitted},
          {"acks_sent", s.acks_sent},
          {"acks_received", s.acks_received},
          {"seq_naks_sent", s.naks_seq_sent},
          {"seq_naks_received", s.naks_seq_received},
          {"rnr_naks_sent", s.rnr_naks_sent},
          {"rnr_naks_received", s.rnr_naks_received},
          {"error_naks_sent", s.naks_error_sent},
          {"error_naks_received", s.naks_error_received},
          {"ack_timeouts", s.ack_timeouts},
          {"retry_exceeded", s.retry_exceeded},
          {"rnr_retry_exceeded", s.rnr_retry_exceeded},
          {"implied_naks", s.implied_naks},
          {"stale_responses", s.stale_responses},
          {"duplicates_received", s.duplicates_received},
          {"out_of_sequence_dropped", s.out_of_sequence_dropped},
          {"uc_messages_dropped", s.uc_messages_dropped},
          {"qkey_violations", s.qkey_violations},
          {"no_receive_dropped", s.no_recv_wqe_dropped},
          {"remote_access_errors", s.remote_access_errors}};
}

nlohmann::json status_json(const std::map<int, std::uint64_t>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [st, n] : m) j[wc_status_str(static_cast<ibv_wc_status>(st))] = n;
  return j;
}

std::string status_text(const std::map<int, std::uint64_t>& m) {
  std::string s;
  for (const auto& [st, n] : m) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", wc_status_str(static_cast<ibv_wc_status>(st)), n);
  return s.empty() ? "none" : s;
}

nlohmann::json latency_json(const std::vector<Time>& samples, double rtt_factor) {
  const PerftestLatency l = perftest_latency(samples, rtt_factor);
  nlohmann::json j;
  j["count"] = l.count;
  if (l.count == 0) return j;
  j["min_ns"] = ns(l.min_fs);
  j["typical_ns"] = ns(l.typical_fs);
  j["mean_ns"] = ns(l.mean_fs);
  j["stdev_ns"] = ns(l.stdev_fs);
  j["p99_ns"] = ns(l.p99_fs);
  j["p99_9_ns"] = ns(l.p99_9_fs);
  j["max_ns"] = ns(l.max_fs);
  return j;
}

}  // namespace

VerbsFlow::VerbsFlow(const VerbsFlowSpec& spec, std::size_t index, Hca& from, Hca& to, const HcaConfig& from_model,
                     const HcaConfig& to_model, bool data_check, Time begin, VerbsFlowOwner& owner)
    : spec_(spec), index_(index), data_check_(data_check), begin_(begin), owner_(owner) {
  sides_[0].hca = &from;
  sides_[0].wire_to_completion = from_model.wire_to_completion;
  sides_[1].hca = &to;
  sides_[1].wire_to_completion = to_model.wire_to_completion;
}

bool VerbsFlow::ping_pong() const { return lat() && (verb_is_send(spec_.verb) || verb_is_write(spec_.verb)); }

std::uint32_t VerbsFlow::slots() const { return data_check_ && !lat() ? spec_.tx_depth : 1; }

std::uint32_t VerbsFlow::rslots() const {
  const std::uint64_t want = spec_.duration ? spec_.rx_depth : std::min<std::uint64_t>(spec_.rx_depth, spec_.iterations);
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, want));
}

std::uint32_t VerbsFlow::recv_slot_bytes() const {
  return spec_.message_size + (spec_.type == IBV_QPT_UD ? kUdGrhRoom : 0);
}

std::uint64_t VerbsFlow::key(int side) const { return pattern_mix((index_ + 1) * 0x9E3779B97F4A7C15ull + side); }

std::uint64_t VerbsFlow::atomic_initial() const { return data_check_ ? kAtomicInitial : 0; }

void VerbsFlow::fill_message(std::uint8_t* dst, std::uint64_t k, std::uint64_t idx, std::uint32_t len) const {
  fill_pattern(dst, k, idx, len);
}

bool VerbsFlow::check_message(const std::uint8_t* got, std::uint64_t k, std::uint64_t idx, std::uint32_t len) const {
  return pattern_matches(got, k, idx, len);
}

void VerbsFlow::check_arrival_order(std::uint64_t& expected, std::uint64_t idx) {
  // RC delivers every message in order; UC and UD may lose some (counted) but never reorder.
  if (idx == expected) {
    ++expected;
  } else if (idx > expected && spec_.type != IBV_QPT_RC) {
    expected = idx + 1;  // messages lost in between: counted at the end
  } else {
    ++out_of_order_;
    expected = std::max(expected, idx + 1);
  }
}

void VerbsFlow::setup() {
  const bool two_way = ping_pong();
  const bool remote_mem = verb_is_write(spec_.verb) || spec_.verb == Verb::kRead || verb_is_atomic(spec_.verb);
  const std::uint32_t msg = spec_.message_size;
  for (int i = 0; i < 2; ++i) {
    Side& s = sides_[i];
    Hca& h = *s.hca;
    s.pd = h.alloc_pd();
    s.send_cq = h.create_cq(spec_.tx_depth + 16);
    s.recv_cq = h.create_cq(spec_.rx_depth + 16);
    s.send_listener.flow = s.recv_listener.flow = this;
    s.send_listener.side = s.recv_listener.side = i;
    s.recv_listener.recv = true;
    h.cq(s.send_cq).set_listener(&s.send_listener);
    h.cq(s.recv_cq).set_listener(&s.recv_listener);
    ibv_qp_init_attr init;
    init.send_cq = s.send_cq;
    init.recv_cq = s.recv_cq;
    init.qp_type = spec_.type;
    init.cap.max_send_wr = spec_.tx_depth;
    init.cap.max_recv_wr = spec_.rx_depth;
    s.qp = h.create_qp(s.pd, init);
    IBFSIM_CHECK(s.qp != nullptr, "verbs flow: create_qp failed");

    const bool sends = i == 0 || two_way;
    const std::uint32_t unit = verb_is_atomic(spec_.verb) ? 8 : msg;
    if (sends) {
      const std::uint64_t len = std::max<std::uint64_t>(1, std::uint64_t{slots()} * unit);
      s.local = h.alloc_host_memory(len);
      s.local_mr = registered(h.reg_mr(s.pd, s.local, len, IBV_ACCESS_LOCAL_WRITE));
    }
    const bool is_target = remote_mem && (i == 1 || (two_way && verb_is_write(spec_.verb)));
    if (is_target) {
      s.target_len = verb_is_atomic(spec_.verb) ? 8 : std::max<std::uint64_t>(1, std::uint64_t{slots()} * msg);
      s.target = h.alloc_host_memory(s.target_len + kGuardBytes);
      unsigned access = IBV_ACCESS_LOCAL_WRITE;
      if (verb_is_write(spec_.verb)) access |= IBV_ACCESS_REMOTE_WRITE;
      if (spec_.verb == Verb::kRead) access |= IBV_ACCESS_REMOTE_READ;
      if (verb_is_atomic(spec_.verb)) access |= IBV_ACCESS_REMOTE_ATOMIC;
      if (i == 1 && spec_.remote.access) access = *spec_.remote.access;
      s.target_mr = registered(h.reg_mr(s.pd, s.target, s.target_len, access));
      std::uint8_t* t = h.memory().bytes(s.target, s.target_len + kGuardBytes);
      if (data_check_) {
        fill_message(t, key(i) ^ 0xCA11AB1Eull, ~0ull, static_cast<std::uint32_t>(s.target_len + kGuardBytes));
        if (spec_.verb == Verb::kRead)
          for (std::uint32_t k = 0; k < slots(); ++k) fill_message(t + std::uint64_t{k} * msg, key(i) ^ 0x5EAD, k, msg);
      }
      if (verb_is_atomic(spec_.verb)) h.memory().store64(s.target, atomic_initial());
      if (data_check_) s.target_initial.assign(t, t + s.target_len + kGuardBytes);
      target_last_[i].assign(slots(), -1);
    }
    const bool receives = verb_needs_recv(spec_.verb) && (i == 1 || two_way);
    if (receives && verb_is_send(spec_.verb)) {
      s.recv_len = std::max<std::uint64_t>(1, std::uint64_t{rslots()} * recv_slot_bytes());
      s.recv = h.alloc_host_memory(s.recv_len + kGuardBytes);
      s.recv_mr = registered(h.reg_mr(s.pd, s.recv, s.recv_len, IBV_ACCESS_LOCAL_WRITE));
      if (data_check_) {
        std::uint8_t* r = h.memory().bytes(s.recv, s.recv_len + kGuardBytes);
        fill_message(r, key(i) ^ 0xCA11AB1Eull, ~0ull, static_cast<std::uint32_t>(s.recv_len + kGuardBytes));
        s.recv_initial.assign(r, r + s.recv_len + kGuardBytes);
      }
      recv_last_[i].assign(rslots(), -1);
    }
    if (receives) s.recvs_wanted = spec_.duration ? std::numeric_limits<std::uint64_t>::max() : spec_.iterations;
  }
  connect(sides_[0], sides_[1]);
  connect(sides_[1], sides_[0]);
  sides_[0].hca->schedule<&VerbsFlow::flow_starts>(begin_, this);
  for (int i = 0; i < 2; ++i)
    if (sides_[i].recvs_wanted > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(spec_.rx_depth, sides_[i].recvs_wanted);
      sides_[i].hca->schedule<&VerbsFlow::receives_due>(begin_ + spec_.recv_post_delay, this, i, n);
    }
}

void VerbsFlow::connect(Side& s, Side& peer) {
  Hca& h = *s.hca;
  const bool rc = spec_.type == IBV_QPT_RC, ud = spec_.type == IBV_QPT_UD;
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = spec_.qp.pkey_index;
  at.port_num = 1;
  at.qkey = spec_.qp.q_key;
  at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  unsigned m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to INIT refused");
  at.qp_state = IBV_QPS_RTR;
  m = IBV_QP_STATE;
  if (!ud) {
    at.path_mtu = spec_.qp.mtu;
    at.dest_qp_num = peer.qp->qpn();
    at.rq_psn = 0;
    at.ah_attr.dlid = peer.hca->lid();
    at.ah_attr.sl = spec_.sl;
    at.ah_attr.port_num = 1;
    at.max_dest_rd_atomic = spec_.qp.max_rd_atomic;
    at.min_rnr_timer = spec_.qp.min_rnr_timer;
    m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (rc) m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  }
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTR refused");
  at.qp_state = IBV_QPS_RTS;
  at.sq_psn = 0;
  at.timeout = spec_.qp.timeout;
  at.retry_cnt = spec_.qp.retry_cnt;
  at.rnr_retry = spec_.qp.rnr_retry;
  at.max_rd_atomic = spec_.qp.max_rd_atomic;
  m = IBV_QP_STATE | IBV_QP_SQ_PSN;
  if (rc) m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTS refused");
}

std::vector<std::pair<const Hca*, Qpn>> VerbsFlow::watched_qps() const {
  // WRITE ping-pong: a side sees the peer's message in its memory; nothing completes there.
  if (!ping_pong() || spec_.verb != Verb::kWrite) return {};
  return {{sides_[0].hca, sides_[0].qp->qpn()}, {sides_[1].hca, sides_[1].qp->qpn()}};
}

bool VerbsFlow::may_post(int side) const {
  const Side& s = sides_[side];
  if (s.stopped || sides_[1 - side].stopped) return false;
  if (ping_pong()) {
    if (s.completed < s.sent) return false;  // perftest waits for its previous send's completion
    if (side == 1) return s.arrived >= s.sent + 1;  // the server answers each message once
    if (spec_.duration ? ScheduledModule::now() >= begin_ + *spec_.duration : s.sent >= spec_.iterations) return false;
    return s.arrived >= s.sent;  // the client sends message j once the answer to j-1 is in
  }
  if (side != 0) return false;
  if (spec_.duration ? ScheduledModule::now() >= begin_ + *spec_.duration : s.sent >= spec_.iterations) return false;
  return s.sent - s.completed < spec_.tx_depth;
}

void VerbsFlow::post_sends(int side) {
  while (may_post(side)) post_one(side);
}

void VerbsFlow::post_one(int side) {
  Side& s = sides_[side];
  Side& peer = sides_[1 - side];
  Hca& h = *s.hca;
  const std::uint64_t i = s.sent;
  const std::uint32_t slot = static_cast<std::uint32_t>(i % slots());
  const std::uint32_t msg = spec_.message_size;
  const bool atomic = verb_is_atomic(spec_.verb);
  const std::uint32_t unit = atomic ? 8 : msg;
  ibv_send_wr wr;
  wr.wr_id = i;
  wr.opcode = verb_opcode(spec_.verb);
  wr.send_flags = IBV_SEND_SIGNALED;
  if ((verb_is_send(spec_.verb) || verb_is_write(spec_.verb)) && msg <= spec_.inline_size) wr.send_flags |= IBV_SEND_INLINE;
  wr.imm_data = static_cast<std::uint32_t>(i);
  const std::uint64_t laddr = s.local + std::uint64_t{slot} * unit;
  wr.sg_list = {ibv_sge{laddr, unit, s.local_mr.lkey}};
  if (data_check_ && unit > 0) {
    std::uint8_t* l = h.memory().bytes(laddr, unit);
    if (verb_is_send(spec_.verb) || verb_is_write(spec_.verb)) fill_message(l, key(side), i, unit);
    else std::memset(l, 0, unit);  // a READ or atomic result must be seen to arrive
  }
  // The flow's `remote:` settings shape the requests from `from` to `to` only.
  const bool forward = side == 0;
  const std::uint64_t offset = forward ? spec_.remote.offset : 0;
  const std::uint32_t rkey = forward && spec_.remote.wrong_rkey ? (0xFFFFFF00u | (peer.target_mr.rkey & 0xFF)) : peer.target_mr.rkey;
  if (verb_is_write(spec_.verb) || spec_.verb == Verb::kRead) {
    wr.rdma.remote_addr = peer.target + std::uint64_t{slot} * msg + offset;
    wr.rdma.rkey = rkey;
  } else if (atomic) {
    wr.atomic.remote_addr = peer.target + offset;
    wr.atomic.rkey = rkey;
    if (spec_.verb == Verb::kFetchAdd) {
      wr.atomic.compare_add = 1;
    } else {
      wr.atomic.compare_add = atomic_initial() + i;  // succeeds when every earlier one did
      wr.atomic.swap = atomic_initial() + i + 1;
    }
  } else if (spec_.type == IBV_QPT_UD) {
    wr.ud.ah.dlid = peer.hca->lid();
    wr.ud.ah.sl = spec_.sl;
    wr.ud.remote_qpn = peer.qp->qpn();
    wr.ud.remote_qkey = forward && spec_.remote.q_key ? *spec_.remote.q_key : spec_.qp.q_key;
  }
  const int rc = h.post_send(*s.qp, wr);
  IBFSIM_CHECK(rc == 0, fmt::format("verbs flow {}: post_send failed ({})", spec_.name, rc));
  s.posted_at.push_back(ScheduledModule::now());
  ++s.sent;
  if (side == 0 && first_post_ == kTimeNever) first_post_ = ScheduledModule::now();
}

void VerbsFlow::post_recvs(int side, std::uint64_t n) {
  Side& s = sides_[side];
  for (std::uint64_t k = 0; k < n && s.recvs_posted < s.recvs_wanted; ++k) {
    ibv_recv_wr r;
    r.wr_id = s.recvs_posted;
    if (s.recv_len > 0) {
      const std::uint64_t slot = s.recvs_posted % rslots();
      r.sg_list = {ibv_sge{s.recv + slot * recv_slot_bytes(), recv_slot_bytes(), s.recv_mr.lkey}};
    }
    const int rc = s.hca->post_recv(*s.qp, r);
    IBFSIM_CHECK(rc == 0, fmt::format("verbs flow {}: post_recv failed ({})", spec_.name, rc));
    ++s.recvs_posted;
  }
}

void VerbsFlow::Listener::on_completion(CqHandle cq, const ibv_wc& wc) {
  Side& s = flow->sides_[side];
  ibv_wc drain;
  while (s.hca->poll_cq(cq, 1, &drain) == 1) {
  }  // the application reads its CQ: keep it from filling up
  if (recv) flow->on_recv_completion(side, wc);
  else flow->on_send_completion(side, wc);
}

void VerbsFlow::on_send_completion(int side, const ibv_wc& wc) {
  Side& s = sides_[side];
  Side& peer = sides_[1 - side];
  ++s.send_status[wc.status];
  const std::uint64_t i = wc.wr_id;
  const Time now = ScheduledModule::now();
  if (wc.status != IBV_WC_SUCCESS) {
    s.stopped = true;
  } else {
    if (data_check_ && i != s.completed) ++out_of_order_;  // completions come in posting order
    if (side == 0) {
      bytes_completed_ += spec_.message_size;
      last_completion_ = now;
      if (!lat() && i < s.posted_at.size()) completion_latency_.push_back(now - s.posted_at[i]);
      if (verb_is_atomic(spec_.verb)) ++atomics_done_;
    }
    const std::uint32_t slot = static_cast<std::uint32_t>(i % slots());
    const std::uint32_t msg = spec_.message_size;
    const std::uint64_t offset = side == 0 ? spec_.remote.offset : 0;
    if (side == 0 && spec_.verb == Verb::kWrite && !ping_pong()) {
      // The target slot now holds this message: checked here for RC (its data is placed before
      // the ACK); UC completes on the wire, so only the end-of-run memory check judges it.
      target_last_[1].at(slot) = static_cast<std::int64_t>(i);
      if (data_check_ && spec_.type == IBV_QPT_RC) {
        const std::uint64_t a = peer.target + std::uint64_t{slot} * msg + offset;
        ++checked_;
        if (!peer.hca->memory().contains(a, msg) || !check_message(peer.hca->memory().bytes(a, msg), key(0), i, msg))
          ++mismatches_;
      }
    } else if (data_check_ && spec_.verb == Verb::kRead) {
      const std::uint64_t a = peer.target + std::uint64_t{slot} * msg + offset;
      ++checked_;
      if (msg > 0 && std::memcmp(s.hca->memory().bytes(s.local + std::uint64_t{slot} * msg, msg),
                                 peer.hca->memory().bytes(a, msg), msg) != 0)
        ++mismatches_;
    } else if (data_check_ && verb_is_atomic(spec_.verb)) {
      // The i-th FetchAdd of 1 (or CmpSwap of initial+i to initial+i+1) returns initial + i.
      ++checked_;
      if (s.hca->memory().load64(s.local + std::uint64_t{slot} * 8) != atomic_initial() + i) ++mismatches_;
    }
  }
  ++s.completed;
  post_sends(side);
  if (ping_pong() && !s.stopped) post_sends(1 - side);
  owner_.flow_progress();
}

void VerbsFlow::on_recv_completion(int side, const ibv_wc& wc) {
  Side& s = sides_[side];
  ++s.recv_status[wc.status];
  if (wc.status != IBV_WC_SUCCESS) {
    owner_.flow_progress();
    return;
  }
  const std::uint32_t msg = spec_.message_size;
  const bool has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
  std::uint64_t idx = s.arrived;
  if (data_check_) {
    const std::uint64_t rslot = wc.wr_id % rslots();
    const std::uint64_t at = s.recv + rslot * recv_slot_bytes() + (spec_.type == IBV_QPT_UD ? kUdGrhRoom : 0);
    if (has_imm) {
      // A 32-bit immediate carries the low bits of the index.
      idx = (s.next_expected & ~0xFFFFFFFFull) | wc.imm_data;
      if (idx + 0x80000000ull < s.next_expected) idx += 0x100000000ull;
    } else if (verb_is_send(spec_.verb) && msg > 0) {
      // The message's first bytes carry its index (all of it from 8 bytes on).
      idx = pattern_index(s.hca->memory().bytes(at, std::min<std::uint32_t>(msg, 8)), msg, s.next_expected);
    }
    ++checked_;
    bool ok = true;
    if (verb_is_send(spec_.verb)) {
      ok = wc.byte_len == recv_slot_bytes() && check_message(s.hca->memory().bytes(at, std::max<std::uint32_t>(msg, 1)), key(1 - side), idx, msg);
      recv_last_[side].at(rslot) = static_cast<std::int64_t>(idx);
    } else {  // WRITE with immediate: the data is in the target region
      const std::uint32_t slot = static_cast<std::uint32_t>(idx % slots());
      const std::uint64_t a = s.target + std::uint64_t{slot} * msg + (side == 1 ? spec_.remote.offset : 0);
      ok = s.hca->memory().contains(a, msg) && check_message(s.hca->memory().bytes(a, std::max<std::uint32_t>(msg, 1)), key(1 - side), idx, msg);
      target_last_[side].at(slot) = static_cast<std::int64_t>(idx);
    }
    if (!ok) ++mismatches_;
    check_arrival_order(s.next_expected, idx);
  }
  ++s.arrived;
  if (s.recvs_posted < s.recvs_wanted) {
    if (spec_.recv_post_delay == 0) post_recvs(side, 1);
    else s.hca->schedule<&VerbsFlow::receives_due>(ScheduledModule::now() + spec_.recv_post_delay, this, side, 1);
  }
  if (ping_pong()) post_sends(side);
  owner_.flow_progress();
}

void VerbsFlow::on_delivered(Hca& hca, const Packet& p) {
  const Qpn dqp = packet_dest_qp(p);
  const int side = &hca == sides_[0].hca && dqp == sides_[0].qp->qpn() ? 0 : 1;
  Side& s = sides_[side];
  // Was the packet executed? The QP's counters of refused requests say it was not.
  const std::uint64_t ne = not_executed(s.qp->stats());
  const bool executed = ne == s.not_executed_seen && s.qp->state() != IBV_QPS_ERR;
  s.not_executed_seen = ne;
  const std::uint8_t o = opcode_operation(packet_opcode(p));
  if (!executed || (o != op::kRdmaWriteLast && o != op::kRdmaWriteOnly)) return;
  // The data is visible to the polling application wire_to_completion after its last DMA.
  hca.schedule<&VerbsFlow::write_visible>(ScheduledModule::now() + s.wire_to_completion, this, side);
}

void VerbsFlow::write_visible(int side) {
  Side& s = sides_[side];
  if (data_check_) {
    const std::uint64_t idx = s.arrived;
    ++checked_;
    if (!check_message(s.hca->memory().bytes(s.target, std::max<std::uint32_t>(spec_.message_size, 1)), key(1 - side), idx,
                       spec_.message_size))
      ++mismatches_;
    target_last_[side].at(0) = static_cast<std::int64_t>(idx);
  }
  ++s.arrived;
  post_sends(side);
  owner_.flow_progress();
}

void VerbsFlow::flow_starts() {
  post_sends(0);
  owner_.flow_progress();
}

void VerbsFlow::receives_due(int side, std::uint64_t n) { post_recvs(side, n); }

bool VerbsFlow::done() const {
  const Side& a = sides_[0];
  const Side& b = sides_[1];
  if (a.sent != a.completed || b.sent != b.completed) return false;
  if (a.stopped || b.stopped) return true;
  if (ScheduledModule::now() < begin_) return false;
  if (spec_.duration ? ScheduledModule::now() < begin_ + *spec_.duration : a.sent < spec_.iterations) return false;
  if (ping_pong() && (b.sent < a.sent || a.arrived < b.sent)) return false;
  return true;
}

void VerbsFlow::check_memory_at_end(nlohmann::json& dc) const {
  std::uint64_t differing = 0;
  bool unchanged = true;
  const std::uint32_t msg = spec_.message_size;
  for (int i = 0; i < 2; ++i) {
    const Side& s = sides_[i];
    const std::uint64_t offset = i == 1 ? spec_.remote.offset : 0;
    if (!s.target_initial.empty()) {
      std::vector<std::uint8_t> want = s.target_initial;
      if (verb_is_atomic(spec_.verb)) {
        const std::uint64_t v = atomic_initial() + atomics_done_;
        std::memcpy(want.data(), &v, 8);
      } else if (spec_.verb != Verb::kRead) {
        for (std::size_t k = 0; k < target_last_[i].size(); ++k) {
          if (target_last_[i][k] < 0) continue;
          const std::uint64_t at = k * msg + offset;
          if (at + msg <= want.size())
            fill_message(want.data() + at, key(1 - i), static_cast<std::uint64_t>(target_last_[i][k]), msg);
        }
      }
      const std::uint8_t* got = s.hca->memory().bytes(s.target, want.size());
      for (std::size_t k = 0; k < want.size(); ++k) differing += got[k] != want[k];
      unchanged = unchanged && std::memcmp(got, s.target_initial.data(), want.size()) == 0;
    }
    if (!s.recv_initial.empty()) {
      std::vector<std::uint8_t> want = s.recv_initial;
      const std::uint32_t head = spec_.type == IBV_QPT_UD ? kUdGrhRoom : 0;
      for (std::size_t k = 0; k < recv_last_[i].size(); ++k)
        if (recv_last_[i][k] >= 0)
          fill_message(want.data() + k * recv_slot_bytes() + head, key(1 - i), static_cast<std::uint64_t>(recv_last_[i][k]), msg);
      const std::uint8_t* got = s.hca->memory().bytes(s.recv, want.size());
      for (std::size_t k = 0; k < want.size(); ++k) differing += got[k] != want[k];
      unchanged = unchanged && std::memcmp(got, s.recv_initial.data(), want.size()) == 0;
    }
  }
  dc["target_bytes_differing"] = differing;
  dc["target_unchanged"] = unchanged;
}

nlohmann::json VerbsFlow::results() const {
  const Side& a = sides_[0];
  const Side& b = sides_[1];
  nlohmann::json j;
  j["name"] = spec_.name;
  j["transport"] = spec_.type == IBV_QPT_RC ? "rc" : spec_.type == IBV_QPT_UC ? "uc" : "ud";
  j["verb"] = verb_name(spec_.verb);
  j["test"] = lat() ? "lat" : "bw";
  j["from"] = spec_.from;
  j["to"] = spec_.to;
  j["message_size_bytes"] = spec_.message_size;
  if (spec_.duration) j["duration_ns"] = ns(static_cast<double>(*spec_.duration));
  else j["iterations"] = spec_.iterations;
  j["tx_depth"] = spec_.tx_depth;
  j["inline_size"] = spec_.inline_size;
  j["mtu"] = mtu_bytes(spec_.qp.mtu);
  j["start_ns"] = ns(static_cast<double>(begin_));
  j["finished"] = done();
  j["messages_posted"] = a.sent;
  const auto ok = a.send_status.count(IBV_WC_SUCCESS) ? a.send_status.at(IBV_WC_SUCCESS) : 0;
  j["messages_completed"] = ok;
  j["bytes_completed"] = bytes_completed_;
  const Time elapsed = first_post_ != kTimeNever && last_completion_ > first_post_ ? last_completion_ - first_post_ : 0;
  j["first_post_ns"] = first_post_ == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(first_post_)));
  j["last_completion_ns"] = ns(static_cast<double>(last_completion_));
  j["elapsed_ns"] = ns(static_cast<double>(elapsed));
  // As ib_*_bw reports: bytes / (last completion - first post); MB = 2^20 bytes, Gb = 10^9 bits.
  const double secs = static_cast<double>(elapsed) / 1e15;
  j["bandwidth_gbps"] = secs > 0 ? static_cast<double>(bytes_completed_) * 8 / secs / 1e9 : 0.0;
  j["bandwidth_mbytes_per_s"] = secs > 0 ? static_cast<double>(bytes_completed_) / secs / 1048576.0 : 0.0;
  j["message_rate_mpps"] = secs > 0 ? static_cast<double>(ok) / secs / 1e6 : 0.0;
  if (lat()) {
    std::vector<Time> d;
    for (std::size_t k = 0; k + 1 < a.posted_at.size(); ++k) d.push_back(a.posted_at[k + 1] - a.posted_at[k]);
    j["latency"] = latency_json(d, ping_pong() ? 2.0 : 1.0);
    j["latency"]["definition"] = ping_pong() ? "(post[i+1] - post[i]) / 2, ping-pong (ib_write_lat, ib_send_lat)"
                                             : "post[i+1] - post[i] (ib_read_lat, ib_atomic_lat)";
  } else {
    j["latency"] = latency_json(completion_latency_, 1.0);
    j["latency"]["definition"] = "post to completion, per message";
  }
  auto side_json = [&](const Side& s, const std::string& name) {
    return nlohmann::json{{"hca", name},
                          {"qpn", s.qp->qpn()},
                          {"qp_state", qp_state_str(s.qp->state())},
                          {"send_completions", status_json(s.send_status)},
                          {"receive_completions", status_json(s.recv_status)},
                          {"receives_posted", s.recvs_posted},
                          {"counters", qp_stats_json(s.qp->stats())}};
  };
  j["from_side"] = side_json(a, spec_.from);
  j["to_side"] = side_json(b, spec_.to);
  j["completions"] = status_json(a.send_status);
  j["receive_completions"] = status_json(b.recv_status);
  const QpStats& sa = a.qp->stats();
  const QpStats& sb = b.qp->stats();
  j["retransmitted_packets"] = sa.packets_retransmitted + sb.packets_retransmitted;
  j["rnr_naks"] = sa.rnr_naks_received + sb.rnr_naks_received;
  j["seq_naks"] = sa.naks_seq_received + sb.naks_seq_received;
  j["ack_timeouts"] = sa.ack_timeouts + sb.ack_timeouts;
  j["remote_access_errors"] = sa.remote_access_errors + sb.remote_access_errors;
  j["qkey_violations"] = sa.qkey_violations + sb.qkey_violations;
  if (data_check_) {
    // Lost: messages the requester completed that never completed a receive at the target (SEND,
    // WRITE with immediate). UC and UD may lose messages; RC never may.
    std::uint64_t lost = 0;
    if (verb_needs_recv(spec_.verb)) {
      for (int i = 0; i < 2; ++i) {
        const Side& snd = sides_[i];
        const Side& rcv = sides_[1 - i];
        const std::uint64_t sent_ok = snd.send_status.count(IBV_WC_SUCCESS) ? snd.send_status.at(IBV_WC_SUCCESS) : 0;
        const std::uint64_t got = rcv.recv_status.count(IBV_WC_SUCCESS) ? rcv.recv_status.at(IBV_WC_SUCCESS) : 0;
        lost += sent_ok > got ? sent_ok - got : 0;
      }
    }
    nlohmann::json dc{{"messages_checked", checked_}, {"content_mismatches", mismatches_}, {"out_of_order", out_of_order_},
                      {"lost", lost}};
    check_memory_at_end(dc);
    dc["passed"] = mismatches_ == 0 && out_of_order_ == 0 && dc["target_bytes_differing"].get<std::uint64_t>() == 0 &&
                   (spec_.type != IBV_QPT_RC || lost == 0);
    j["data_check"] = dc;
  } else {
    j["data_check"] = nullptr;
  }
  return j;
}

std::string VerbsFlow::summary() const {
  const nlohmann::json r = results();
  const Side& a = sides_[0];
  std::string t = spec_.type == IBV_QPT_RC ? "RC" : spec_.type == IBV_QPT_UC ? "UC" : "UD";
  std::string s = fmt::format("  flow {}: {} {} {} {} {}, {} B x {}{}: {} of {} completed ({}){}\n", spec_.name, t,
                              verb_name(spec_.verb), spec_.from, ping_pong() ? "<->" : "->", spec_.to, spec_.message_size,
                              spec_.duration ? format_duration(*spec_.duration) : std::to_string(spec_.iterations),
                              lat() ? ", latency test" : fmt::format(", tx_depth {}", spec_.tx_depth),
                              r["messages_completed"].get<std::uint64_t>(), a.sent, status_text(a.send_status),
                              done() ? "" : ", NOT FINISHED when the run ended");
  const auto& l = r["latency"];
  if (lat()) {
    if (l["count"].get<std::size_t>() > 0)
      s += fmt::format("    t_min {:.4f} us, t_typical {:.4f} us, t_avg {:.4f} us, t_max {:.4f} us ({} samples)\n",
                       l["min_ns"].get<double>() / 1e3, l["typical_ns"].get<double>() / 1e3,
                       l["mean_ns"].get<double>() / 1e3, l["max_ns"].get<double>() / 1e3, l["count"].get<std::size_t>());
  } else if (r["elapsed_ns"].get<double>() > 0) {
    s += fmt::format("    BW average {:.2f} Gb/s ({:.2f} MB/s), {:.4f} Mpps over {}\n", r["bandwidth_gbps"].get<double>(),
                     r["bandwidth_mbytes_per_s"].get<double>(), r["message_rate_mpps"].get<double>(),
                     format_duration(static_cast<Time>(r["elapsed_ns"].get<double>() * 1e6 + 0.5)));
  }
  s += fmt::format("    transport: {} retransmitted, {} RNR NAKs, {} sequence NAKs, {} ACK timeouts; QPs {} / {}\n",
                   r["retransmitted_packets"].get<std::uint64_t>(), r["rnr_naks"].get<std::uint64_t>(),
                   r["seq_naks"].get<std::uint64_t>(), r["ack_timeouts"].get<std::uint64_t>(),
                   qp_state_str(sides_[0].qp->state()), qp_state_str(sides_[1].qp->state()));
  if (data_check_) {
    const auto& dc = r["data_check"];
    s += fmt::format("    data check: {} checked, {} mismatches, {} out of order, {} lost; target memory {}\n",
                     dc["messages_checked"].get<std::uint64_t>(), dc["content_mismatches"].get<std::uint64_t>(),
                     dc["out_of_order"].get<std::uint64_t>(), dc["lost"].get<std::uint64_t>(),
                     dc["target_unchanged"].get<bool>() ? "unchanged"
                     : dc["target_bytes_differing"].get<std::uint64_t>() == 0
                         ? "as expected"
                         : fmt::format("differs in {} bytes", dc["target_bytes_differing"].get<std::uint64_t>()));
  }
  return s;
}

}  // namespace ibfsim
