#include "sim/network/management_port.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

std::string ManagementPort::name() const { return std::string(sw_.name()) + "/0"; }

bool ManagementPort::sendable(PortNum out, Packet* p) {
  if (out >= 1 && out <= sw_.num_ports() && sw_.link(out).connected() && sw_.link(out).state() != PortState::kDown)
    return true;
  sw_.count_lost_own(out, DropReason::kLinkDown);
  sw_.pool().release(p);
  return false;
}

void ManagementPort::send_management(PortNum out, Packet* p) {
  IBFSIM_CHECK(is_management_packet(*p), "the management port sends only VL15 packets");
  if (sendable(out, p)) sw_.output_unit(out).stage().send_management(p);
}

void ManagementPort::send_gsi(PortNum out, Packet* p) {
  IBFSIM_CHECK(lrh_vl(p->header.data()) != kVl15, "GMPs travel on data VLs");
  if (sendable(out, p)) sw_.output_unit(out).stage().send_gsi(p);
}

void ManagementPort::packet_arrives(Packet* p, Arrival a) {
  LinkPort& port = sw_.link(a.in);
  const std::uint32_t blocks = credits_for_bytes(p->wire_bytes());
  const std::uint8_t vl = lrh_vl(p->header.data());  // VL15 (an SMP) or a data VL (a GMP)
  if (a.check)
    if (auto bad = port.check_tail(p->link_seq, p)) {
      sw_.count_discard(a.in, *bad, *p);
      port.free_rx(vl, blocks);
      sw_.pool().release(p);
      return;
    }
  port.free_rx(vl, blocks);
  if (aggregation_ && vl != kVl15 && aggregation_->take(p, a.in)) return;
  if (!agent_) {
    sw_.count_discard(a.in, DropReason::kNoQp, *p);
    sw_.pool().release(p);
    return;
  }
  agent_->on_management_packet(p, a.in);
}

}  // namespace ibfsim
