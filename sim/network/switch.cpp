#include "sim/network/switch.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/link/vcrc.h"
#include "sim/network/lrh.h"

namespace ibfsim {

Switch::Switch(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name), config_(std::move(config)), pool_(pool), ledger_(ledger) {
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.rx_buffer_blocks,
                                                std::string(this->name()) + "/" + std::to_string(i)));
  }
  inputs_.resize(config_.num_ports);
  outputs_.resize(config_.num_ports);
}

void Switch::discard_at_tail(PortNum in, Packet* p, Time tail, DropReason reason) {
  schedule(tail, this, kDiscardAtTail, (static_cast<std::uint64_t>(reason) << 8) | in, p);
}

void Switch::on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) {
  const PortNum in = port.number();
  // VCRC covers the whole packet; it is known to be bad once the tail is in, and this switch
  // then drops it (R11). Only packets whose bytes were altered in flight can fail (see
  // Packet::may_be_corrupted). A cut-through switch that had already started forwarding would end
  // the packet with EBP; bit errors, which would make that happen, come with the PHY model.
  if (p->may_be_corrupted && !vcrc_ok(*p)) return discard_at_tail(in, p, tail, DropReason::kVcrcError);
  const std::uint8_t* lrh = p->header.data();
  const PortNum out = config_.lft.lookup(lrh_dlid(lrh));
  if (out == kNoRoute || out == 0 || out > ports_.size() || !ports_[out - 1]->connected())
    return discard_at_tail(in, p, tail, DropReason::kUnknownDlid);
  auto& q = inputs_[in - 1];
  q.push_back(Entry{p, head, tail, out, credits_for_bytes(p->wire_bytes())});
  if (q.size() == 1) consider_head(in);
}

void Switch::consider_head(PortNum in) {
  const Entry& e = inputs_[in - 1].front();
  LinkPort& o = *ports_[e.out - 1];
  const SymbolClock& clk = o.clock();
  const std::uint64_t s_out = o.symbols_for(e.p->wire_bytes());
  std::uint64_t c = std::max(clk.cycle_at_or_after(e.head + config_.latency), clk.cycle_at_or_after(now()));
  const std::uint64_t c_tail = clk.cycle_at_or_after(e.tail + config_.latency);
  if (c_tail > s_out) c = std::max(c, c_tail - s_out);
  const Time eligible = clk.time_of(c);
  if (eligible > now()) {
    schedule(eligible, this, kEligible, in);
  } else {
    outputs_[e.out - 1].requesters.push_back(in);
    try_start(e.out);
  }
}

void Switch::try_start(PortNum out) {
  Output& o = outputs_[out - 1];
  if (o.requesters.empty()) return;
  LinkPort& port = *ports_[out - 1];
  if (!port.can_start_data()) {
    port.notify_when_free();
    return;
  }
  // Round robin: the requester closest at or after next_rr (cyclically) that has credits.
  const unsigned n = static_cast<unsigned>(ports_.size());
  std::size_t best = o.requesters.size();
  unsigned best_dist = n + 1;
  for (std::size_t i = 0; i < o.requesters.size(); ++i) {
    const PortNum in = o.requesters[i];
    const unsigned dist = (in + n - o.next_rr) % n;
    if (dist < best_dist && port.has_credits_for(inputs_[in - 1].front().blocks)) {
      best = i;
      best_dist = dist;
    }
  }
  if (best == o.requesters.size()) return;  // no credits: on_credits retries
  const PortNum in = o.requesters[best];
  o.requesters.erase(o.requesters.begin() + static_cast<std::ptrdiff_t>(best));
  o.next_rr = static_cast<PortNum>(in % n + 1);
  o.sending_from = in;
  port.transmit(inputs_[in - 1].front().p);
  ++stats_.forwarded;
}

void Switch::on_tx_done(LinkPort& port, Packet* p) {
  Output& o = outputs_[port.number() - 1];
  const PortNum in = o.sending_from;
  o.sending_from = 0;
  auto& q = inputs_[in - 1];
  IBFSIM_CHECK(!q.empty() && q.front().p == p, "switch output finished a packet its input does not hold");
  const std::uint32_t blocks = q.front().blocks;
  q.pop_front();
  ports_[in - 1]->free_rx(blocks);
  if (!q.empty()) consider_head(in);
}

void Switch::on_output_free(LinkPort& port) { try_start(port.number()); }

void Switch::on_credits(LinkPort& port) { try_start(port.number()); }

void Switch::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  if (kind == kEligible) {
    const PortNum in = static_cast<PortNum>(arg);
    const PortNum out = inputs_[in - 1].front().out;
    outputs_[out - 1].requesters.push_back(in);
    try_start(out);
  } else if (kind == kDiscardAtTail) {
    auto* p = static_cast<Packet*>(ptr);
    const PortNum in = static_cast<PortNum>(arg & 0xFF);
    ledger_.dropped(static_cast<DropReason>(arg >> 8));
    ++stats_.discarded;
    ports_[in - 1]->free_rx(credits_for_bytes(p->wire_bytes()));
    pool_.release(p);
  }
}

}  // namespace ibfsim
