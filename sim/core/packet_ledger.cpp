#include "sim/core/packet_ledger.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

const char* drop_reason_name(DropReason r) {
  switch (r) {
    case DropReason::kVcrcError: return "vcrc_error";
    case DropReason::kIcrcError: return "icrc_error";
    case DropReason::kUnknownDlid: return "unknown_dlid";
    case DropReason::kWrongDlid: return "wrong_dlid";
    case DropReason::kMalformed: return "malformed";
    case DropReason::kNoQp: return "no_qp";
    case DropReason::kQkeyMismatch: return "qkey_mismatch";
    case DropReason::kVl15Overflow: return "vl15_overflow";
    case DropReason::kInvalidVl: return "invalid_vl";
    case DropReason::kSlToVlDrop: return "sl_to_vl_drop";
    case DropReason::kMtuExceeded: return "mtu_exceeded";
    case DropReason::kHoqLifetime: return "hoq_lifetime";
    case DropReason::kSwitchLifetime: return "switch_lifetime";
    case DropReason::kPortState: return "port_state";
    case DropReason::kLinkDown: return "link_down";
    case DropReason::kPhyError: return "phy_error";
    case DropReason::kPkeyViolation: return "pkey_violation";
    case DropReason::kEbp: return "ebp";
    case DropReason::kInvalidLid: return "invalid_lid";
    case DropReason::kSourceMismatch: return "source_mismatch";
    case DropReason::kCount: break;
  }
  return "?";
}

std::uint64_t PacketLedger::dropped_count(DropReason r) const {
  std::uint64_t n = 0;
  for (const Counts& c : slots_) n += c.dropped[static_cast<int>(r)];
  return n;
}

std::uint64_t PacketLedger::management_dropped_count(DropReason r) const {
  std::uint64_t n = 0;
  for (const Counts& c : slots_) n += c.mgmt_dropped[static_cast<int>(r)];
  return n;
}

std::uint64_t PacketLedger::dropped_total() const {
  std::uint64_t t = frames_dropped_count();
  for (const Counts& c : slots_)
    for (auto d : c.dropped) t += d;
  return t;
}

std::uint64_t PacketLedger::management_dropped_total() const {
  std::uint64_t t = 0;
  for (const Counts& c : slots_)
    for (auto d : c.mgmt_dropped) t += d;
  return t;
}

void PacketLedger::check_balanced(std::uint64_t all_alive, std::uint64_t queued_at_sources) const {
  const std::uint64_t mgmt_created = management_created_count();
  const std::uint64_t mgmt_done = management_delivered_count() + management_dropped_total();
  IBFSIM_CHECK(mgmt_created >= mgmt_done && all_alive >= mgmt_created - mgmt_done,
               fmt::format("management packets: created {} < delivered + dropped {}, or more alive than {} live packets",
                           mgmt_created, mgmt_done, all_alive));
  const std::uint64_t alive = all_alive - (mgmt_created - mgmt_done);
  const std::uint64_t created = created_count(), delivered = delivered_count(), dropped = dropped_total();
  const std::uint64_t done = delivered + dropped + replicated_count();
  IBFSIM_CHECK(created == done + alive,
               fmt::format("created {} != delivered {} + dropped {} + replicated {} + alive {}", created, delivered,
                           dropped, replicated_count(), alive));
  const std::uint64_t injected = injected_count();
  IBFSIM_CHECK(injected >= done && injected - done + queued_at_sources == alive,
               fmt::format("injected {} - delivered {} - dropped {} != alive {} - queued {}", injected, delivered,
                           dropped, alive, queued_at_sources));
}

}  // namespace ibfsim
