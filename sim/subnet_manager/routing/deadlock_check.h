// Deadlock analysis of a routing: the channel dependency graph (Dally and Seitz). A channel is one
// direction of a link (leaving port A, arriving at port B); a packet holding channel c while it
// waits for channel d makes d a dependency of c. With credit flow control per VL, a cycle of
// dependencies within one VL can deadlock; no cycle in any VL means the routing is deadlock-free.
// Paths: from every HCA port with LIDs to every LID (HCA ports and switches), following the LFTs;
// a path runs on the VL its SL maps to (RoutingTables::sl; VL 0 without it). Switches originate
// only management traffic (SMPs, on VL15 with its own buffers), so they are no sources here.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// One direction of a link: leaving `from`, arriving at `to`.
struct Channel {
  SubnetPortRef from;
  SubnetPortRef to;
};

struct DependencyCycle {
  unsigned vl = 0;
  std::vector<Channel> channels;  // each depends on the next, the last on the first
};

struct DeadlockReport {
  std::vector<unsigned> vls;            // the VLs some path uses, ascending
  std::size_t channels = 0;             // channels used by some path
  std::size_t dependencies = 0;         // distinct dependencies over all VLs
  std::size_t channels_in_cycles = 0;   // channels in a strongly connected component with a cycle
  std::vector<DependencyCycle> cycles;  // one per VL that has any (found by depth-first search)

  bool deadlock_free() const { return cycles.empty(); }
};

// `switch_destinations` false: only the paths to HCA LIDs (nue, like OpenSM's nue, keeps only
// those free of cycles: switches receive no data traffic).
DeadlockReport check_deadlock(const SubnetGraph& g, const RoutingTables& t, bool switch_destinations = true);

// "sw0/2 -> sw1/1": node description and port of each end.
std::string channel_name(const SubnetGraph& g, const Channel& c);

// The report as text, one line each:
//   deadlock check: VLs 0-1, 48 channels, 96 dependencies
//   VL 0: cycle of 6 channels: sw0/2 -> sw1/1, sw1/2 -> sw2/1, ...
//   deadlock check: 2 cycles found (6 channels in cycles): deadlock possible
// or, when there is none, "deadlock check: no cycle in any VL: deadlock-free".
std::string format_deadlock_report(const SubnetGraph& g, const DeadlockReport& r);

}  // namespace ibfsim
