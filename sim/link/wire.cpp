#include "sim/link/wire.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/link/flow_control_packet.h"
#include "sim/link/link_port.h"
#include "sim/link/vcrc.h"
#include "sim/link/wire_rank_codec.h"
#include "sim/core/rank_event_codec.h"
#include "sim/phy/serialization.h"

namespace ibfsim {

std::string FlowControlArrival::text() const {
  if (lost) return "lost";
  const auto fc = decode_flow_control(bytes.data());
  if (!fc) return "bad LPCRC";
  return fmt::format("op{} vl{} fctbs {} fccl {}", fc->op, fc->vl, fc->fctbs, fc->fccl);
}

namespace {
constexpr std::size_t kLrhBytes = 8;
// Bit error streams: lane i of cable direction d draws from stream d + i * 2^48 (bit_exact_link.h,
// at most 12 lanes, so below 2^52); the link-up epoch goes above that.
constexpr unsigned kPhyEpochShift = 52;
// Frames that started before `start` (the receiver's edge of the packet just sent) are what is
// left of an earlier packet whose end a bit error hid: the receiver closes such a frame only at
// the next control symbol, which may be this packet's start. That packet was already judged (a
// PHY error) when it was sent. Removes them.
void drop_leftover_frames(std::vector<PhyRxFrame>& frames, std::uint64_t start) {
  frames.erase(std::remove_if(frames.begin(), frames.end(), [&](const PhyRxFrame& f) { return f.start_edge < start; }),
               frames.end());
}
}  // namespace

Wire::Wire(LinkPort& far_end, ScheduledModule& far_module, const LinkRate& rate, std::uint64_t prop_cycles,
           std::uint32_t link_id, FecTiming fec)
    : far_end_(far_end), far_module_(far_module), rate_(rate), clock_(rate.clock()), prop_cycles_(prop_cycles),
      head_cycles_(symbols_until_bytes(rate, kLrhBytes)), link_id_(link_id), fec_(fec) {
  // What this wire schedules may cross to another MPI rank (wire_rank_codec.h).
  register_wire_rank_events();
  add_rank_target(&far_end_);
}

Wire::~Wire() { remove_rank_target(&far_end_); }

void Wire::carry_data(Packet* p, std::uint64_t c, std::uint64_t edges) {
  // The far end checks the tail only where it can turn out bad: this line can corrupt it, or the
  // transmitter may still stomp it.
  p->tail_check = p->end_pending || can_corrupt_;
  if (phy_) {
    flush_pending();
    p->write_frame(frame_);
    pending_ = PendingFrame{true, false, p->link_seq, c - up_edge_, edges};
  }
  far_module_.schedule<&LinkPort::head_arrives>(clock_.time_of(arrival(c + head_cycles_)), &far_end_, p,
                                                clock_.time_of(arrival(c + edges)));
}

void Wire::end_data() {
  if (phy_) flush_pending();
}

void Wire::stomp(std::uint64_t seq, std::uint64_t end_edge) {
  if (pending_.valid && pending_.seq == seq) {
    pending_.end_bad = true;  // the PHY sends EBP, and the receiver decodes it
    return;
  }
  TailVerdict v;
  v.seq = seq;
  v.reason = DropReason::kEbp;
  send_verdict(std::move(v), arrival(end_edge));
}

void Wire::send_verdict(TailVerdict v, std::uint64_t tail_edge) {
  // Early in its instant: the far end checks the tail at that same instant (link_port.h).
  const Time at = std::max(clock_.time_of(tail_edge), ScheduledModule::now());
  far_module_.schedule_early<&LinkPort::verdict_arrives>(at, &far_end_, new TailVerdict(std::move(v)));
}

void Wire::carry_link_packet(const std::array<std::uint8_t, 6>& bytes, std::uint64_t c, std::uint64_t edges,
                             std::uint32_t epoch) {
  FlowControlArrival fc{bytes, false, epoch};
  if (phy_) {
    flush_pending();  // the data packet before it
    const std::uint64_t e = c - up_edge_;
    const std::uint64_t phy_start = phy_->send(bytes.data(), bytes.size(), FrameKind::kLink, FrameEnd::kGood, e);
    auto frames = phy_->take_frames();
    drop_leftover_frames(frames, e + phy_->skew_latency_edges());
    const bool as_sent = frames.size() == 1 && frames[0].end_edge == e + edges + phy_->skew_latency_edges();
    IBFSIM_CHECK(phy_start == e && (as_sent || phy_->bits_flipped() != flipped_when_in_step_),
                 "bit-exact PHY and timing model disagree on link " + std::to_string(link_id_));
    if (as_sent) flipped_when_in_step_ = phy_->bits_flipped();
    // A symbol error loses the link packet; wrong bytes arrive and fail their LPCRC.
    if (!as_sent || !frames[0].ok() || frames[0].bytes.size() != 6) fc.lost = true;
    else std::copy(frames[0].bytes.begin(), frames[0].bytes.end(), fc.bytes.begin());
  }
  far_module_.schedule<&LinkPort::flow_control_arrives>(clock_.time_of(arrival(c + edges)), &far_end_, fc);
}

void Wire::flush_pending(bool deliver) {
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
               "bit-exact PHY and timing model disagree on link " + std::to_string(link_id_));
  if (as_sent) flipped_when_in_step_ = phy_->bits_flipped();
  TailVerdict v;
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
  if (deliver) send_verdict(std::move(v), arrival(up_edge_ + e + pending_.edges));
}

void Wire::set_bit_exact(const BitExactLinkConfig& config) {
  phy_ = std::make_unique<BitExactLink>(config);
  can_corrupt_ = config.can_corrupt();
  flipped_when_in_step_ = 0;
  phy_retired_ = {};
}

void Wire::restart(std::uint64_t up_edge, std::uint64_t epoch) {
  if (phy_) {
    flush_pending();  // the last packet before the link went down
    phy_retired_ = phy_totals();
    BitExactLinkConfig c = phy_->config();
    c.stream_id = (c.stream_id & ((std::uint64_t{1} << kPhyEpochShift) - 1)) + (epoch << kPhyEpochShift);
    phy_ = std::make_unique<BitExactLink>(c);
    flipped_when_in_step_ = 0;
  }
  up_edge_ = up_edge;
}

void Wire::finish_frames() {
  if (phy_) flush_pending(false);  // the run is over: the last frame counts in the PHY's figures
}

void Wire::idle_until(std::uint64_t c) {
  if (phy_) phy_->idle_until(c - up_edge_);
}

Wire::PhyTotals Wire::phy_totals() const {
  PhyTotals t = phy_retired_;
  if (phy_) {
    t.bits_flipped += phy_->bits_flipped();
    t.skips += phy_->skips_sent();
    t.rx += phy_->rx_counters();
  }
  return t;
}

}  // namespace ibfsim
