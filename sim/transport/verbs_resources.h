// The verbs resources of an HCA (verbs.h): its host memory, protection domains, the protection
// table of memory regions and windows (memory_region.h), completion queues, shared receive queues
// (shared_receive_queue.h), address handles, the asynchronous event queue (async_events.h), and
// the QP table, which holds every QP of the HCA: verbs QPs and the traffic generator's UD QPs alike
// (queue_pair.h), numbered from kFirstQpn. A posted send's doorbell reaches its QP
// doorbell_to_wire after the post; a work completion, and an asynchronous event, becomes visible
// wire_to_completion after its cause, in the order the QPs post them. The QPs' ACK and RNR timers
// are events here too.
#pragma once
#include <string>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/time.h"
#include "sim/transport/async_events.h"
#include "sim/transport/completion_queue.h"
#include "sim/transport/host_memory.h"
#include "sim/transport/memory_region.h"
#include "sim/transport/queue_pair.h"
#include "sim/transport/shared_receive_queue.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

class Hca;

class VerbsResources {
 public:
  // QPNs are handed out from here upward: QP0 and QP1 are the management QPs (hca_management.h).
  static constexpr Qpn kFirstQpn = 0x100;

  explicit VerbsResources(Hca& hca) : hca_(hca) {}
  // Its name in event traces: the HCA's, and the block's.
  std::string name() const;
  VerbsResources(const VerbsResources&) = delete;
  VerbsResources& operator=(const VerbsResources&) = delete;

  HostMemory& memory() { return memory_; }
  const MrTable& mrs() const { return mrs_; }
  MrTable& mrs() { return mrs_; }
  void set_memory_key_mode(MemoryKeyMode mode, RngStream rng) { mrs_.set_key_mode(mode, rng); }
  verbs::PdHandle alloc_pd() { return ++pds_; }
  std::optional<verbs::ibv_mr> reg_mr(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access);
  // Memory (verbs_memory.cpp, Hca has the documentation).
  int rereg_mr(verbs::ibv_mr& mr, unsigned flags, verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length,
               unsigned access);
  int dereg_mr(const verbs::ibv_mr& mr) { return mrs_.dereg(mr.lkey); }
  std::optional<verbs::ibv_mw> alloc_mw(verbs::PdHandle pd, verbs::ibv_mw_type type);
  int dealloc_mw(const verbs::ibv_mw& mw) { return mrs_.dealloc_mw(mw.handle); }
  int bind_mw(QueuePair& q, verbs::ibv_mw& mw, const verbs::ibv_mw_bind& bind);
  verbs::CqHandle create_cq(std::uint32_t cqe);
  CompletionQueue& cq(verbs::CqHandle h) { return *cqs_.at(h - 1); }

  // Shared receive queues and address handles (verbs_sharing.cpp; Hca has the documentation).
  verbs::SrqHandle create_srq(verbs::PdHandle pd, const verbs::ibv_srq_init_attr& init);
  SharedReceiveQueue* srq(verbs::SrqHandle h) const {
    return h >= 1 && h <= srqs_.size() ? srqs_[h - 1].get() : nullptr;
  }
  int destroy_srq(verbs::SrqHandle h);
  verbs::AhHandle create_ah(verbs::PdHandle pd, const verbs::ibv_ah_attr& attr);
  int destroy_ah(verbs::AhHandle h);
  // The live address handle `h`: its PD and address vector, or nullptr.
  struct AddressHandle {
    verbs::PdHandle pd = 0;
    verbs::ibv_ah_attr attr;
    bool live = false;
  };
  const AddressHandle* ah(verbs::AhHandle h) const {
    return h >= 1 && h <= ahs_.size() && ahs_[h - 1].live ? &ahs_[h - 1] : nullptr;
  }
  AsyncEventQueue& async_events() { return async_events_; }
  const AsyncEventQueue& async_events() const { return async_events_; }

  // A verbs QP; nullptr if the attributes are invalid (unknown PD, CQ or SRQ, unsupported type).
  QueuePair* create_qp(verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init);
  // A traffic generator's UD QP with Q_Key `q_key` (QueuePair::make_generator).
  Qpn create_generator_qp(std::uint32_t q_key);
  // QP `qpn`, or nullptr: looked up for every packet received, so an index, no search.
  QueuePair* find(Qpn qpn) const {
    return qpn >= kFirstQpn && qpn - kFirstQpn < qps_.size() ? qps_[qpn - kFirstQpn].qp.get() : nullptr;
  }
  // Set while QP q waits in its port's send engine for its turn (send_engine.h keeps it).
  std::uint8_t& in_ring(const QueuePair& q) { return qps_[q.qpn() - kFirstQpn].in_ring; }
  // Attaches QP `qpn` to multicast group `mlid` (Hca::join_multicast).
  void join_multicast(Lid mlid, Qpn qpn) { mcast_qp_[mlid] = qpn; }
  // The QP attached to group `mlid`, or nullptr if the HCA has not joined it.
  const Qpn* multicast_qp(Lid mlid) const {
    const auto it = mcast_qp_.find(mlid);
    return it == mcast_qp_.end() ? nullptr : &it->second;
  }

  // The verbs calls of Hca (0 or an errno value). A generator QP takes none of them: EINVAL.
  int modify_qp(QueuePair& q, const verbs::ibv_qp_attr& attr, unsigned mask);
  int post_send(QueuePair& q, const verbs::ibv_send_wr& wr);
  int post_recv(QueuePair& q, const verbs::ibv_recv_wr& wr);
  // Sum of every QP's counters (a generator QP counts nothing: it bypasses the transport).
  QpStats qp_stats() const;

  // TransportEnv::arm_timer, complete and async_event, for the HCA.
  void arm_timer(QueuePair& q, std::uint8_t kind, Time at, std::uint64_t generation);
  void complete(QueuePair& q, bool send_side, const verbs::ibv_wc& wc);
  void async_event(const verbs::ibv_async_event& e);

  // --- events (event.h) ---
  // A posted work request's doorbell reaches QP `qpn`.
  void doorbell(Qpn qpn);
  // Timer `kind` of QP `qpn` expired; stale if the QP re-armed it since (another generation).
  struct QpTimer {
    std::uint64_t generation;
    Qpn qpn;
    std::uint8_t kind;
  };
  void qp_timer(QpTimer t);
  // The earliest pending completion is due.
  void completion_due();
  // The earliest pending asynchronous event is due.
  void async_event_due();

 private:
  struct QpSlot {
    std::unique_ptr<QueuePair> qp;
    std::uint8_t in_ring = 0;
  };
  struct PendingCompletion {
    Time at;
    verbs::CqHandle cq;
    verbs::ibv_wc wc;
  };

  Hca& hca_;
  HostMemory memory_;
  MrTable mrs_;
  verbs::PdHandle pds_ = 0;
  std::vector<std::unique_ptr<CompletionQueue>> cqs_;
  std::vector<std::unique_ptr<SharedReceiveQueue>> srqs_;  // handle i + 1; destroyed: null
  std::vector<AddressHandle> ahs_;                          // handle i + 1
  AsyncEventQueue async_events_;
  std::vector<QpSlot> qps_;      // QPN kFirstQpn + i
  std::map<Lid, Qpn> mcast_qp_;  // multicast groups joined, and the QP attached
  std::deque<PendingCompletion> completions_;  // in time order: the latency is the same for all
};

}  // namespace ibfsim
