// Out-of-order tolerant RC (hca_model.rc_out_of_order, docs/verbs.md), as HCAs made for adaptive
// routing do it: packets of a connection that take different paths may arrive out of PSN order,
// and without this the responder takes each early one for a lost predecessor (NAK PSN sequence
// error, go-back-N: everything from ePSN is sent again).
//
// Responder: a request ahead of ePSN (up to kReorderWindow PSNs) is held, not NAKed. An RDMA
// WRITE packet is placed in memory as it arrives when its message's RETH is known (its First
// arrived, early or in order): at the RETH's VA plus (PSN - First's PSN) x PMTU, after the same
// R_Key, access, length and bounds checks the in-order path makes; otherwise its payload waits
// with it and is placed once the First comes. Everything with an effect beyond placing data runs
// in PSN order, as the specification requires, when ePSN reaches the request: a SEND's data and
// receive completion, a WRITE's end (the ACK, a WRITE with immediate's completion), RDMA READs
// and atomics (executed once, in order). The ACK therefore covers a message only once all its
// packets are in. A request beyond the window is dropped with one NAK, as before. A packet lost
// for good is recovered by the requester's ACK timeout (go back to the oldest unacknowledged PSN;
// what the responder holds already is a duplicate then).
//
// Requester: RDMA READ response packets are placed by their PSN's offset as they come; the READ
// completes when all have arrived. An ACK (or a later READ's response) that overtakes a READ's or
// atomic's missing responses is remembered, not taken for their loss (no implied NAK): the work
// requests complete in order once those responses are in.
#include <algorithm>
#include <cstring>

#include "sim/transport/psn.h"
#include "sim/transport/queue_pair.h"

namespace ibfsim {

using namespace verbs;

namespace {

// How far ahead of ePSN a request is held (PSNs).
constexpr std::int32_t kReorderWindow = 8192;

bool is_write(std::uint8_t o) { return o >= op::kRdmaWriteFirst && o <= op::kRdmaWriteOnlyImm; }
bool is_write_first_or_only(std::uint8_t o) {
  return o == op::kRdmaWriteFirst || o == op::kRdmaWriteOnly || o == op::kRdmaWriteOnlyImm;
}
bool is_write_last_or_only(std::uint8_t o) {
  return o == op::kRdmaWriteLast || o == op::kRdmaWriteLastImm || o == op::kRdmaWriteOnly || o == op::kRdmaWriteOnlyImm;
}

}  // namespace

void QueuePair::clear_out_of_order() {
  held_.clear();
  write_spans_.clear();
  ooo_acked_valid_ = false;
}

bool QueuePair::place_early(Psn psn) {
  HeldRequest& h = held_.at(psn);
  const std::uint8_t o = opcode_operation(h.pp.h.bth.opcode);
  if (h.placed || !is_write(o)) return h.placed;
  // The message it belongs to: one whose First arrived ahead, or the one in progress.
  const WriteSpan* span = nullptr;
  WriteSpan current{msg_first_psn_, 0, msg_reth_};
  for (const WriteSpan& s : write_spans_) {
    const std::int32_t k = psn_diff(psn, s.first);
    if (k >= 0 && static_cast<std::uint32_t>(k) < s.npkts) span = &s;
  }
  if (!span && msg_active_ && !msg_send_) {
    current.npkts = std::max<std::uint32_t>(1, (msg_reth_.dma_len + pmtu() - 1) / pmtu());
    const std::int32_t k = psn_diff(psn, current.first);
    if (k >= 0 && static_cast<std::uint32_t>(k) < current.npkts) span = &current;
  }
  if (!span) return false;
  const std::uint64_t offset = std::uint64_t{static_cast<std::uint32_t>(psn_diff(psn, span->first))} * pmtu();
  // The checks the in-order path makes (R24 and the region's bounds); a packet failing them waits
  // for ePSN, where it is refused.
  const bool last = is_write_last_or_only(o);
  if (last ? h.len > pmtu() : h.len != pmtu()) return false;
  if (offset + h.len > span->reth.dma_len) return false;
  if (env_.carry_payload() && !h.data.empty())
    std::memcpy(env_.memory().bytes(span->reth.va + offset, h.len), h.data.data(), h.len);
  h.placed = true;
  h.data.clear();
  h.data.shrink_to_fit();
  ++stats_.ooo_placed;
  return true;
}

void QueuePair::receive_rc_out_of_order(const ParsedPacket& pp, const Packet& p) {
  const Psn psn = pp.h.bth.psn;
  const std::int32_t d = psn_diff(psn, epsn_);
  if (d < 0) return receive_duplicate(pp);
  if (d >= kReorderWindow) {
    // Beyond what the responder holds: as without reordering, one NAK, then silence.
    ++stats_.out_of_sequence_dropped;
    if (!nak_seq_sent_) {
      ++stats_.naks_seq_sent;
      nak_seq_sent_ = true;
      nak(epsn_, nak_syndrome(NakCode::kPsnSequenceError), false);
    }
    return;
  }
  if (d > 0) {
    if (held_.count(psn)) {
      ++stats_.duplicates_received;
      return;
    }
    HeldRequest& h = held_[psn];
    h.pp = pp;
    h.len = p.payload_len;
    if (env_.carry_payload() && !p.payload.empty()) h.data.assign(p.payload.begin(), p.payload.begin() + p.payload_len);
    const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
    // Not through a window: a SEND with Invalidate ahead of it in PSN order may yet take the window
    // away, and the WRITE must then fail with memory unchanged.
    if (is_write_first_or_only(o) && (attr_.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) &&
        !env_.mrs().names_window(pp.h.reth.r_key) &&
        env_.mrs().check_remote(pp.h.reth.r_key, pd_, qpn_, pp.h.reth.va, pp.h.reth.dma_len,
                                IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk) {
      // Its message's packets can go in place now, those held already included.
      write_spans_.push_back(
          WriteSpan{psn, std::max<std::uint32_t>(1, (pp.h.reth.dma_len + pmtu() - 1) / pmtu()), pp.h.reth});
      for (auto it = held_.begin(); it != held_.end(); ++it) place_early(it->first);
    } else if (!place_early(psn)) {
      ++stats_.ooo_held;
    }
    return;
  }
  // At ePSN: this request, then every held one ePSN reaches, in order.
  nak_seq_sent_ = false;
  execute_request(pp, RequestPayload{p.payload_len, p.payload.empty() ? nullptr : p.payload.data(), false});
  for (auto it = held_.find(epsn_); it != held_.end() && attr_.qp_state != IBV_QPS_ERR; it = held_.find(epsn_)) {
    const HeldRequest h = std::move(it->second);
    held_.erase(it);
    const Psn before = epsn_;
    execute_request(h.pp, RequestPayload{h.len, h.data.empty() ? nullptr : h.data.data(), h.placed});
    if (epsn_ == before) break;  // not taken (RNR NAK): it comes again
  }
  // Messages wholly behind ePSN need no span any more.
  write_spans_.erase(std::remove_if(write_spans_.begin(), write_spans_.end(),
                                    [&](const WriteSpan& s) { return psn_diff(psn_add(s.first, s.npkts), epsn_) <= 0; }),
                     write_spans_.end());
}

}  // namespace ibfsim
