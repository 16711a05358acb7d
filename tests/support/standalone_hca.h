// An HCA on its own: no cable, no switch, no other node. Tests of the HCA's blocks (send engine,
// receive engine) drive the blocks' API on it directly and run its calendar for the events.
#pragma once
#include <array>
#include <cstdint>

#include "sim/core/calendar_process.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/time.h"
#include "sim/transport/hca.h"

namespace ibfsim::test {

struct StandaloneHca {
  PacketPool pool;
  PacketLedger ledger;
  Hca* hca = nullptr;
};

// An HCA built from `config` (port 1's LID must be in it), its ports Down and not cabled. It lives
// until the process ends, as SystemC modules must.
inline StandaloneHca& standalone_hca(HcaConfig config) {
  init_time_resolution();
  auto* s = new StandaloneHca;
  s->hca = new Hca("hca", std::move(config), s->pool, s->ledger);
  return *s;
}

// Runs the calendars for `duration`, rethrowing a failure inside an event.
inline void run_standalone_for(Time duration) {
  CalendarProcess::run_for(duration);
  ScheduledModule::rethrow_failure();
}

// A packet of the pool holding a copy of `p`, as a wire would hand one over.
inline Packet* pool_copy(PacketPool& pool, const Packet& p) {
  Packet* q = pool.acquire();
  *q = p;
  return q;
}

// Drop counts of the ledger, reason by reason (data packets).
inline std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> ledger_drops(const PacketLedger& l) {
  std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> a{};
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r) a[r] = l.dropped_count(static_cast<DropReason>(r));
  return a;
}

}  // namespace ibfsim::test
