// Adaptive routing groups (the `ar_ftree` and `ar_updn` engines, docs/adaptive_routing.md): for
// every switch and every CA LID, the set of output ports that reach the LID on an equally short
// up*/down* path, so that a switch may send each packet out of whichever of them is least busy
// while the static LFT entry stays the default route. A pure function of the graph, the static
// tables the engine computed and the switches' ranks.
//
// Directions: a link between switches of ranks r(u) < r(w) goes DOWN from u to w (ranks count from
// the roots, 0). Between equal ranks: with `equal_rank_up` (updn) the link goes UP from the larger
// node GUID to the smaller and between two roots UP both ways, as updn has it; without (ftree)
// such links are never used. For a destination switch t (the one the CA port is cabled to):
//   D(v) = the fewest hops from v to t going only DOWN,
//   A(v) = the fewest hops of a path that goes UP zero or more times, then only DOWN
//          (A(v) = min(D(v), 1 + A(w) over the UP links v -> w)).
// The group of switch u != t for LID l, whose static port leads to w0:
//   * static step DOWN: every port to a switch w one step DOWN with 1 + D(w) = D(u) whose own
//     static step for l goes DOWN too (or w = t);
//   * static step UP: every port to a switch w one step UP with 1 + A(w) = A(u), and every port to
//     a switch w one step DOWN with 1 + D(w) = A(u) whose own static step goes DOWN (or w = t).
// A packet therefore never turns from DOWN to UP, whichever member each switch picks, so the
// routes keep up/down's freedom from deadlock. An entry with fewer than two members, or whose
// members do not include the static port, is left static (group 0), as is any entry that would
// need a 4096th group at its switch. Switch LIDs stay static.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

inline constexpr std::uint32_t kArUnranked = 0xFFFFFFFF;

// `rank`: per graph node, the switch's rank (0 at the roots), kArUnranked for switches outside
// the tree (their links are not used) and for CAs.
AdaptiveRoutingTables compute_ar_groups(const SubnetGraph& g, const RoutingTables& t,
                                        const std::vector<std::uint32_t>& rank, bool equal_rank_up);

}  // namespace ibfsim
