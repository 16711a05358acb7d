// A verbs flow's posting side (verbs_flow.h), as perftest posts: bw keeps tx_depth messages
// outstanding from `from`; lat posts one at a time, in ping-pong answering each message from the
// peer. A message's work request says where its data comes from and goes (the flow's `remote:`
// settings shape `from`'s requests), and with data checking carries the pattern of its index.
// Receives are posted up to rx_depth, and again as they complete (after recv_post_delay).
#include <fmt/format.h>

#include <cstring>

#include "sim/core/error.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

void VerbsFlow::flow_starts() {
  if (cm_) return cm_start();  // traffic_starts() once connected
  traffic_starts();
}

void VerbsFlow::traffic_starts() {
  if (window_) window_start();
  post_sends(0);
  progress();
}

void VerbsFlow::receives_due(int side, std::uint64_t n) { post_recvs(side, n); }

bool VerbsFlow::may_post(int side) const {
  const Side& s = sides_[side];
  if (s.stopped || sides_[1 - side].stopped) return false;
  if (cm_ && s.qp->state() != IBV_QPS_RTS) return false;  // connect: cm, not yet connected
  if (ping_pong()) {
    if (s.completed < s.sent) return false;  // perftest waits for its previous send's completion
    if (side == 1) return s.arrived >= s.sent + 1;  // the server answers each message once
    if (spec_.duration ? ScheduledModule::now() >= traffic_begin_ + *spec_.duration : s.sent >= spec_.iterations) return false;
    return s.arrived >= s.sent;  // the client sends message j once the answer to j-1 is in
  }
  if (side != 0) return false;
  if (window_ && window_holds_posting()) return false;
  if (spec_.duration ? ScheduledModule::now() >= traffic_begin_ + *spec_.duration : s.sent >= spec_.iterations) return false;
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
  // Through a window, the window's R_Key (the region's own grants nothing remote).
  const std::uint32_t valid = forward && window_ ? window_->rkey : peer.target_mr.rkey;
  const std::uint32_t rkey = forward && spec_.remote.wrong_rkey ? (0xFFFFFF00u | (valid & 0xFF)) : valid;
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
    wr.ud.ah = s.peer_ah;
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

}  // namespace ibfsim
