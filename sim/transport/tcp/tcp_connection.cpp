#include "sim/transport/tcp/tcp_connection.h"

#include <algorithm>

namespace ibfsim {

TcpConnection::TcpConnection(TcpConfig c, std::uint16_t local_port, std::uint16_t remote_port)
    : cfg_(c),
      local_port_(local_port),
      remote_port_(remote_port),
      smss_(c.mss),
      ssthresh_(c.initial_ssthresh),
      rtt_(c.rto_initial, c.rto_min, c.rto_max, c.clock_granularity) {
  // The smallest scale that lets the 16-bit field carry the whole receive buffer (RFC 7323: 14 at most).
  while (rcv_wscale_ < 14 && (cfg_.receive_buffer >> rcv_wscale_) > 0xFFFF) ++rcv_wscale_;
}

std::uint64_t TcpConnection::unwrap(std::uint32_t isn, std::uint64_t near, std::uint32_t w) const {
  const auto d = static_cast<std::int32_t>(w - wire(isn, near));
  if (d < 0 && static_cast<std::uint64_t>(-static_cast<std::int64_t>(d)) > near) return 0;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(near) + d);
}

std::uint16_t TcpConnection::window_field(bool syn) const {
  const std::uint64_t held = rcv_.out_of_order_bytes();
  const std::uint64_t win = cfg_.receive_buffer > held ? cfg_.receive_buffer - held : 0;
  const std::uint64_t field = syn || !wscale_ok_ ? win : win >> rcv_wscale_;  // a SYN's is never scaled
  return static_cast<std::uint16_t>(std::min<std::uint64_t>(field, 0xFFFF));
}

TcpSegment TcpConnection::make(std::uint8_t flags, std::uint64_t seq_pos, std::uint32_t data_bytes) const {
  TcpSegment s;
  TcpHeader& h = s.header;
  h.src_port = local_port_;
  h.dst_port = remote_port_;
  h.seq = wire(cfg_.isn, seq_pos);
  h.flags = flags;
  if (flags & kTcpAck) h.ack = wire(irs_, rcv_.next());
  h.window = window_field(flags & kTcpSyn);
  if (sack_ok_ && (flags & kTcpAck) && !(flags & kTcpSyn))
    for (const auto& [l, r] : rcv_.sack_blocks(kTcpMaxSackBlocks)) h.sack.push_back({wire(irs_, l), wire(irs_, r)});
  s.data_bytes = data_bytes;
  return s;
}

void TcpConnection::send_syn(bool ack) {
  TcpSegment s = make(static_cast<std::uint8_t>(kTcpSyn | (ack ? kTcpAck : 0)), 0, 0);
  s.header.mss = static_cast<std::uint16_t>(cfg_.mss);
  // A SYN-ACK carries window scale and SACK-permitted only if the SYN did (RFC 7323, 2018).
  if (!ack || wscale_ok_) s.header.window_scale = rcv_wscale_;
  s.header.sack_permitted = ack ? sack_ok_ : cfg_.sack;
  out_.push_back(std::move(s));
  ++stats_.segments_sent;
}

void TcpConnection::send_ack() {
  out_.push_back(make(kTcpAck, snd_nxt_, 0));
  ++stats_.segments_sent;
  ++stats_.pure_acks_sent;
  unacked_full_ = 0;
  delack_at_ = kTimeNever;
}

void TcpConnection::connect(Time now) {
  state_ = State::kSynSent;
  snd_una_ = 0;
  snd_nxt_ = 1;
  send_syn(false);
  arm_rto(now);
  timing_ = true, timed_end_ = 1, timed_at_ = now;
}

void TcpConnection::listen() { state_ = State::kListen; }

void TcpConnection::learn_options(const TcpHeader& h) {
  smss_ = std::min<std::uint32_t>(cfg_.mss, h.mss.value_or(536));  // 536: RFC 9293's default
  wscale_ok_ = h.window_scale.has_value();
  snd_wscale_ = wscale_ok_ ? std::min<std::uint8_t>(*h.window_scale, 14) : 0;
  if (!wscale_ok_) rcv_wscale_ = 0;
  sack_ok_ = cfg_.sack && h.sack_permitted;
  snd_wnd_ = h.window;
}

void TcpConnection::established_at(Time now) {
  state_ = State::kEstablished;
  snd_una_ = 1;
  rto_at_ = kTimeNever;
  if (timing_) rtt_.sample(now - timed_at_);
  timing_ = false;
  // RFC 5681: one segment if the SYN or SYN-ACK was lost.
  cwnd_ = std::uint64_t{stats_.rtos > 0 ? 1 : cfg_.initial_window_segments} * smss_;
}

std::uint64_t TcpConnection::write(Time now, std::uint64_t bytes) {
  const std::uint64_t take = std::min(bytes, send_buffer_room());
  app_end_ += take;
  try_send(now);
  return take;
}

std::uint64_t TcpConnection::bytes_acked() const { return snd_una_ > 1 ? snd_una_ - 1 : 0; }
std::uint64_t TcpConnection::bytes_delivered() const { return rcv_.next() > 1 ? rcv_.next() - 1 : 0; }
std::uint64_t TcpConnection::send_buffer_room() const {
  const std::uint64_t held = (app_end_ - 1) - bytes_acked();
  return cfg_.send_buffer > held ? cfg_.send_buffer - held : 0;
}

void TcpConnection::on_segment(Time now, const TcpSegment& s) {
  ++stats_.segments_received;
  const TcpHeader& h = s.header;
  if (h.flags & kTcpRst) return;
  switch (state_) {
    case State::kClosed: return;
    case State::kListen:
      if (!(h.flags & kTcpSyn) || (h.flags & kTcpAck)) return;
      irs_ = h.seq;
      rcv_.reset(1);
      learn_options(h);
      state_ = State::kSynReceived;
      snd_nxt_ = 1;
      send_syn(true);
      arm_rto(now);
      timing_ = true, timed_end_ = 1, timed_at_ = now;
      return;
    case State::kSynSent:
      if ((h.flags & (kTcpSyn | kTcpAck)) != (kTcpSyn | kTcpAck) || unwrap(cfg_.isn, 0, h.ack) != 1) return;
      irs_ = h.seq;
      rcv_.reset(1);
      learn_options(h);
      established_at(now);
      send_ack();
      try_send(now);
      return;
    case State::kSynReceived:
      if (h.flags & kTcpSyn) {  // the SYN again: our SYN-ACK was lost
        send_syn(true);
        return;
      }
      if (!(h.flags & kTcpAck) || unwrap(cfg_.isn, 0, h.ack) < 1) return;
      established_at(now);
      snd_wnd_ = std::uint64_t{h.window} << snd_wscale_;
      break;
    case State::kEstablished:
      if (h.flags & kTcpSyn) {  // the SYN-ACK again: our ACK was lost
        send_ack();
        return;
      }
      break;
  }
  if (h.flags & kTcpAck) on_ack(now, h, s.data_bytes > 0);
  if (s.data_bytes > 0) on_data(now, unwrap(irs_, rcv_.next(), h.seq), s.data_bytes, h);
  try_send(now);
}

void TcpConnection::on_ack(Time now, const TcpHeader& h, bool carries_data) {
  const std::uint64_t ack = unwrap(cfg_.isn, snd_una_, h.ack);
  if (ack > snd_nxt_) return;  // acknowledges what was never sent
  if (sack_ok_)
    for (const TcpSackBlock& b : h.sack) {
      const std::uint64_t l = unwrap(cfg_.isn, snd_una_, b.left), r = unwrap(cfg_.isn, snd_una_, b.right);
      if (l < r && l >= snd_una_ && r <= snd_nxt_) board_.sack(l, r);
    }
  const std::uint64_t wnd = std::uint64_t{h.window} << snd_wscale_;
  if (ack > snd_una_) {
    snd_wnd_ = wnd;
    new_ack(now, ack);
    return;
  }
  snd_wnd_ = wnd;
  // A duplicate ACK (RFC 5681, without its "window unchanged" test: the window here shrinks by
  // the out-of-order bytes the receiver holds).
  if (ack != snd_una_ || snd_nxt_ == snd_una_ || carries_data) return;
  ++stats_.dup_acks_received;
  ++dupacks_;
  if (sack_ok_) board_.mark_lost_by_sack(cfg_.dup_threshold, smss_);
  if (in_recovery_ || snd_una_ <= recovery_point_) return;  // RFC 6582: not again before `recover`
  const bool first_lost = !board_.empty() && board_.segments().begin()->second.lost;
  if (dupacks_ >= cfg_.dup_threshold || first_lost) enter_recovery(now);
}

void TcpConnection::new_ack(Time now, std::uint64_t ack) {
  const std::uint64_t acked = ack - snd_una_;
  if (timing_ && ack >= timed_end_) {
    rtt_.sample(now - timed_at_);
    timing_ = false;
  }
  snd_una_ = ack;
  board_.ack(ack);
  dupacks_ = 0;
  if (in_recovery_) {
    if (ack >= recovery_point_) {
      in_recovery_ = false;
    } else {
      board_.mark_lost(snd_una_);  // RFC 6582: a partial ACK; the next hole is lost too
    }
  } else if (cwnd_limited_) {
    if (cwnd_ < ssthresh_) cwnd_ += std::min<std::uint64_t>(acked, smss_);           // slow start
    else cwnd_ += std::max<std::uint64_t>(1, std::uint64_t{smss_} * smss_ / cwnd_);  // avoidance
  }
  if (sack_ok_) board_.mark_lost_by_sack(cfg_.dup_threshold, smss_);
  if (snd_una_ == snd_nxt_) rto_at_ = kTimeNever;  // RFC 6298 (5.2), (5.3)
  else arm_rto(now);
}

void TcpConnection::enter_recovery(Time now) {
  ++stats_.fast_retransmits;
  in_recovery_ = true;
  recovery_point_ = snd_nxt_;
  ssthresh_ = std::max<std::uint64_t>(flight() / 2, 2 * std::uint64_t{smss_});
  cwnd_ = ssthresh_;
  board_.mark_lost(snd_una_);
  // The fast retransmit: the first hole now, whatever pipe says (RFC 6675 step 4.3).
  if (auto r = board_.next_lost()) send_data(now, r->first, r->second, true);
}

void TcpConnection::on_data(Time now, std::uint64_t start, std::uint32_t len, const TcpHeader&) {
  switch (rcv_.receive(start, start + len)) {
    case TcpReassembly::Arrival::kDuplicate:
      ++stats_.duplicate_segments;
      send_ack();
      return;
    case TcpReassembly::Arrival::kOutOfOrder:
      ++stats_.out_of_order_segments;
      send_ack();
      return;
    case TcpReassembly::Arrival::kFilledHole:
      send_ack();
      return;
    case TcpReassembly::Arrival::kInOrder:
      if (len >= smss_ && ++unacked_full_ >= 2) send_ack();  // every second full-sized segment
      else if (delack_at_ == kTimeNever) delack_at_ = now + cfg_.delayed_ack;
      return;
  }
}

void TcpConnection::try_send(Time now) {
  if (state_ != State::kEstablished) return;
  for (;;) {
    if (auto r = board_.next_lost()) {  // NextSeg rule 1: a lost segment
      if (board_.pipe() + (r->second - r->first) > cwnd_) {
        cwnd_limited_ = true;
        return;
      }
      send_data(now, r->first, r->second, true);
      continue;
    }
    const std::uint64_t avail = app_end_ - snd_nxt_;  // rule 2: new data
    const std::uint64_t len = std::min<std::uint64_t>(avail, smss_);
    if (len == 0 || (len < smss_ && snd_nxt_ > snd_una_) || snd_nxt_ + len > snd_una_ + snd_wnd_) {
      cwnd_limited_ = false;  // application-, Nagle- or receiver-limited
      return;
    }
    // In fast recovery the scoreboard's pipe counts; otherwise the whole flight does (RFC 5681: a
    // duplicate ACK alone sends nothing new).
    if ((in_recovery_ ? board_.pipe() : flight()) + len > cwnd_) {
      cwnd_limited_ = true;
      return;
    }
    board_.sent(snd_nxt_, snd_nxt_ + len);
    snd_nxt_ += len;
    send_data(now, snd_nxt_ - len, snd_nxt_, false);
  }
}

void TcpConnection::send_data(Time now, std::uint64_t start, std::uint64_t end, bool retransmission) {
  const auto len = static_cast<std::uint32_t>(end - start);
  const bool push = end == app_end_;
  out_.push_back(make(static_cast<std::uint8_t>(kTcpAck | (push ? kTcpPsh : 0)), start, len));
  ++stats_.segments_sent;
  ++stats_.data_segments_sent;
  if (retransmission) {
    ++stats_.retransmitted_segments;
    stats_.retransmitted_bytes += len;
    board_.retransmitted(start);
    timing_ = false;  // Karn: no sample across a retransmission
  } else if (!timing_) {
    timing_ = true, timed_end_ = end, timed_at_ = now;
  }
  if (rto_at_ == kTimeNever) arm_rto(now);
  unacked_full_ = 0;  // the segment carries the ACK
  delack_at_ = kTimeNever;
}

void TcpConnection::rto_expired(Time now) {
  ++stats_.rtos;
  rtt_.back_off();
  timing_ = false;
  if (state_ == State::kSynSent || state_ == State::kSynReceived) {
    send_syn(state_ == State::kSynReceived);
    arm_rto(now);
    return;
  }
  rto_at_ = kTimeNever;
  if (snd_una_ == snd_nxt_) return;
  ssthresh_ = std::max<std::uint64_t>(flight() / 2, 2 * std::uint64_t{smss_});
  cwnd_ = smss_;  // the loss window
  in_recovery_ = false;
  recovery_point_ = snd_nxt_;
  dupacks_ = 0;
  board_.mark_all_lost();
  try_send(now);  // the first unacknowledged segment (pipe is 0), which arms the timer again
}

void TcpConnection::on_timer(Time now) {
  if (delack_at_ <= now) send_ack();
  if (rto_at_ <= now) rto_expired(now);
}

Time TcpConnection::next_timer() const { return std::min(rto_at_, delack_at_); }

std::vector<TcpSegment> TcpConnection::take_output() {
  std::vector<TcpSegment> out;
  out.swap(out_);
  return out;
}

}  // namespace ibfsim
