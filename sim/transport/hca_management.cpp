#include "sim/transport/hca_management.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/transport/hca.h"

namespace ibfsim {

bool HcaManagement::port_takes(PortNum n, Packet* p) {
  if (n == 0 || n > hca_.num_ports() || !hca_.port(n).connected() || hca_.port(n).state() == PortState::kDown) {
    hca_.ledger().dropped(DropReason::kLinkDown, true);
    hca_.pool().release(p);
    return false;
  }
  return true;
}

void HcaManagement::send_smp(PortNum n, Packet* p) {
  IBFSIM_CHECK(is_management_packet(*p), "QP0 sends only VL15 packets");
  if (port_takes(n, p)) hca_.send_engine(n).output().send_management(p);
}

void HcaManagement::send_gmp(PortNum n, Packet* p) {
  IBFSIM_CHECK(!is_management_packet(*p), "GMPs travel on data VLs");
  if (port_takes(n, p)) hca_.send_engine(n).output().send_gsi(p);
}

std::optional<DropReason> HcaManagement::take_smp(PortNum n, Packet* p, Lid dlid) {
  // The SMA (and SM) take SMPs to the permissive LID or to this port.
  if (dlid != kLidPermissive && !hca_.is_own_lid(n, dlid)) return DropReason::kWrongDlid;
  if (!agent_) return DropReason::kNoQp;
  hca_.port(n).free_rx(kVl15, credits_for_bytes(p->wire_bytes()));
  agent_->on_management_packet(p, n);
  return std::nullopt;
}

void HcaManagement::give_gmp(PortNum n, Packet* p, std::uint8_t vl) {
  hca_.port(n).free_rx(vl, credits_for_bytes(p->wire_bytes()));
  agent_->on_management_packet(p, n);
}

}  // namespace ibfsim
