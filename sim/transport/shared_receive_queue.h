// A shared receive queue (IBA Vol1 10.2.9, libibverbs ibv_create_srq / ibv_modify_srq /
// ibv_post_srq_recv): receive WQEs posted once and taken, in posting order, by whichever QP
// created with the SRQ receives a message that needs one (a SEND at its first packet, an RDMA
// WRITE with immediate at its last, a UD SEND), so many connections (a server's) share one pool
// of buffers. A QP holds the WQE it took until its message completes; an empty SRQ is met as an
// empty receive queue is (RC: RNR NAK; UC, UD: the message is dropped).
//
// The limit: ibv_modify_srq with IBV_SRQ_LIMIT arms it (srq_limit > 0; 0 disarms). The take that
// leaves fewer WQEs than the limit raises IBV_EVENT_SRQ_LIMIT_REACHED once and disarms it, and
// ibv_query_srq then reports srq_limit 0; the consumer re-arms it (after posting more) to hear of
// the next one. No SystemC: the QP that takes raises the event through its HCA.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>

#include "sim/transport/verbs.h"

namespace ibfsim {

// A posted receive work request and its total length.
struct ReceiveWqe {
  verbs::ibv_recv_wr wr;
  std::uint64_t len = 0;
};

class SharedReceiveQueue {
 public:
  // ibv_create_srq's attributes (max_wr >= 1, max_sge >= 1: checked by the caller; srq_limit is
  // ignored, as libibverbs says: the limit is armed only by modify).
  SharedReceiveQueue(verbs::SrqHandle handle, verbs::PdHandle pd, const verbs::ibv_srq_attr& attr);

  verbs::SrqHandle handle() const { return handle_; }
  verbs::PdHandle pd() const { return pd_; }
  // ibv_post_srq_recv: 0, EINVAL (more SGEs than max_sge) or ENOMEM (max_wr WQEs posted already).
  int post(const verbs::ibv_recv_wr& wr);
  // ibv_modify_srq: IBV_SRQ_MAX_WR resizes (not below the WQEs it holds), IBV_SRQ_LIMIT arms the
  // limit (below max_wr; 0 disarms). 0 or EINVAL (an unknown mask bit, a bad value: nothing changes).
  int modify(const verbs::ibv_srq_attr& attr, unsigned mask);
  // ibv_query_srq (srq_limit 0 when the limit is not armed).
  verbs::ibv_srq_attr query() const { return {max_wr_, max_sge_, limit_}; }
  // The oldest WQE for a QP's message, or nullopt when empty. `limit_reached` is set when this take
  // left fewer WQEs than the armed limit (which is then disarmed).
  std::optional<ReceiveWqe> take(bool& limit_reached);
  std::size_t size() const { return wqes_.size(); }

  // QPs created with it (ibv_destroy_srq is refused while there are any).
  void attach() { ++qps_; }
  std::uint32_t qps() const { return qps_; }

  // Counts: WQEs posted and taken, limit events raised.
  std::uint64_t posted() const { return posted_; }
  std::uint64_t taken() const { return taken_; }
  std::uint64_t limit_events() const { return limit_events_; }

 private:
  verbs::SrqHandle handle_;
  verbs::PdHandle pd_;
  std::uint32_t max_wr_, max_sge_;
  std::uint32_t limit_ = 0;  // armed when > 0
  std::deque<ReceiveWqe> wqes_;
  std::uint32_t qps_ = 0;
  std::uint64_t posted_ = 0, taken_ = 0, limit_events_ = 0;
};

}  // namespace ibfsim
