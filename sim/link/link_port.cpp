#include "sim/link/link_port.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include "sim/core/error.h"
#include "sim/link/lrh.h"
#include "sim/link/flow_control_packet.h"
#include "sim/link/vcrc.h"
#include "sim/phy/serialization.h"

namespace ibfsim {

namespace {
constexpr std::size_t kLinkPacketBytes = 6;
// The VL is the link layer's own field: LRH byte 0, bits 7-4.
std::uint8_t packet_vl(const Packet& p) { return lrh_vl(p.header.data()); }
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
  if (!out_ || state_ == PortState::kDown) return;
  for (unsigned v = old; v < op_vls; ++v) {
    send_flow_control(1, static_cast<std::uint8_t>(v));
    reinit_vls_ |= static_cast<std::uint16_t>(1u << v);
  }
}

void LinkPort::connect(Wire& out, const Wire& in, std::uint32_t far_buffer_blocks) {
  IBFSIM_CHECK(out_ == nullptr, "port connected twice: " + name_);
  out_ = &out;
  in_ = &in;
  far_buffer_blocks_ = far_buffer_blocks;
  rate_ = out.rate();
  clock_ = out.clock();
  fc_cycles_ = symbols_for_packet(rate_, kLinkPacketBytes);
  skip_edges_ = skip_edges(rate_.info().line_code);
}

LinkPortStats LinkPort::stats() const {
  LinkPortStats s = stats_;
  if (in_) s.rx_flow_control += in_->idle_refreshes();
  return s;
}

std::uint64_t LinkPort::symbols_for(std::uint64_t bytes) const { return symbols_for_packet(rate_, bytes); }

void LinkPort::link_up(PortState state) {
  if (!out_) return;
  set_state(state);
  busy_until_ = std::max(busy_until_, now_cycle());
  up_edge_ = busy_until_;
  skip_ = SkipScheduler(skip_.interval());  // the line restarts: the first SKIP is one interval on
  reinit_vls_ = 0;
  // Retraining resets the line (disparity, scrambler, lane alignment); each link-up draws its bit
  // errors from streams of its own.
  out_->restart(up_edge_, link_epoch_);
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
  IBFSIM_CHECK(out_ != nullptr, "set_bit_exact before connect: " + name_);
  IBFSIM_CHECK(config.skip_interval_edges == skip_.interval(), "bit-exact PHY and link disagree on SKIPs: " + name_);
  out_->set_bit_exact(config);
  schedule_refresh();
}

void LinkPort::schedule_refresh() {
  // Refreshes are real events when something looks at every link packet: a capture of link
  // packets, or a bit-exact PHY (whose bit errors may hit them).
  const bool eager = (capture_ && capture_->wants_link_packets()) || bit_exact();
  if (!eager || refresh_event_pending_ || next_refresh_ == ~std::uint64_t{0}) return;
  module_.schedule<&LinkPort::refresh_due>(clock_.time_of(next_refresh_), this);
  refresh_event_pending_ = true;
}

void LinkPort::catch_up_due() {
  if (state_ == PortState::kDown) return;
  const std::uint64_t c = now_cycle();
  account_idle_blocks(c);
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

void LinkPort::account_idle_blocks(std::uint64_t c) {
  // Refresh bursts go out every P edges and SKIPs every I edges from link-up, so the pattern of
  // how a burst meets the SKIPs repeats every T = I / gcd(P mod I, I) periods (9 at the default
  // 4,608-edge interval). Two blocks of T periods are accounted one by one; when the second is the
  // first shifted by T * P edges (the same SKIPs, flow-control packets and busy time, which also
  // needs T * P edges to be a whole number of femtoseconds), the following whole blocks are added
  // as m such shifts at once. At least one block is left to the loop, which ends the idle stretch.
  constexpr std::uint64_t kPeriod = kFlowControlRefreshEdges;
  constexpr std::uint64_t kMaxBlockPeriods = 64;
  const std::uint64_t interval = skip_.enabled() ? skip_.interval() : 0;
  const std::uint64_t t =
      interval == 0 || kPeriod % interval == 0 ? 1 : interval / std::gcd(kPeriod % interval, interval);
  const std::uint64_t block = t * kPeriod;
  if (t > kMaxBlockPeriods || busy_until_ > next_refresh_ || next_refresh_ >= c) return;
  if (static_cast<unsigned __int128>(block) * clock_.period_num_fs() % clock_.period_den() != 0) return;
  const std::uint64_t periods = (c - 1 - next_refresh_) / kPeriod + 1;  // due before c, if idle
  if (periods < 4 * t) return;
  const auto one_block = [&] {
    for (std::uint64_t k = 0; k < t; ++k) {
      if (busy_until_ > next_refresh_) return false;  // a burst overran its period: not idle as assumed
      account_idle_refreshes(next_refresh_);
    }
    return true;
  };
  if (!one_block()) return;
  const Time busy0 = stats_.tx_busy;
  const std::uint64_t skips0 = stats_.tx_skips, until0 = busy_until_, due0 = skip_.next_due();
  if (!one_block()) return;
  const Time busy = stats_.tx_busy - busy0;
  const std::uint64_t skips = stats_.tx_skips - skips0;
  const bool shifted = busy_until_ - until0 == block && (interval == 0 || (skip_.next_due() - due0 == block &&
                                                                           skips * interval == block));
  if (!shifted) return;
  const std::uint64_t m = (c - 1 - next_refresh_) / block;  // whole blocks still due before c ...
  if (m < 2) return;
  const std::uint64_t n = m - 1;  // ... but the last, left to the loop
  stats_.tx_busy += n * busy;
  stats_.tx_skips += n * skips;
  stats_.tx_flow_control += n * t * buffers_.op_vls;
  out_->count_idle_refreshes(n * t * buffers_.op_vls);
  busy_until_ += n * block;
  if (interval != 0) skip_.sent(n * skips);
  set_next_refresh(next_refresh_ + n * block);
}

void LinkPort::account_idle_refreshes(std::uint64_t start) {
  std::uint64_t c = start;
  for (unsigned v = 0; v < buffers_.op_vls; ++v) {
    const std::uint64_t s = place(c);  // a SKIP due first goes first, as when sent for real
    busy_until_ = c = s + fc_cycles_;
    stats_.tx_busy += clock_.time_of(c) - clock_.time_of(s);
  }
  stats_.tx_flow_control += buffers_.op_vls;
  out_->count_idle_refreshes(buffers_.op_vls);  // the far end received them too
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
  if (capture_) capture_->capture_data(start, *p, out_->link_id());
  p->link_seq = ++tx_seq_;
  p->link_epoch = static_cast<std::uint32_t>(link_epoch_);
  in_flight_seq_ = p->link_seq;
  in_flight_end_ = c + s;
  out_->carry_data(p, c, s);
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

void LinkPort::stomp(std::uint64_t link_seq) {
  IBFSIM_CHECK(data_in_flight_ && link_seq == in_flight_seq_, "stomp of a packet not on the wire: " + name_);
  ++stats_.tx_ebp;
  out_->stomp(link_seq, in_flight_end_);
}

void LinkPort::verdict_arrives(TailVerdict* arrived) {
  std::unique_ptr<TailVerdict> v(arrived);
  // In link_seq order; a packet keeps its first verdict (a PHY error beats a late stomp).
  auto it = rx_verdicts_.end();
  while (it != rx_verdicts_.begin() && std::prev(it)->seq >= v->seq) --it;
  if (it != rx_verdicts_.end() && it->seq == v->seq) return;
  rx_verdicts_.insert(it, std::move(*v));
}

std::optional<DropReason> LinkPort::check_tail(std::uint64_t link_seq, Packet* held) {
  // Verdicts of packets that never reached their tail check (dropped on the way in) are stale.
  while (!rx_verdicts_.empty() && rx_verdicts_.front().seq < link_seq) rx_verdicts_.pop_front();
  if (rx_verdicts_.empty() || rx_verdicts_.front().seq != link_seq) return std::nullopt;
  TailVerdict v = std::move(rx_verdicts_.front());
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
  if (capture_) capture_->capture_link_packet(start, bytes.data(), bytes.size(), out_->link_id());
  out_->carry_link_packet(bytes, c, fc_cycles_, static_cast<std::uint32_t>(link_epoch_));
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
  if (!out_ || state_ == PortState::kDown || vl >= buffers_.op_vls) return;
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
  if (out_) out_->finish_frames();  // so the PHY's counts include the last packet
  if (out_ && state_ != PortState::kDown) {
    // Refreshes that an idle link would have sent by `end`.
    const std::uint64_t c = clock_.cycle_at_or_after(end);
    account_idle_blocks(c);
    while (next_refresh_ < c) {
      const std::uint64_t start = std::max(next_refresh_, busy_until_);
      if (start >= c) break;
      account_idle_refreshes(start);
    }
    if (c > busy_until_) place(c - 1);  // counts the SKIPs that started before the end
    out_->idle_until(c);  // the PHY sends those too, so both counts agree
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
  if (fc->op == 1 && (reinit_vls_ >> fc->vl & 1)) {
    // The far end (re)initialised a VL this port set up after link-up: it may have missed this
    // port's Op 1, so it learns this port's credits now.
    reinit_vls_ &= static_cast<std::uint16_t>(~(1u << fc->vl));
    request_flow_control(fc->vl);
  }
  owner_.on_credits(*this);
}

void LinkPort::tx_done(Packet* p) {
  end_event_pending_ = false;
  data_in_flight_ = false;
  out_->end_data();  // its end delimiter is known now: a bit-exact PHY encodes it
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
