#include "sim/core/packet_ledger.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/rank_exchange.h"

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

namespace {
constexpr std::size_t kDrops = static_cast<std::size_t>(DropReason::kCount);
}  // namespace

std::vector<std::uint64_t> PacketLedger::local_counts() const {
  // Every count as a flat list, in a fixed order; the last slot (the other ranks') left out.
  std::vector<std::uint64_t> flat(7 + 2 * kDrops, 0);
  for (std::size_t s = 0; s + 1 < slots_.size(); ++s) {
    const Counts& c = slots_[s];
    std::size_t i = 0;
    for (std::uint64_t v : {c.created, c.injected, c.delivered, c.replicated, c.mgmt_created, c.mgmt_delivered,
                            c.frames_dropped})
      flat[i++] += v;
    for (std::size_t k = 0; k < kDrops; ++k) flat[i++] += c.dropped[k];
    for (std::size_t k = 0; k < kDrops; ++k) flat[i++] += c.mgmt_dropped[k];
  }
  return flat;
}

void PacketLedger::set_rank_base() { rank_base_ = local_counts(); }

void PacketLedger::gather_ranks() {
  IBFSIM_CHECK(slots_.size() >= 2 && !rank_base_.empty(), "the ledger's rank base is set when the run is split");
  // This rank's counts since the split; the other ranks' are the sum of all less these.
  std::vector<std::uint64_t> mine = local_counts();
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] -= rank_base_[i];
  std::vector<std::uint64_t> all = mine;
  ranks::sum(all);
  Counts& others = slots_.back();
  std::size_t i = 0;
  for (std::uint64_t* f : {&others.created, &others.injected, &others.delivered, &others.replicated, &others.mgmt_created,
                           &others.mgmt_delivered, &others.frames_dropped}) {
    *f = all[i] - mine[i];
    ++i;
  }
  for (std::size_t k = 0; k < kDrops; ++k, ++i) others.dropped[k] = all[i] - mine[i];
  for (std::size_t k = 0; k < kDrops; ++k, ++i) others.mgmt_dropped[k] = all[i] - mine[i];
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
