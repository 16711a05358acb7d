// One connection's Communication Manager state machine (IBA Vol1 12.9), pure: it takes the CM
// MADs that arrive for it, its own timer's expiry and the consumer's calls, and says what to do
// (MADs to send, the timer to arm, the QP transitions to make). The shell that owns time and the
// wire (and the QP) acts on it; nothing here reads a clock.
//
// Active side:  Idle -connect-> REQ Sent -REP-> (QP RTR, RTS; RTU sent) Established.
// Passive side: Idle -REQ-> (QP RTR; REP sent) REP Sent -RTU-> (QP RTS) Established.
// Either side:  Established -disconnect-> DREQ Sent -DREP-> TimeWait -timer-> Idle;
//               Established -DREQ-> (DREP sent) TimeWait -timer-> Idle.
// Timeouts (12.4.1): the REQ's sender waits RemoteCMResponseTimeout + 2 x PacketLifeTime for the
// REP, the REP's sender LocalCMResponseTimeout + 2 x PacketLifeTime for the RTU, the DREQ's sender
// RemoteCMResponseTimeout + 2 x PacketLifeTime for the DREP; on expiry the message is sent again,
// at most MaxCMRetries times, then a REQ or REP that got no answer ends in a REJ (reason Timeout)
// and Idle, a DREQ in TimeWait. An MRA stretches the wait to its ServiceTimeout + 2 x
// PacketLifeTime (without counting a retry). A duplicate REQ in REP Sent is answered by the REP
// again, a duplicate REP in Established by the RTU again (their first answers were lost); a REQ
// for a connection given up on is answered REJ, Stale Connection. A REJ ends the attempt. TimeWait lasts 2 x PacketLifeTime.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/time.h"
#include "sim/subnet_manager/cm/cm_messages.h"

namespace ibfsim {

enum class CmState : std::uint8_t { kIdle, kReqSent, kReqRcvd, kRepSent, kEstablished, kDreqSent, kTimeWait };
const char* cm_state_name(CmState s);

// What the QP must do now (verbs ibv_modify_qp): to RTR with the remote QPN and PSN, to RTS with
// the local send PSN.
enum class CmQpStep : std::uint8_t { kToRtr, kToRts, kToError };
struct CmQpTransition {
  CmQpStep step = CmQpStep::kToRtr;
  Qpn remote_qpn = 0;
  std::uint32_t remote_psn = 0;  // RTR: the peer's starting PSN (our expected PSN)
  // RTR: the primary path as this end sees it (the peer's LID, the SL, the path MTU code), from
  // the REQ this end sent or received.
  Lid remote_lid = 0;
  std::uint8_t sl = 0;
  std::uint8_t path_mtu = 0;
};

enum class CmEvent : std::uint8_t { kNone, kEstablished, kRejected, kTimedOut, kDisconnected };

struct CmOutput {
  std::vector<Mad> send;               // in order
  std::optional<Time> arm_timer;       // from now; replaces any armed timer
  bool cancel_timer = false;
  std::vector<CmQpTransition> qp;      // in order, before the MADs are sent
  CmEvent event = CmEvent::kNone;      // what the consumer learns
};

// What this end offers or accepts.
struct CmLocal {
  std::uint32_t comm_id = 0;
  Guid ca_guid = 0;
  Qpn qpn = 0;
  std::uint32_t starting_psn = 0;
  std::uint8_t responder_resources = 16, initiator_depth = 16;
  std::uint8_t cm_response_timeout = 20;  // 4.096 us x 2^n: how long this end takes to answer
  std::uint8_t max_cm_retries = 15;
  bool srq = false;  // this end's QP takes its receives from an SRQ (the REQ's or REP's SRQ bit)
};

class CmConnection {
 public:
  explicit CmConnection(CmLocal local, Time packet_life) : local_(local), packet_life_(packet_life) {}

  // Active side: sends `req` (its comm ID, QPN, PSN, timeouts and retries from CmLocal).
  CmOutput connect(CmReq req);
  // A CM MAD for this connection.
  CmOutput on_mad(const Mad& mad);
  // The timer armed by the last output ran out.
  CmOutput on_timer();
  // Either side, Established: sends a DREQ.
  CmOutput disconnect();

  CmState state() const { return state_; }
  unsigned retries() const { return retries_; }
  std::uint32_t remote_comm_id() const { return remote_comm_id_; }
  Qpn remote_qpn() const { return remote_qpn_; }
  std::uint64_t transaction_id() const { return tid_; }
  std::uint16_t reject_reason() const { return reject_reason_; }  // of the REJ received; 0: none
  unsigned mras_received() const { return mras_received_; }
  // The peer's LID on the primary path (after connect or a REQ).
  Lid path_remote_lid() const { return path_remote_lid_; }

 private:
  CmOutput on_req(const CmReq& req, const Mad& mad);
  CmOutput resend_or_give_up();
  Time wait(std::uint8_t response_timeout) const { return cm_timeout(response_timeout) + 2 * packet_life_; }
  CmQpTransition to_rtr(Qpn qpn, std::uint32_t psn) const {
    return {CmQpStep::kToRtr, qpn, psn, path_remote_lid_, path_sl_, path_mtu_};
  }

  CmLocal local_;
  Time packet_life_;
  CmState state_ = CmState::kIdle;
  std::uint32_t remote_comm_id_ = 0;
  Qpn remote_qpn_ = 0;
  std::uint8_t remote_response_timeout_ = 0;  // the peer's CM response timeout
  std::uint8_t max_retries_ = 0;
  unsigned retries_ = 0;
  std::uint16_t reject_reason_ = 0;
  unsigned mras_received_ = 0;
  Lid path_remote_lid_ = 0;  // the primary path of the REQ, as this end sees it
  std::uint8_t path_sl_ = 0, path_mtu_ = 0;
  std::uint64_t tid_ = 0;
  Mad last_sent_{};  // what a timeout sends again
};

}  // namespace ibfsim
