// The work requests a QueuePair executes without sending a packet (IBA Vol1 10.6.7, libibverbs
// IBV_WR_BIND_MW and IBV_WR_LOCAL_INV): a memory window's bind and a local invalidation. They
// take their turn in the send queue, in order with the requests around them: executed when the
// send engine comes to them (the doorbell having rung), their completion posted at once if
// nothing is outstanding before them, else when what is before them completes (the send queue
// completes in order). A request sent after a bind meets the window bound; one sent before it, or
// a retransmission of one, met it as it was.
#include "sim/transport/queue_pair.h"

namespace ibfsim {

using namespace verbs;

void QueuePair::execute_local(SendWqe& w) {
  if (w.started) {
    // Executed already: a go-back is resending the requests before it.
    ++send_idx_;
    send_pkt_ = 0;
    return;
  }
  MrTable& table = env_.mrs();
  const bool bind = w.wr.opcode == IBV_WR_BIND_MW;
  const MwResult r = bind ? table.bind_mw(w.wr.bind_mw.mw, {w.wr.bind_mw.rkey, w.wr.bind_mw.bind_info, pd_, qpn_})
                          : table.invalidate(w.wr.invalidate_rkey, pd_, qpn_, false);
  if (r != MwResult::kOk) {
    // The QP goes to error; this WQE completes in error, the rest are flushed.
    ibv_wc wc;
    wc.wr_id = w.wr.wr_id;
    wc.status = bind ? IBV_WC_MW_BIND_ERR : IBV_WC_LOC_QP_OP_ERR;
    wc.opcode = wc_opcode(w.wr.opcode);
    wc.qp_num = qpn_;
    sq_.erase(sq_.begin() + static_cast<std::ptrdiff_t>(send_idx_));
    env_.complete(*this, true, wc);
    enter_error();
    return;
  }
  w.started = true;
  w.first_psn = next_psn_;  // consumes no PSN: an ACK of the requests before it covers it
  ++send_idx_;
  send_pkt_ = 0;
  if (init_.qp_type != IBV_QPT_RC) {
    complete_front(IBV_WC_SUCCESS);  // UC: nothing is ever outstanding
    send_idx_ = 0;
    return;
  }
  complete_local_front();
}

void QueuePair::complete_local_front() {
  const SendWqe* front = sq_.empty() ? nullptr : &sq_.front();
  if (front && send_idx_ > 0 && front->started && front->npkts == 0 &&
      (front->wr.opcode == IBV_WR_BIND_MW || front->wr.opcode == IBV_WR_LOCAL_INV))
    complete_front(IBV_WC_SUCCESS);  // which completes the next one, if local too
}

}  // namespace ibfsim
