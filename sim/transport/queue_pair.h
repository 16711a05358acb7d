// A queue pair: its verbs-visible state and attributes, its send queue worked by the requester
// (requester.cpp: segmentation, PSNs, ACK/NAK handling, retransmission, timers) and its receive
// side worked by the responder (responder.cpp: PSN checks, duplicates, RNR, protection, RDMA
// READ responses, atomics, ACK coalescing). One class for RC, UC and UD, and for the UD QPs of the
// traffic generator too (make_generator); the type decides which rules apply. The QP knows
// nothing of SystemC: it talks to its HCA through TransportEnv.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/time.h"
#include "sim/transport/host_memory.h"
#include "sim/transport/memory_region.h"
#include "sim/transport/shared_receive_queue.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

class QueuePair;

// Per-QP counters: what the transport did to deliver (or why it did not). In brackets, the
// counter of Linux rxe (rxe_hw_counters) or mlx5 that counts the same.
struct QpStats {
  std::uint64_t packets_sent = 0, packets_retransmitted = 0;  // [sent_pkts]: new and sent again
  std::uint64_t acks_sent = 0, acks_received = 0;             // ACKs and atomic ACKs
  std::uint64_t naks_seq_sent = 0, naks_seq_received = 0;     // [rcvd_seq_err]: received
  std::uint64_t rnr_naks_sent = 0, rnr_naks_received = 0;     // [send_rnr_err], [rcvd_rnr_err]
  std::uint64_t naks_error_sent = 0, naks_error_received = 0; // invalid request, access, operational
  std::uint64_t ack_timeouts = 0;           // [local_ack_timeout_err] local ACK timer expiries
  std::uint64_t retry_exceeded = 0;         // [retry_exceeded_err] IBV_WC_RETRY_EXC_ERR completions
  std::uint64_t rnr_retry_exceeded = 0;     // [retry_rnr_exceeded_err] IBV_WC_RNR_RETRY_EXC_ERR
  std::uint64_t implied_naks = 0;           // [implied_nak_seq_err] a READ/atomic response found missing
  std::uint64_t stale_responses = 0;        // responses for nothing outstanding (late copies): ignored
  std::uint64_t duplicates_received = 0;    // [duplicate_request] requests behind ePSN (answered, never re-executed)
  std::uint64_t out_of_sequence_dropped = 0;  // [out_of_seq_request] ahead of ePSN (RC), after a PSN gap (UC)
  std::uint64_t uc_messages_dropped = 0;    // UC messages lost to a gap or a bad packet
  std::uint64_t qkey_violations = 0;        // UD Q_Key mismatch: silently dropped (Q_KeyViolations)
  std::uint64_t no_recv_wqe_dropped = 0;    // UD/UC: no receive posted
  std::uint64_t remote_access_errors = 0;   // requests rejected for R_Key, bounds or access rights
  // Out-of-order tolerant RC (rc_out_of_order.cpp), with TransportEnv::rc_out_of_order():
  std::uint64_t ooo_placed = 0;          // RDMA WRITE packets placed as they came, ahead of ePSN
  std::uint64_t ooo_held = 0;            // requests ahead of ePSN held until it reached them
  std::uint64_t ooo_read_responses = 0;  // RDMA READ response packets placed out of PSN order
};

// What a QP needs from its HCA.
class TransportEnv {
 public:
  virtual ~TransportEnv() = default;
  virtual Time now() const = 0;
  virtual HostMemory& memory() = 0;
  // The protection table: checked by requests, changed by binds and invalidations.
  virtual MrTable& mrs() = 0;
  virtual bool carry_payload() const = 0;
  // The QP has a packet to send: the HCA will call QueuePair::build_next when its port can take it.
  virtual void wake(QueuePair& qp) = 0;
  // (Re)arms the QP's timer of `kind` to fire at `at` (QueuePair::on_timer with this generation).
  virtual void arm_timer(QueuePair& qp, std::uint8_t kind, Time at, std::uint64_t generation) = 0;
  // Posts a work completion to the QP's send or receive CQ.
  virtual void complete(QueuePair& qp, bool send_side, const verbs::ibv_wc& wc) = 0;
  virtual Lid port_lid(PortNum port) const = 0;
  virtual std::uint16_t port_p_key(PortNum port, std::uint16_t index) const = 0;
  virtual std::uint8_t sl_to_vl(PortNum port, std::uint8_t sl) const = 0;
  virtual Grh port_grh_source(PortNum port) const = 0;  // SGID of the port
  // An affiliated asynchronous event (an SRQ's limit reached, ...) for the consumer.
  virtual void async_event(const verbs::ibv_async_event& e) = 0;
  // Out-of-order tolerant RC (rc_out_of_order.cpp) instead of go-back-N on PSN gaps.
  virtual bool rc_out_of_order() const { return false; }
};

class QueuePair {
 public:
  enum TimerKind : std::uint8_t { kAckTimer = 1, kRnrTimer = 2 };

  // `srq`: the SRQ named by init.srq (its receives come from there), or nullptr.
  QueuePair(TransportEnv& env, Qpn qpn, verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init,
            SharedReceiveQueue* srq = nullptr);

  // A UD QP of the traffic generator (Hca::create_ud_qp), in RTS on port 1 (P_Key index 0) with
  // Q_Key `q_key`. It sends the datagrams the generator posts (build_datagram), which the HCA
  // queues at once: injected at the wire, with no work request, doorbell, payload DMA or
  // completion. It takes every UD SEND that carries its Q_Key, with no receive WQE (the HCA's
  // receive engine checks them) and no QpStats. The verbs calls refuse it.
  static std::unique_ptr<QueuePair> make_generator(TransportEnv& env, Qpn qpn, std::uint32_t q_key);
  bool is_generator() const { return generator_; }
  // Whether what this generator QP receives carries the payload pattern (payload_pattern_byte),
  // which the receive engine checks; false for a QP whose senders give their own bytes (IPoIB).
  bool payload_pattern() const { return payload_pattern_; }
  void set_payload_pattern(bool on) { payload_pattern_ = on; }
  // Whether this verbs QP's SENDs carry their real bytes (gathered from host memory as sent,
  // scattered into the receive buffer as received) even where the HCA elides payloads (no data
  // checking): an IPoIB connected-mode QP, whose receiver reads the IP headers it sent.
  bool carries_bytes() const { return carry_bytes_ || env_.carry_payload(); }
  void set_carry_bytes(bool on) { carry_bytes_ = on; }
  // What the generator posts: a UD SEND Only of `bytes` to (dlid, dest_qp) carrying Q_Key `q_key`
  // (as given: controlled or not), on service level `sl`.
  struct Datagram {
    Lid dlid = 0;
    Qpn dest_qp = 0;
    std::uint32_t q_key = 0;
    std::uint32_t bytes = 0;
    std::uint8_t sl = 0;
    // The payload's bytes, given by the sender (an IPoIB interface's IP packet): carried whether
    // or not the HCA carries payload patterns. nullptr: the pattern, or elided.
    const std::uint8_t* payload = nullptr;
  };
  // Generator QPs: builds `d` into p at the QP's next PSN with the default P_Key 0xFFFF, on `vl`
  // (d.sl mapped by the QP's port) from `slid` (that port's LID), which the HCA's send engine has
  // at hand; `payload` as build_ud_send takes it (nullptr: elided). The bytes are those of a verbs
  // UD QP's SEND Only of the same fields.
  void build_datagram(Packet& p, const Datagram& d, std::uint8_t vl, Lid slid, const std::uint8_t* payload);

  Qpn qpn() const { return qpn_; }
  verbs::ibv_qp_type type() const { return init_.qp_type; }
  verbs::PdHandle pd() const { return pd_; }
  const verbs::ibv_qp_init_attr& init_attr() const { return init_; }
  const verbs::ibv_qp_attr& attr() const { return attr_; }
  verbs::ibv_qp_state state() const { return attr_.qp_state; }
  const QpStats& stats() const { return stats_; }
  PortNum port() const { return attr_.port_num; }
  std::uint32_t pmtu() const { return verbs::mtu_bytes(attr_.path_mtu); }
  // The VL its packets use (its SL mapped on its port): the HCA queues it per VL.
  std::uint8_t vl() const;

  // ibv_modify_qp: 0 or EINVAL (bad transition or attribute mask).
  int modify(const verbs::ibv_qp_attr& attr, unsigned mask);
  // ibv_post_send / ibv_post_recv: 0, EINVAL (bad WR; a receive on a QP with an SRQ) or ENOMEM
  // (queue full). `ready_at` is when the HCA sees the doorbell; `av` (UD) the address vector of
  // the WR's address handle, copied into the WQE.
  int post_send(const verbs::ibv_send_wr& wr, Time ready_at, const verbs::ibv_ah_attr* av = nullptr);
  int post_recv(const verbs::ibv_recv_wr& wr);
  SharedReceiveQueue* srq() const { return srq_; }

  // --- the HCA's side ---
  // True if build_next would produce a packet now.
  bool has_output() const;
  // Builds the next packet: a responder response first (ACK, NAK, READ response, atomic ACK),
  // else the requester's next request packet. Precondition: has_output().
  // Returns false if it produced nothing after all (the WQE failed its local checks).
  bool build_next(Packet& p);
  // Whether the packet build_next made last carries an IBV_SEND_INLINE payload: it came with the
  // doorbell, so the HCA reads nothing from host memory for it.
  bool last_built_inline() const { return built_inline_; }
  // A packet for this QP arrived on port `arrival` (headers parsed, CRCs, LIDs and P_Key checked by
  // the HCA). Returns why it was discarded unseen by the transport (a UD Q_Key violation; an RC or
  // UC packet not from the QP's peer), for the HCA to count as a drop; nullopt when the transport
  // took it (even to drop it by its own rules).
  std::optional<DropReason> receive(const ParsedPacket& pp, const Packet& p, PortNum arrival);
  // IBA Vol1 9.6.1.5: a connected QP (RC, UC) takes packets from its peer alone, on its own port:
  // the SLID must be its path's DLID and, with a GRH, the SGID its path's DGID (a GRH on a path
  // without one, or none on a path with one, fails too). Anything else is dropped silently, as the
  // qib and hfi1 drivers' ruc_check_hdr does: a host forging an SLID reaches no connection but
  // its victim's peer's, and then meets the PSN and R_Key checks.
  bool from_peer(const ParsedPacket& pp, PortNum arrival) const;
  // A packet this QP built has just started on the wire (at p.injected): an RC request starts
  // the local ACK timer if it is not running.
  void on_transmitted(const Packet& p);
  void on_timer(std::uint8_t kind, std::uint64_t generation);
  // Congestion control (becn_responder.h), around receive() of a FECN-marked request: offer_becn()
  // before it, so that a response it queues carries the BECN even when the HCA builds and sends
  // that response inside receive(); carry_becn() after it says whether a response took the BECN
  // (one queued by receive(), or one still owed from before: RC only); if not, the HCA sends a CNP.
  void offer_becn() { becn_offer_ = init_.qp_type == verbs::IBV_QPT_RC ? BecnOffer::kOffered : BecnOffer::kNone; }
  bool carry_becn();
  // The doorbell of a posted WQE rang: wake if it is the next to send.
  void on_doorbell();

 private:
  struct SendWqe {
    verbs::ibv_send_wr wr;
    std::uint64_t len = 0;
    std::uint32_t npkts = 1;  // PSNs it consumes
    Psn first_psn = 0;
    bool started = false;
    std::uint32_t done_pkts = 0;  // packets ACKed, or READ response packets received
    bool signaled = false;
    Time ready_at = 0;
    verbs::ibv_ah_attr av;  // UD: the address handle's, at post time
    std::vector<bool> got;  // out-of-order tolerant RC, READ: which response packets arrived
  };
  using RecvWqe = ReceiveWqe;
  // A response the responder owes (RC).
  struct Response {
    enum Kind : std::uint8_t { kAck, kNak, kRead, kAtomicAck } kind = kAck;
    Psn psn = 0;
    std::uint8_t syndrome = 0;
    std::uint64_t va = 0;  // READ: what to read
    std::uint32_t len = 0;
    std::uint32_t npkts = 0, sent = 0;
    std::uint64_t orig = 0;  // atomic: the original remote value
    bool becn = false;       // its next packet carries BECN (congestion control)
  };

  // requester.cpp
  bool requester_ready() const;
  bool build_request(Packet& p);
  // Starts WQE w (at send_idx_): its local protection checks and first PSN. False if a check
  // failed: the WQE completed in error and the QP went to error.
  bool start_request(SendWqe& w);
  // UD: the address vector of `w` into the LRH (and GRH), its destination QP and its DETH.
  void address_datagram(const SendWqe& w, TransportHeaders& h) const;
  // local_work_requests.cpp: a bind or local invalidation reached the head of the send queue:
  // executed (once: a go-back passes over it), completed at once if nothing is outstanding before
  // it, else when what is before it completes. Builds no packet. A refusal completes it in error
  // (IBV_WC_MW_BIND_ERR, IBV_WC_LOC_QP_OP_ERR) and moves the QP to error.
  void execute_local(SendWqe& w);
  // Completes the executed local WQEs now at the head of the send queue.
  void complete_local_front();
  void on_response(const ParsedPacket& pp, const Packet& p);
  // Cumulative ACK of everything <= psn; true if it found a READ/atomic whose response is
  // missing and went back to ask again.
  bool complete_through(Psn psn);
  bool complete_front(verbs::ibv_wc_status status);
  void go_back(Psn psn);
  // Runs the local ACK timer from `from` (default: now) if a request is outstanding, else stops it.
  void restart_ack_timer();
  void restart_ack_timer(Time from);
  Psn una() const;
  void gather(const SendWqe& w, std::uint64_t offset, std::uint32_t len, std::vector<std::uint8_t>& out);
  void scatter(const std::vector<verbs::ibv_sge>& sges, std::uint64_t offset, const std::uint8_t* data,
               std::uint32_t len);
  // A request's payload: its bytes (nullptr when elided) and whether they are in place already
  // (an RDMA WRITE packet placed as it arrived ahead of ePSN: rc_out_of_order.cpp).
  struct RequestPayload {
    std::uint32_t len = 0;
    const std::uint8_t* data = nullptr;
    bool placed = false;
  };
  // responder.cpp
  // Makes sure a receive WQE is at rq_'s front for the message arriving: the QP's own, or one
  // taken from its SRQ (which may raise the SRQ's limit event). False if there is none.
  bool take_receive();
  // The Last/Only packet of a SEND with Invalidate: invalidates the IETH's R_Key; false (and the
  // request refused) if the spec forbids it.
  bool invalidate_remote(const ParsedPacket& pp);
  std::optional<DropReason> receive_ud(const ParsedPacket& pp, const Packet& p);
  void receive_rc_uc(const ParsedPacket& pp, const Packet& p);
  // An RC or UC request at ePSN, by kind.
  void execute_request(const ParsedPacket& pp, const RequestPayload& payload);
  // RC/UC: whether the request carries ePSN. If not it is dealt with here: RC NAKs the first one
  // ahead and answers a duplicate (receive_duplicate); UC drops what follows a gap until a
  // First/Only, which it resynchronises on.
  bool in_sequence(const ParsedPacket& pp);
  // A request refused with `code`: RC NAKs it and goes to error; UC, which cannot NAK, drops the
  // message.
  void fail_request(Psn psn, NakCode code);
  // An in-sequence request by kind: RDMA READ, atomic, SEND or RDMA WRITE packet.
  void receive_read(const ParsedPacket& pp);
  void receive_atomic(const ParsedPacket& pp);
  void receive_send_write(const ParsedPacket& pp, const RequestPayload& payload);
  // The First/Only packet of a SEND (a receive WQE, else RNR) or WRITE (R_Key and access checks);
  // false if refused.
  bool start_message(const ParsedPacket& pp);
  // The Last/Only packet of a message is placed: the message ends, with a receive completion if it
  // consumes a receive WQE (`needs_recv`).
  void complete_message(const ParsedPacket& pp, bool needs_recv);
  void receive_duplicate(const ParsedPacket& pp);
  void queue_response(const Response& r);
  void nak(Psn psn, std::uint8_t syndrome, bool to_error);
  void build_response(Packet& p);
  std::size_t rd_atomic_pending() const;
  // rc_out_of_order.cpp: the responder's side (a request ahead of ePSN is held, RDMA WRITE data
  // placed at once when its message's RETH is known) and the requester's (READ responses placed
  // as they come; completions in order).
  bool out_of_order() const { return init_.qp_type == verbs::IBV_QPT_RC && env_.rc_out_of_order(); }
  void receive_rc_out_of_order(const ParsedPacket& pp, const Packet& p);
  // Places the WRITE data of held request `psn` if its message's RETH is known; true if placed.
  bool place_early(Psn psn);
  void clear_out_of_order();
  // queue_pair.cpp
  void fill_headers(TransportHeaders& h, std::uint8_t opcode, Psn psn) const;
  void enter_error();

  TransportEnv& env_;
  Qpn qpn_;
  verbs::PdHandle pd_;
  verbs::ibv_qp_init_attr init_;
  verbs::ibv_qp_attr attr_;
  QpStats stats_;

  // Requester.
  std::deque<SendWqe> sq_;
  std::size_t send_idx_ = 0;     // WQE being sent
  std::uint32_t send_pkt_ = 0;   // its next packet
  Psn next_psn_ = 0;             // PSN of the next new packet
  Psn sent_end_ = 0;             // one past the highest PSN ever sent (responses beyond it are bogus)
  std::size_t rd_atomic_out_ = 0;  // READ/atomic WQEs before send_idx_ not yet complete
  std::uint8_t retry_left_ = 0, rnr_left_ = 0;
  bool rnr_wait_ = false;
  bool resend_pending_ = false;  // went back; ignore out-of-order responses until progress
  std::uint64_t ack_timer_gen_ = 0, rnr_timer_gen_ = 0;
  bool ack_timer_armed_ = false;

  // Responder.
  SharedReceiveQueue* srq_ = nullptr;
  std::deque<RecvWqe> rq_;  // with an SRQ: the WQE taken for the message in progress, if any
  Psn epsn_ = 0;
  std::uint32_t msn_ = 0;
  bool nak_seq_sent_ = false;
  bool msg_active_ = false;      // a multi-packet message is in progress
  bool msg_send_ = false;        // SEND (else RDMA WRITE)
  bool msg_dropping_ = false;    // UC: dropping the rest of a message
  std::uint64_t msg_offset_ = 0;
  Psn msg_first_psn_ = 0;        // the First/Only PSN of the message in progress
  Reth msg_reth_;
  // Out-of-order tolerant RC: requests ahead of ePSN by PSN, and the RDMA WRITEs whose First
  // arrived ahead of ePSN (where their packets go; ok: their R_Key and access passed).
  struct HeldRequest {
    ParsedPacket pp;
    std::uint32_t len = 0;
    std::vector<std::uint8_t> data;  // empty when payloads are elided
    bool placed = false;
  };
  std::map<Psn, HeldRequest> held_;
  struct WriteSpan {
    Psn first = 0;
    std::uint32_t npkts = 0;
    Reth reth;
  };
  std::vector<WriteSpan> write_spans_;
  // Requester: the highest PSN known acknowledged (an ACK, a READ wholly answered) while an
  // earlier READ or atomic waits for responses still on their way (valid with ooo_acked_valid_).
  Psn ooo_acked_ = 0;
  bool ooo_acked_valid_ = false;
  std::deque<Response> responses_;
  enum class BecnOffer : std::uint8_t { kNone, kOffered, kTaken } becn_offer_ = BecnOffer::kNone;
  struct SavedAtomic {
    Psn psn = 0;
    std::uint64_t orig = 0;
    bool valid = false;
  };
  std::array<SavedAtomic, 16> saved_atomics_{};
  std::size_t saved_next_ = 0;
  std::vector<std::uint8_t> scratch_;
  bool built_inline_ = false;
  bool generator_ = false;
  bool payload_pattern_ = true;
  bool carry_bytes_ = false;
};

}  // namespace ibfsim
