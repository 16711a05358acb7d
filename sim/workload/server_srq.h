// A server's shared receive queue (transport/shared_receive_queue.h), as a server application
// using one sets it up: at the start it posts `max_wr` receive buffers to one SRQ on its HCA and
// arms the limit; every verbs flow with `srq: true` that targets this HCA creates its QP with the
// SRQ, and as each of its receives completes the flow gives the buffer back (after the flow's
// recv_post_delay). The limit event is heard once (the server does not re-arm it): its time is in
// the results. Receive WQE ids are buffer slots.
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/time.h"
#include "sim/transport/hca.h"
#include "sim/workload/srq_spec.h"

namespace ibfsim {

class ServerSrq : public AsyncEventListener {
 public:
  ServerSrq(Hca& hca, std::string host, const SrqSpec& spec);
  ServerSrq(const ServerSrq&) = delete;
  ServerSrq& operator=(const ServerSrq&) = delete;

  // A flow using it receives messages of up to `bytes` (UD: with the GRH's room). Before setup().
  void need_slot_bytes(std::uint32_t bytes);
  // Creates the SRQ, its buffers and posts them all; arms the limit. During elaboration, after
  // every flow said its size and before their QPs are created.
  void setup();

  verbs::PdHandle pd() const { return pd_; }
  verbs::SrqHandle handle() const { return srq_; }
  Hca& hca() { return hca_; }
  // A receive of one of its flows completed: buffer `slot` (its wr_id) is posted again now.
  void repost(std::uint64_t slot);

  void on_async_event(const verbs::ibv_async_event& e) override;

  // For the results (srq_statistics.h).
  const SrqSpec& spec() const { return spec_; }
  std::uint32_t slot_bytes() const { return slot_bytes_; }
  const SharedReceiveQueue& queue() const { return *hca_.srq(srq_); }
  std::uint64_t limit_events() const { return limit_events_; }
  Time limit_reached_at() const { return limit_reached_at_; }  // the first; kTimeNever if none

 private:
  Hca& hca_;
  std::string host_;
  SrqSpec spec_;
  std::uint32_t slot_bytes_ = 1;
  verbs::PdHandle pd_ = 0;
  verbs::SrqHandle srq_ = 0;
  std::uint64_t buffers_ = 0;
  std::uint32_t lkey_ = 0;
  std::uint64_t limit_events_ = 0;
  Time limit_reached_at_ = kTimeNever;
};

}  // namespace ibfsim
