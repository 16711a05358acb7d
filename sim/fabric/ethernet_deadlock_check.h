// Deadlock analysis of an Ethernet L3 fabric's routes (`ibfsim routes --deadlock-check` on a
// scenario with `fabric: roce`): the channel dependency graph, as for InfiniBand
// (subnet_manager/routing/deadlock_check.h), with a lossless priority where IB has a VL. A
// channel is one direction of a cable (leaving a port, arriving at the far one); a frame holding
// channel c while it waits for channel d makes d a dependency of c. With PFC, a cycle of
// dependencies within one lossless priority can deadlock (fabric/pfc_deadlock_detector.h finds
// one in a run); no cycle means the routes cannot.
// Paths: from every host to every other host's IP, following the switches' route tables; where a
// route has several next hops (ECMP), every one is a possible path. Every frame of a RoCE run
// carries one priority (the HCAs' PCP, or their DSCP's class selector), so the graph is the same
// for each priority checked.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "sim/ethernet/ethernet_fabric_plan.h"

namespace ibfsim {

struct EthernetChannel {
  std::size_t from = 0;  // plan node index
  PortNum from_port = 0;
  std::size_t to = 0;
  PortNum to_port = 0;
};

struct EthernetDependencyCycle {
  unsigned priority = 0;
  std::vector<EthernetChannel> channels;  // each depends on the next, the last on the first
};

struct EthernetDeadlockReport {
  std::vector<unsigned> priorities;               // checked, ascending
  std::size_t channels = 0;                       // used by some path
  std::size_t dependencies = 0;                   // distinct, per priority, summed
  std::size_t channels_in_cycles = 0;             // in a strongly connected component with a cycle
  std::vector<EthernetDependencyCycle> cycles;    // one per priority that has any
  bool deadlock_free() const { return cycles.empty(); }
};

// `priorities`: the lossless priorities the fabric's frames use.
EthernetDeadlockReport check_ethernet_deadlock(const EthernetFabricPlan& plan, const std::vector<unsigned>& priorities);

// "sw0/2 -> sw1/3": plan node name and port of each end.
std::string ethernet_channel_name(const EthernetFabricPlan& plan, const EthernetChannel& c);

// As format_deadlock_report, one line each:
//   deadlock check: priority 3, 24 channels, 36 dependencies
//   priority 3: cycle of 6 channels: sw0/2 -> sw1/3, sw1/2 -> sw2/3, ...
//   deadlock check: cycles in 1 priority (6 channels in cycles): deadlock possible
// or, when there is none, "deadlock check: no cycle in any priority: deadlock-free".
std::string format_ethernet_deadlock_report(const EthernetFabricPlan& plan, const EthernetDeadlockReport& r);

}  // namespace ibfsim
