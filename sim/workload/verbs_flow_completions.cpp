// What a verbs flow's application sees (verbs_flow.h): send completions (bandwidth, latency and,
// with data checking, the data a WRITE left at the target, a READ brought back or an atomic
// returned), receive completions (the message's index and content, its order), and in WRITE
// ping-pong each message's data becoming visible at the peer. Each lets the flow post what it
// waited for.
#include <algorithm>
#include <cstring>

#include "sim/transport/opcode.h"
#include "sim/transport/packet_fields.h"
#include "sim/workload/message_pattern.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

namespace {

// The counters of a QP that grow when a request reaches it and is not executed.
std::uint64_t not_executed(const QpStats& s) {
  return s.duplicates_received + s.out_of_sequence_dropped + s.rnr_naks_sent + s.naks_error_sent +
         s.no_recv_wqe_dropped + s.remote_access_errors + s.uc_messages_dropped + s.qkey_violations;
}

}  // namespace

void VerbsFlow::Listener::on_completion(CqHandle cq, const ibv_wc& wc) {
  Side& s = flow->sides_[side];
  ibv_wc drain;
  while (s.hca->poll_cq(cq, 1, &drain) == 1) {
  }  // the application reads its CQ: keep it from filling up
  if (recv) flow->on_recv_completion(side, wc);
  else flow->on_send_completion(side, wc);
}

void VerbsFlow::on_send_completion(int side, const ibv_wc& wc) {
  if (window_ && window_send_completion(side, wc)) return;
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
  if (window_ && side == 0) window_after_message(wc);
  post_sends(side);
  if (ping_pong() && !s.stopped) post_sends(1 - side);
  progress();
}

void VerbsFlow::on_recv_completion(int side, const ibv_wc& wc) {
  if (window_ && window_recv_completion(side, wc)) return;
  Side& s = sides_[side];
  ++s.recv_status[wc.status];
  if (wc.status != IBV_WC_SUCCESS) {
    progress();
    return;
  }
  const std::uint32_t msg = spec_.message_size;
  const bool has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
  std::uint64_t idx = s.arrived;
  if (data_check_) {
    const std::uint64_t rslot = wc.wr_id % rslots();
    const std::uint64_t at = s.recv + rslot * recv_slot_bytes() + recv_head();
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
  if (srq_ && side == 1) {  // the buffer goes back to the server's SRQ
    if (spec_.recv_post_delay == 0) srq_->repost(wc.wr_id);
    else s.hca->schedule<&ServerSrq::repost>(ScheduledModule::now() + spec_.recv_post_delay, srq_, wc.wr_id);
  }
  if (s.recvs_posted < s.recvs_wanted) {
    if (spec_.recv_post_delay == 0) post_recvs(side, 1);
    else s.hca->schedule<&VerbsFlow::receives_due>(ScheduledModule::now() + spec_.recv_post_delay, this, side, 1);
  }
  if (ping_pong()) post_sends(side);
  progress();
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
  progress();
}

}  // namespace ibfsim
