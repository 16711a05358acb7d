#include "sim/link/link_port.h"

#include <algorithm>
#include <iterator>

#include "sim/core/error.h"
#include "sim/link/flow_control_packet.h"
#include "sim/link/vcrc.h"
#include "sim/phy/serialization.h"

namespace ibfsim {

namespace {
constexpr std::size_t kLrhBytes = 8;
// Bit error streams: lane i of cable direction d draws from stream d + i * 2^48 (bit_exact_link.h,
// at most 12 lanes, so below 2^52); the link-up epoch goes above that.
constexpr unsigned kPhyEpochShift = 52;
constexpr std::size_t kLinkPacketBytes = 6;
// The VL is the link layer's own field: LRH byte 0, bits 7-4.
std::uint8_t packet_vl(const Packet& p) { return p.header[0] >> 4; }
// Frames that started before `start` (the receiver's edge of the packet just sent) are what is
// left of an earlier packet whose end a bit error hid: the receiver closes such a frame only at
// the next control symbol, which may be this packet's start. That packet was already judged (a
// PHY error) when it was sent. Removes them.
void drop_leftover_frames(std::vector<PhyRxFrame>& frames, std::uint64_t start) {
  frames.erase(std::remove_if(frames.begin(), frames.end(), [&](const PhyRxFrame& f) { return f.start_edge < start; }),
               frames.end());
}
}  // namespace

const char* port_state_name(PortState s) {
  switch (s) {
    case PortState::kDown: return "Down";
    case PortState::kInit: return "Init";
    case PortState::kArmed: return "Armed";
    case PortState::kActive: return "Active";
  }
  return "?";
}

LinkPort::LinkPort(ScheduledModule& module, PortOwner& owner, PortNum number, PortBuffers buffers, std::string name)
    : module_(module), owner_(owner), number_(number), name_(std::move(name)), buffers_(buffers),
      vl_cap_(buffers.op_vls) {
  IBFSIM_CHECK(buffers_.op_vls >= 1 && buffers_.op_vls <= kMaxDataVls, "operational VLs must be 1..15");
  for (unsigned v = 0; v < buffers_.op_vls; ++v) vls_[v].rx = ReceiveBuffer(buffers_.data_vl_blocks);
}

void LinkPort::set_op_vls(unsigned op_vls) {
  IBFSIM_CHECK(op_vls >= 1 && op_vls <= vl_cap_, "operational VLs above VLCap: " + name_);
  const unsigned old = buffers_.op_vls;
  if (op_vls == old) return;
  IBFSIM_CHECK(state_ == PortState::kDown || state_ == PortState::kInit,
               "OperationalVLs changed on a port that passes data: " + name_);
  // The VLs that stay keep their credit state, which the peer shares. Those that go lose their
  // buffers and credits; those that come start afresh and are initialised like at link-up: each
  // side announces its buffer (Op 1).
  buffers_.op_vls = op_vls;
  fc_pending_ &= all_vls_mask();
  for (unsigned v = std::min(old, op_vls); v < std::max(old, op_vls); ++v) {
    set_credit_stalled(static_cast<std::uint8_t>(v), false);
    vls_[v].tx = CreditCounter();
    vls_[v].rx = ReceiveBuffer(v < op_vls ? buffers_.data_vl_blocks : 0);
  }
  if (!peer_ || state_ == PortState::kDown) return;
  for (unsigned v = old; v < op_vls; ++v) {
    send_flow_control(1, static_cast<std::uint8_t>(v));
    peer_->request_flow_control(static_cast<std::uint8_t>(v));
  }
}

void LinkPort::connect(LinkPort& peer, const LinkRate& rate, std::uint64_t prop_cycles, std::uint32_t link_id) {
  IBFSIM_CHECK(peer_ == nullptr, "port connected twice: " + name_);
  peer_ = &peer;
  rate_ = rate;
  clock_ = rate.clock();
  prop_cycles_ = prop_cycles;
  head_cycles_ = symbols_until_bytes(rate, kLrhBytes);
  fc_cycles_ = symbols_for_packet(rate, kLinkPacketBytes);
  skip_edges_ = skip_edges(rate.info().line_code);
  link_id_ = link_id;
}

std::uint64_t LinkPort::symbols_for(std::uint64_t bytes) const { return symbols_for_packet(rate_, bytes); }

void LinkPort::link_up(PortState state) {
  if (!peer_) return;
  set_state(state);
  busy_until_ = std::max(busy_until_, now_cycle());
  up_edge_ = busy_until_;
  skip_ = SkipScheduler(skip_.interval());  // the line restarts: the first SKIP is one interval on
  if (phy_) {
    flush_pending();  // the last packet before the link went down
    // Retraining resets the line (disparity, scrambler, lane alignment); each link-up draws its
    // bit errors from streams of its own.
    const PhyTotals t = phy_totals();
    phy_retired_ = t;
    BitExactLinkConfig c = phy_->config();
    c.stream_id = (c.stream_id & ((std::uint64_t{1} << kPhyEpochShift) - 1)) + (link_epoch_ << kPhyEpochShift);
    phy_ = std::make_unique<BitExactLink>(c);
    flipped_when_in_step_ = 0;
  }
  for (unsigned v = 0; v < buffers_.op_vls; ++v) {
    vls_[v].tx = CreditCounter();
    vls_[v].rx.reset_abr();
  }
  // Every operational VL announces its buffer (Op 1, "flow-control init").
  for (unsigned v = 0; v < buffers_.op_vls; ++v) send_flow_control(1, static_cast<std::uint8_t>(v));
  set_next_refresh(busy_until_ - buffers_.op_vls * fc_cycles_ + kFlowControlRefreshEdges);
  schedule_refresh();
  owner_.on_port_state_change(*this);
}

void LinkPort::link_down() {
  state_ = PortState::kDown;
  ++link_epoch_;
  fc_pending_ = 0;
  set_next_refresh(~std::uint64_t{0});
  for (unsigned v = 0; v < kMaxDataVls; ++v) set_credit_stalled(static_cast<std::uint8_t>(v), false);
  owner_.on_credits(*this);  // lets the owner discard what waits for this port
  owner_.on_port_state_change(*this);
}

void LinkPort::set_bit_exact(const BitExactLinkConfig& config) {
  IBFSIM_CHECK(peer_ != nullptr, "set_bit_exact before connect: " + name_);
  IBFSIM_CHECK(config.skip_interval_edges == skip_.interval(), "bit-exact PHY and link disagree on SKIPs: " + name_);
  phy_ = std::make_unique<BitExactLink>(config);
  flipped_when_in_step_ = 0;
  peer_->rx_can_corrupt_ = config.can_corrupt();
  phy_retired_ = {};
  schedule_refresh();
}

LinkPort::PhyTotals LinkPort::phy_totals() const {
  PhyTotals t = phy_retired_;
  if (phy_) {
    t.bits_flipped += phy_->bits_flipped();
    t.skips += phy_->skips_sent();
    t.rx += phy_->rx_counters();
  }
  return t;
}

void LinkPort::schedule_refresh() {
  // Refreshes are real events when something looks at every link packet: a capture of link
  // packets, or a bit-exact PHY (whose bit errors may hit them).
  const bool eager = (capture_ && capture_->wants_link_packets()) || phy_;
  if (!eager || refresh_event_pending_ || next_refresh_ == ~std::uint64_t{0}) return;
  module_.schedule<&LinkPort::refresh_due>(clock_.time_of(next_refresh_), this);
  refresh_event_pending_ = true;
}

void LinkPort::catch_up_due() {
  if (state_ == PortState::kDown) return;
  const std::uint64_t c = now_cycle();
  while (next_refresh_ <= c) {
    const std::uint64_t start = std::max(next_refresh_, busy_until_);
    if (start >= c) {
      // Due now, or the link is busy until a later edge: the refreshes go at the next gap.
      fc_pending_ |= all_vls_mask();
      set_next_refresh(std::max(start, c) + kFlowControlRefreshEdges);
      if (start > c) ensure_end_event();
      break;
    }
    // The link idled when this refresh was due: it went out then, unchanged, and is over (or
    // still on the wire, keeping the transmitter busy).
    account_idle_refreshes(start);
  }
}

void LinkPort::account_idle_refreshes(std::uint64_t start) {
  std::uint64_t c = start;
  for (unsigned v = 0; v < buffers_.op_vls; ++v) {
    const std::uint64_t s = place(c);  // a SKIP due first goes first, as when sent for real
    busy_until_ = c = s + fc_cycles_;
    stats_.tx_busy += clock_.time_of(c) - clock_.time_of(s);
  }
  stats_.tx_flow_control += buffers_.op_vls;
  peer_->stats_.rx_flow_control += buffers_.op_vls;
  set_next_refresh(start + kFlowControlRefreshEdges);
}

bool LinkPort::can_start_data() {
  catch_up();
  if (fc_pending_ && idle_now()) send_pending_flow_control();
  return !fc_pending_ && !data_in_flight_ && idle_now() && state_ != PortState::kDown;
}

bool LinkPort::may_send(std::uint8_t vl, std::uint32_t blocks) const {
  if (vl == kVl15) return state_ != PortState::kDown;
  if (state_ != PortState::kActive || vl >= buffers_.op_vls) return false;
  return vls_[vl].tx.can_send(blocks);
}

Time LinkPort::transmit(Packet* p) {
  IBFSIM_CHECK(can_start_data(), "transmit on a busy port: " + name_);
  const std::uint8_t vl = packet_vl(*p);
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint32_t blocks = credits_for_bytes(bytes);
  IBFSIM_CHECK(may_send(vl, blocks), "transmit without credits or in the wrong port state: " + name_);
  VlState& st = vls_[vl];
  if (vl != kVl15) st.tx.consume(blocks);
  const std::uint64_t c = place(now_cycle());  // after a SKIP that is due
  const std::uint64_t s = symbols_for_packet(rate_, bytes);
  busy_until_ = c + s;
  const Time start = clock_.time_of(c);
  const Time end = clock_.time_of(c + s);
  if (capture_) capture_->capture_data(start, *p, link_id_);
  p->link_seq = ++tx_seq_;
  if (phy_) {
    // The PHY encodes the frame once its end delimiter is known (flush_pending).
    flush_pending();
    p->write_frame(frame_);
    pending_ = PendingFrame{true, false, p->link_seq, c - up_edge_, s};
  }
  p->link_epoch = static_cast<std::uint32_t>(link_epoch_);
  peer_->module_.schedule<&LinkPort::head_arrives>(clock_.time_of(c + prop_cycles_ + head_cycles_), peer_, p,
                                                   clock_.time_of(c + prop_cycles_ + s));
  module_.schedule<&LinkPort::tx_done>(end, this, p);
  end_event_pending_ = true;
  data_in_flight_ = true;
  ++stats_.tx_packets;
  stats_.tx_bytes += bytes;
  ++st.stats.tx_packets;
  st.stats.tx_bytes += bytes;
  stats_.tx_busy += end - start;
  return start;
}

void LinkPort::flush_pending() {
  if (!pending_.valid) return;
  pending_.valid = false;
  const std::uint64_t e = pending_.edge;
  const std::uint64_t phy_start =
      phy_->send(frame_, FrameKind::kData, pending_.end_bad ? FrameEnd::kBad : FrameEnd::kGood, e);
  auto frames = phy_->take_frames();
  drop_leftover_frames(frames, e + phy_->skew_latency_edges());
  const bool as_sent = frames.size() == 1 && frames[0].end_edge == e + pending_.edges + phy_->skew_latency_edges();
  // Without a bit error the PHY must frame the packet exactly as the timing model counts it;
  // with one since the last packet that arrived as sent (in this one, or in an earlier one that
  // left the receiver out of step), the receiver may lose, cut or merge frames: a PHY error.
  IBFSIM_CHECK(phy_start == e && (as_sent || phy_->bits_flipped() != flipped_when_in_step_),
               "bit-exact PHY and timing model disagree on " + name_);
  if (as_sent) flipped_when_in_step_ = phy_->bits_flipped();
  RxVerdict v;
  v.seq = pending_.seq;
  if (!as_sent || frames[0].symbol_error || frames[0].framing_error) {
    v.reason = DropReason::kPhyError;
  } else if (frames[0].end == FrameEnd::kBad) {
    v.reason = DropReason::kEbp;
  } else if (frames[0].bytes != frame_) {
    const auto& f = frames[0].bytes;
    if (f.size() < 2 || vcrc16_bytes(f.data(), f.size() - 2) != load_crc16(f.data() + f.size() - 2))
      v.reason = DropReason::kVcrcError;
    else
      v.bytes = std::move(frames[0].bytes);  // a change the VCRC misses: the ICRC may still catch it
  } else {
    return;  // arrived as sent
  }
  peer_->add_verdict(std::move(v));
}

void LinkPort::add_verdict(RxVerdict v) {
  // In link_seq order; a packet keeps its first verdict (a PHY error beats a late stomp).
  auto it = rx_verdicts_.end();
  while (it != rx_verdicts_.begin() && std::prev(it)->seq >= v.seq) --it;
  if (it != rx_verdicts_.end() && it->seq == v.seq) return;
  rx_verdicts_.insert(it, std::move(v));
}

void LinkPort::stomp(std::uint64_t link_seq) {
  ++stats_.tx_ebp;
  if (pending_.valid && pending_.seq == link_seq) {
    pending_.end_bad = true;  // the PHY sends EBP, and the receiver decodes it
    return;
  }
  RxVerdict v;
  v.seq = link_seq;
  v.reason = DropReason::kEbp;
  peer_->add_verdict(std::move(v));
}

std::optional<DropReason> LinkPort::check_tail(std::uint64_t link_seq, Packet* held) {
  if (peer_ && peer_->pending_.valid && peer_->pending_.seq == link_seq) peer_->flush_pending();
  // Verdicts of packets that never reached their tail check (dropped on the way in) are stale.
  while (!rx_verdicts_.empty() && rx_verdicts_.front().seq < link_seq) rx_verdicts_.pop_front();
  if (rx_verdicts_.empty() || rx_verdicts_.front().seq != link_seq) return std::nullopt;
  RxVerdict v = std::move(rx_verdicts_.front());
  rx_verdicts_.pop_front();
  if (!v.reason) {
    if (held) {
      held->received_frame = std::move(v.bytes);
      held->may_be_corrupted = true;
    }
    return std::nullopt;
  }
  switch (*v.reason) {
    case DropReason::kPhyError: ++stats_.rx_phy_errors; break;
    case DropReason::kEbp: ++stats_.rx_ebp; break;
    default: ++stats_.rx_vcrc_errors; break;
  }
  return v.reason;
}

void LinkPort::send_flow_control(std::uint8_t op, std::uint8_t vl) {
  const std::uint64_t c = place(std::max(busy_until_, now_cycle()));
  FlowControlPacket fc{op, vls_[vl].tx.fctbs(), vl, vls_[vl].rx.fccl()};
  const auto bytes = encode_flow_control(fc);
  busy_until_ = c + fc_cycles_;
  const Time start = clock_.time_of(c);
  if (capture_) capture_->capture_link_packet(start, bytes.data(), bytes.size(), link_id_);
  FlowControlArrival arrival{bytes, false, static_cast<std::uint32_t>(link_epoch_)};
  if (phy_) {
    flush_pending();  // the data packet before it
    const std::uint64_t e = c - up_edge_;
    const std::uint64_t phy_start = phy_->send(bytes.data(), bytes.size(), FrameKind::kLink, FrameEnd::kGood, e);
    auto frames = phy_->take_frames();
    drop_leftover_frames(frames, e + phy_->skew_latency_edges());
    const bool as_sent = frames.size() == 1 && frames[0].end_edge == e + fc_cycles_ + phy_->skew_latency_edges();
    IBFSIM_CHECK(phy_start == e && (as_sent || phy_->bits_flipped() != flipped_when_in_step_),
                 "bit-exact PHY and timing model disagree on " + name_);
    if (as_sent) flipped_when_in_step_ = phy_->bits_flipped();
    // A symbol error loses the link packet; wrong bytes arrive and fail their LPCRC.
    if (!as_sent || !frames[0].ok() || frames[0].bytes.size() != 6) arrival.lost = true;
    else std::copy(frames[0].bytes.begin(), frames[0].bytes.end(), arrival.bytes.begin());
  }
  peer_->module_.schedule<&LinkPort::flow_control_arrives>(clock_.time_of(c + prop_cycles_ + fc_cycles_), peer_,
                                                           arrival);
  ++stats_.tx_flow_control;
  stats_.tx_busy += clock_.time_of(c + fc_cycles_) - start;
}

void LinkPort::send_pending_flow_control() {
  while (fc_pending_) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(fc_pending_));
    fc_pending_ &= static_cast<std::uint16_t>(fc_pending_ - 1);
    send_flow_control(0, static_cast<std::uint8_t>(v));
  }
  if (waiter_) ensure_end_event();
}

void LinkPort::ensure_end_event() {
  if (end_event_pending_) return;
  module_.schedule<&LinkPort::tx_idle>(clock_.time_of(busy_until_), this);
  end_event_pending_ = true;
}

void LinkPort::notify_when_free() {
  waiter_ = true;
  if (!idle_now() || fc_pending_) ensure_end_event();
}

void LinkPort::request_flow_control(std::uint8_t vl) {
  if (!peer_ || state_ == PortState::kDown || vl >= buffers_.op_vls) return;
  catch_up();
  fc_pending_ |= static_cast<std::uint16_t>(1u << vl);
  if (idle_now() && !data_in_flight_) send_pending_flow_control();
  else ensure_end_event();
}

void LinkPort::set_credit_stalled(std::uint8_t vl, bool stalled) {
  const std::uint16_t bit = static_cast<std::uint16_t>(1u << vl);
  if (stalled && !(stalled_ & bit)) {
    stalled_ |= bit;
    vls_[vl].stall_since = module_.now();
  } else if (!stalled && (stalled_ & bit)) {
    stalled_ &= static_cast<std::uint16_t>(~bit);
    vls_[vl].stats.credit_stall += module_.now() - vls_[vl].stall_since;
  }
}

void LinkPort::free_rx(std::uint8_t vl, std::uint32_t blocks) {
  if (vl == kVl15) {
    IBFSIM_CHECK(blocks <= vl15_occupied_, "VL15 buffer released more than it held");
    vl15_occupied_ -= blocks;
    return;
  }
  vls_[vl].rx.release(blocks, module_.now());
  request_flow_control(vl);
}

void LinkPort::finish(Time end) {
  if (phy_) flush_pending();  // so the PHY's counts include the last packet
  if (peer_ && state_ != PortState::kDown) {
    // Refreshes that an idle link would have sent by `end`.
    const std::uint64_t c = clock_.cycle_at_or_after(end);
    while (next_refresh_ < c) {
      const std::uint64_t start = std::max(next_refresh_, busy_until_);
      if (start >= c) break;
      account_idle_refreshes(start);
    }
    if (c > busy_until_) place(c - 1);  // counts the SKIPs that started before the end
    if (phy_) phy_->idle_until(c - up_edge_);  // the PHY sends those too, so both counts agree
  }
  for (unsigned v = 0; v < kMaxDataVls; ++v)
    if (stalled_ >> v & 1) vls_[v].stats.credit_stall += end - vls_[v].stall_since, vls_[v].stall_since = end;
}

void LinkPort::link_became_idle() {
  catch_up();
  // Flow-control packets go between data packets, ahead of the next one.
  if (fc_pending_ && idle_now()) send_pending_flow_control();
  if (waiter_) {
    if (idle_now() && !fc_pending_) {
      waiter_ = false;
      owner_.on_output_free(*this);
    } else {
      ensure_end_event();
    }
  }
}

void LinkPort::head_arrives(Packet* p, Time tail) {
  if (p->link_epoch != static_cast<std::uint32_t>(link_epoch_) || state_ == PortState::kDown)
    return owner_.on_link_discard(*this, p, DropReason::kLinkDown);
  const std::uint8_t vl = packet_vl(*p);
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint32_t blocks = credits_for_bytes(bytes);
  if (vl == kVl15) {
    // VL15 is not flow controlled: no room means the packet is dropped (R3).
    if (vl15_occupied_ + blocks > buffers_.vl15_blocks) {
      ++stats_.vl15_dropped;
      return owner_.on_link_discard(*this, p, DropReason::kVl15Overflow);
    }
    vl15_occupied_ += blocks;
  } else if (vl >= buffers_.op_vls) {
    return owner_.on_link_discard(*this, p, DropReason::kInvalidVl);
  } else {
    vls_[vl].rx.receive(blocks, module_.now());
    // R20: a port in Init accepts only management packets.
    if (state_ == PortState::kInit) {
      vls_[vl].rx.release(blocks, module_.now());
      request_flow_control(vl);
      return owner_.on_link_discard(*this, p, DropReason::kPortState);
    }
    if (state_ == PortState::kArmed && activate_on_data_) set_state(PortState::kActive);  // R21
  }
  ++stats_.rx_packets;
  stats_.rx_bytes += bytes;
  ++vls_[vl].stats.rx_packets;
  vls_[vl].stats.rx_bytes += bytes;
  owner_.on_packet_head(*this, p, module_.now(), tail);
}

void LinkPort::flow_control_arrives(FlowControlArrival arrival) {
  if (arrival.epoch != static_cast<std::uint32_t>(link_epoch_) || state_ == PortState::kDown) return;  // lost with the link
  auto fc = arrival.lost ? std::nullopt : decode_flow_control(arrival.bytes.data());
  if (!fc || fc->vl >= buffers_.op_vls) {
    ++stats_.rx_flow_control_errors;
    return;
  }
  ++stats_.rx_flow_control;
  vls_[fc->vl].tx.set_limit(fc->fccl);
  if (!vls_[fc->vl].rx.resync(fc->fctbs)) ++stats_.abr_resyncs;
  owner_.on_credits(*this);
}

void LinkPort::tx_done(Packet* p) {
  end_event_pending_ = false;
  data_in_flight_ = false;
  owner_.on_tx_done(*this, p);
  link_became_idle();
}

void LinkPort::tx_idle() {
  end_event_pending_ = false;
  link_became_idle();
}

void LinkPort::refresh_due() {
  refresh_event_pending_ = false;
  catch_up();
  if (fc_pending_ && idle_now() && !data_in_flight_) send_pending_flow_control();
  schedule_refresh();
}

}  // namespace ibfsim
