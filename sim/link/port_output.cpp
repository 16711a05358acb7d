#include "sim/link/port_output.h"

#include "sim/core/error.h"
#include "sim/link/lrh.h"
#include "sim/link/credit_counter.h"

namespace ibfsim {

namespace {
std::uint8_t packet_vl(const Packet& p) { return lrh_vl(p.header.data()); }
}  // namespace

PortOutput::PortOutput(LinkPort& port, Source& source, VlArbConfig arbitration, bool survey_when_busy)
    : port_(port), source_(source), arbiter_(arbitration), arb_config_(std::move(arbitration)),
      survey_when_busy_(survey_when_busy) {}

void PortOutput::set_vl_arbitration(const VlArbConfig& config) {
  arb_config_ = config;
  arbiter_ = VlArbiter(config);
}

void PortOutput::send_management(Packet* p) {
  IBFSIM_CHECK(packet_vl(*p) == kVl15, "the management queue sends only VL15 packets");
  management_.push_back(p);
  try_send();
}

void PortOutput::send_gsi(Packet* p) {
  IBFSIM_CHECK(packet_vl(*p) != kVl15, "GMPs travel on data VLs");
  gsi_.push_back(p);
  try_send();
}

bool PortOutput::anything_waits() const {
  return !management_.empty() || (!gsi_.empty() && port_.state() == PortState::kActive) || source_.waiting_vls() ||
         source_.unarbitrated_waiting();
}

void PortOutput::wait_if_busy_work() {
  if (anything_waits()) port_.notify_when_free();
}

Time PortOutput::send(Packet* p) {
  p->end_pending = false;  // the node made it whole: nothing can stomp it
  return port_.transmit(p);
}

void PortOutput::try_send() {
  source_.prepare();
  if (port_.state() == PortState::kDown) {
    // SMPs waiting for a port that went down are lost with it.
    while (!management_.empty()) {
      Packet* p = management_.front();
      management_.pop_front();
      source_.drop_own(p, DropReason::kLinkDown);
    }
  }
  if (!anything_waits()) return;
  if (!management_.empty()) {
    // The node's SMPs first: VL15 goes before everything (R3, R19).
    if (!port_.can_start_data()) return port_.notify_when_free();
    Packet* p = management_.front();
    management_.pop_front();
    own_on_wire_ = p;
    send(p);
    arbiter_.sent(kVl15, static_cast<std::uint32_t>(p->wire_bytes()));
    return wait_if_busy_work();
  }
  if (!gsi_.empty() && port_.state() == PortState::kActive) {
    // GMPs next, as soon as their data VL has credits (on_credits brings us back), outside VL
    // arbitration as management traffic is.
    if (!port_.can_start_data()) return port_.notify_when_free();
    Packet* p = gsi_.front();
    const std::uint8_t v = packet_vl(*p);
    if (v < port_.op_vls() && port_.may_send(v, credits_for_bytes(p->wire_bytes()))) {
      gsi_.pop_front();
      own_on_wire_ = p;
      send(p);
      return wait_if_busy_work();
    }
  }
  if (!survey_when_busy_ && !port_.can_start_data()) return port_.notify_when_free();
  // Data: one survey of the waiting VLs tells the arbiter which may go, and which stall.
  const std::uint16_t waiting = source_.waiting_vls();
  std::uint16_t ready = 0;
  bool vl15_ready = false;
  for (std::uint16_t m = waiting; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const auto v = static_cast<std::uint8_t>(__builtin_ctz(m));
    if (v != kVl15 && v >= port_.op_vls()) continue;
    const Candidacy c = source_.candidate(v);
    if (v == kVl15) {
      vl15_ready = c == Candidacy::kReady;
      continue;
    }
    if (c == Candidacy::kReady) ready |= static_cast<std::uint16_t>(1u << v);
    if (c != Candidacy::kNone) port_.set_credit_stalled(v, c == Candidacy::kBlocked && port_.state() == PortState::kActive);
  }
  source_.surveyed();
  if (survey_when_busy_ && !port_.can_start_data()) return port_.notify_when_free();
  if (source_.send_unarbitrated(*this)) return wait_if_busy_work();
  const int vl = arbiter_.choose(ready, vl15_ready);
  if (vl < 0) return;  // no credits: on_credits retries
  const auto v = static_cast<std::uint8_t>(vl);
  Packet* p = source_.take(v);
  const Time start = port_.transmit(p);
  arbiter_.sent(vl, static_cast<std::uint32_t>(p->wire_bytes()));
  source_.sent(v, p, start);
  // The packet took credits: what waits behind it on its VL may now lack them, from now on.
  if (v != kVl15) port_.set_credit_stalled(v, source_.blocked_after_send(v));
  wait_if_busy_work();
}

void PortOutput::tx_done(Packet* p) {
  if (p == own_on_wire_) {
    own_on_wire_ = nullptr;  // the SMP or GMP is the next hop's now
    return;
  }
  source_.tx_done(p);
}

}  // namespace ibfsim
