// LID assignment as OpenSM 3.3 does it on a subnet whose ports all start at LID 0 (fresh bring-up,
// reassign_lids FALSE, lmc_esp0 FALSE), checked against every golden guid2lid
// (tests/subnet_manager/golden/README.md, "What OpenSM does: LID assignment"):
//   1. The SM's own port takes the first range (an HCA port, or a switch's port 0 when the SM runs on
//      a switch: checked against OpenSM run on a switch, golden runs `*_sm_sw*`).
//   2. Then every other port that has LIDs (every switch's port 0, every HCA port with a link) in
//      OpenSM's port GUID table order: ascending guid_table_order(port GUID).
//   3. A cursor starts at LID 1. An HCA port takes the next 2^LMC LIDs aligned to 2^LMC at or after
//      the cursor; a switch takes exactly one LID, unaligned. The cursor moves past what was taken;
//      holes left by alignment are never filled.
#pragma once
#include <vector>

#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

constexpr unsigned kMaxLmc = 7;

// The ports that get LIDs, in the order they get them (the SM port first).
std::vector<SubnetPortRef> lid_assignment_order(const SubnetGraph& g);

// Sets g.lmc and every LidRange (clearing any earlier ones; ports without LIDs keep none).
// Throws InputError if lmc > 7 or the ports need more than the unicast LIDs 1..0xBFFF.
void assign_lids(SubnetGraph& g, unsigned lmc);

}  // namespace ibfsim
