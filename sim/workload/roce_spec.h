// The scenario's `fabric:` (infiniband or roce) and, for RoCE v2, its `roce:` section: what only an
// Ethernet fabric has (docs/scenario.md, "RoCE"). A RoCE run builds a RoceHcaFabric from the
// topology (fabric/ethernet_topology.h) and runs verbs flows on it (workload/roce_run.h).
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/time.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

class YamlMap;
struct Scenario;

enum class FabricKind : std::uint8_t { kInfiniband, kRoce };

struct RoceSpec {
  EthernetRate rate{EthernetSpeed::k100G, true};  // `speed`, `fec`: every link of the fabric
  Time cable_delay = 10 * kNs;        // propagation of every cable, rounded to the nearest byte-clock edge
  Time fec_decoder = 100 * kNs;       // RS-FEC decoder latency
  bool cut_through = true;
  Time switch_latency = 300 * kNs;
  std::uint64_t switch_buffer_bytes = 16u << 20;  // one shared buffer per switch
  std::uint8_t dscp = 0;              // of every RoCE frame the HCAs send
  std::optional<std::uint8_t> pcp;    // 802.1Q priority: frames tagged (VLAN 0) when set
};

// Reads `fabric:` and `roce:` into s.fabric and s.roce, after everything else of the scenario. With
// `fabric: roce`, refuses (InputError at the entry or key, file:line:col) what a RoCE run does not
// support yet: generator flows, traffic classes, verbs flows with connect: cm or srq: true,
// collectives (SHARP among them), the trace replay, attacks, faults, routers, multicast, IPoIB,
// congestion control, `subnet_manager:`, `cm:`, `shared_receive_queue:`, `link:` and `phy:`
// (addresses and routes are static), link packets in captures, packet logs, waveforms, time
// series and more than one thread.
void parse_fabric_kind(const YamlMap& root, Scenario& s);

}  // namespace ibfsim
