// One TCP connection (RFC 9293) as a pure state machine: plain data in (the application's writes,
// segments received, the time), segments and one timer deadline out; no SystemC. Whatever carries
// the segments (workload/ipoib_tcp_flow.h over IPoIB datagram mode) schedules on_timer at
// next_timer() and sends take_output().
//   - Open: three-way handshake; the SYNs carry MSS, window scale and SACK-permitted; the MSS used
//     is the smaller of the two advertised, the scales apply when both sides sent one, SACK when
//     both permitted it. A SYN unanswered within the RTO is sent again (backed off). No FIN: a
//     connection runs until the simulation ends.
//   - Sending (RFC 5681): initial window 10 segments, slow start (cwnd += min(acked, SMSS) per
//     ACK), congestion avoidance (cwnd += SMSS x SMSS / cwnd per ACK); at most min(cwnd, the
//     peer's window) in flight; a segment shorter than SMSS only when nothing is outstanding
//     (Nagle). No limited transmit.
//   - Loss recovery (RFC 6675, simplified as tcp_scoreboard.h says; RFC 6582 partial ACKs): on
//     DupThresh duplicate ACKs, or when SACKs mark the first segment lost, ssthresh = cwnd =
//     max(FlightSize / 2, 2 SMSS), the first hole is retransmitted at once, and while cwnd - pipe
//     >= SMSS the next lost segment, else new data, is sent; recovery ends with an ACK at or past
//     the highest position sent when it began. cwnd does not grow during recovery.
//   - Retransmission timeout (RFC 6298; tcp_rtt_estimator.h): one timed segment per round trip,
//     none retransmitted (Karn); on expiry ssthresh = max(FlightSize / 2, 2 SMSS), cwnd = 1 SMSS,
//     the RTO doubles, every unSACKed segment counts as lost and they are resent in order, in
//     slow start.
//   - Receiving: out-of-order segments are kept (tcp_reassembly.h) and answered at once with SACK
//     blocks, as are duplicates and a segment that fills a hole; in-order data is ACKed every
//     second full-sized segment, or when the delayed-ACK timer (40 ms) fires. The application
//     reads at once: the window is the receive buffer less the out-of-order bytes.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/transport/tcp/tcp_config.h"
#include "sim/transport/tcp/tcp_reassembly.h"
#include "sim/transport/tcp/tcp_rtt_estimator.h"
#include "sim/transport/tcp/tcp_scoreboard.h"

namespace ibfsim {

class TcpConnection {
 public:
  enum class State { kClosed, kListen, kSynSent, kSynReceived, kEstablished };

  TcpConnection(TcpConfig config, std::uint16_t local_port, std::uint16_t remote_port);

  void connect(Time now);  // active open: sends the SYN
  void listen();           // passive open
  // The application writes `bytes`; returns how many the send buffer took (the rest is the
  // application's to offer again when there is room).
  std::uint64_t write(Time now, std::uint64_t bytes);
  void on_segment(Time now, const TcpSegment& s);
  void on_timer(Time now);    // does whatever is due at `now` (an early or stale call does nothing)
  Time next_timer() const;    // the earliest deadline (retransmission or delayed ACK), or kTimeNever
  std::vector<TcpSegment> take_output();  // the segments to send, in order

  State state() const { return state_; }
  bool established() const { return state_ == State::kEstablished; }
  std::uint64_t send_buffer_room() const;
  std::uint64_t bytes_acked() const;      // data bytes the peer acknowledged
  std::uint64_t bytes_delivered() const;  // data bytes received in order (read by the application)
  std::uint64_t cwnd() const { return cwnd_; }
  std::uint64_t ssthresh() const { return ssthresh_; }
  std::uint32_t smss() const { return smss_; }
  bool in_recovery() const { return in_recovery_; }
  std::uint64_t pipe() const { return board_.pipe(); }
  const TcpRttEstimator& rtt() const { return rtt_; }
  Time rto_deadline() const { return rto_at_; }
  std::uint8_t receive_window_scale() const { return rcv_wscale_; }
  const TcpStats& stats() const { return stats_; }

 private:
  // Positions: 0 is the SYN, data byte i is at 1 + i; the wire carries ISN + position mod 2^32.
  std::uint32_t wire(std::uint32_t isn, std::uint64_t pos) const { return static_cast<std::uint32_t>(isn + pos); }
  std::uint64_t unwrap(std::uint32_t isn, std::uint64_t near, std::uint32_t w) const;
  TcpSegment make(std::uint8_t flags, std::uint64_t seq_pos, std::uint32_t data_bytes) const;
  void send_syn(bool ack);
  void send_ack();
  void learn_options(const TcpHeader& h);
  void established_at(Time now);
  void on_ack(Time now, const TcpHeader& h, bool carries_data);
  void new_ack(Time now, std::uint64_t ack);
  void enter_recovery(Time now);
  void on_data(Time now, std::uint64_t start, std::uint32_t len, const TcpHeader& h);
  void try_send(Time now);
  void send_data(Time now, std::uint64_t start, std::uint64_t end, bool retransmission);
  void rto_expired(Time now);
  void arm_rto(Time now) { rto_at_ = now + rtt_.rto(); }
  std::uint16_t window_field(bool syn) const;
  std::uint64_t flight() const { return snd_nxt_ - snd_una_; }

  TcpConfig cfg_;
  std::uint16_t local_port_, remote_port_;
  State state_ = State::kClosed;
  std::vector<TcpSegment> out_;
  TcpStats stats_;
  // Sender.
  std::uint32_t smss_;
  std::uint64_t snd_una_ = 0, snd_nxt_ = 0, app_end_ = 1;  // app_end_: after the last byte written
  std::uint64_t snd_wnd_ = 0;
  std::uint8_t snd_wscale_ = 0, rcv_wscale_ = 0;
  bool wscale_ok_ = false, sack_ok_ = false;
  std::uint64_t cwnd_ = 0, ssthresh_;
  std::uint32_t dupacks_ = 0;
  bool in_recovery_ = false;
  std::uint64_t recovery_point_ = 0;
  TcpScoreboard board_;
  TcpRttEstimator rtt_;
  Time rto_at_ = kTimeNever;
  bool cwnd_limited_ = false;  // the last send stopped at cwnd (cwnd grows only then)
  bool timing_ = false;        // a segment is timed (RTT sample)
  std::uint64_t timed_end_ = 0;
  Time timed_at_ = 0;
  // Receiver.
  std::uint32_t irs_ = 0;
  TcpReassembly rcv_;
  std::uint32_t unacked_full_ = 0;  // full-sized in-order segments since the last ACK sent
  Time delack_at_ = kTimeNever;
};

}  // namespace ibfsim
