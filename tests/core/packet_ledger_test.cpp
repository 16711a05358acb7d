#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/core/packet_ledger.h"

using namespace ibfsim;

TEST_CASE("the packet ledger balances only when every packet is accounted for", "[core][ledger]") {
  PacketLedger l;
  for (int i = 0; i < 5; ++i) l.created();
  for (int i = 0; i < 4; ++i) l.injected();
  l.delivered();
  l.delivered();
  l.dropped(DropReason::kUnknownDlid);
  // 5 created: 2 delivered, 1 dropped, 1 in the network, 1 still queued at its source.
  CHECK_NOTHROW(l.check_balanced(2, 1));
  CHECK_THROWS_AS(l.check_balanced(1, 1), SimError);  // one packet vanished
  CHECK_THROWS_AS(l.check_balanced(2, 0), SimError);  // in-network count disagrees
  CHECK(l.dropped_total() == 1);
  CHECK(std::string(drop_reason_name(DropReason::kUnknownDlid)) == "unknown_dlid");
}
