// The scenario's `fabric:` (infiniband or roce) and, for RoCE v2, its `roce:` section: what only an
// Ethernet fabric has (docs/scenario.md, "RoCE"). A RoCE run builds a RoceHcaFabric from the
// topology (fabric/ethernet_topology.h) and runs verbs flows on it (workload/roce_run.h).
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/time.h"
#include "sim/ethernet/ecn_marking.h"
#include "sim/ethernet/pfc_ingress.h"
#include "sim/phy/ethernet_speed.h"
#include "sim/transport/roce/dcqcn_config.h"

namespace ibfsim {

class YamlMap;
struct Scenario;

enum class FabricKind : std::uint8_t { kInfiniband, kRoce };

struct RoceSpec {
  EthernetRate rate{EthernetSpeed::k100G, true};  // `speed`, `fec`: every cable without an Ethernet speed of its own
  Time cable_delay = 10 * kNs;        // propagation of those cables, rounded to the nearest byte-clock edge
  Time fec_decoder = 100 * kNs;       // RS-FEC decoder latency
  bool cut_through = true;
  Time switch_latency = 300 * kNs;
  std::uint64_t switch_buffer_bytes = 16u << 20;  // one shared buffer per switch
  std::uint8_t dscp = 0;              // of every RoCE frame the HCAs send
  std::optional<std::uint8_t> pcp;    // 802.1Q priority: frames tagged (VLAN 0) when set
  // `roce.pfc`: every switch's lossless priorities (lossless 0: PFC off); headroom_bytes 0 is
  // `headroom: auto` (computed per port from its cable, pfc_headroom.h).
  EthernetPfcConfig pfc;
  // `roce.ecn`: every switch's RED/ECN marking; enabled by `roce.ecn.enabled`, else by
  // `congestion_control.enabled` (RoCE's congestion control is ECN marking + DCQCN).
  EcnMarkingConfig ecn;
  // `roce.dcqcn`: every HCA's DCQCN (HcaConfig::dcqcn) when on (same rule as ECN).
  DcqcnConfig dcqcn;
  bool dcqcn_enabled = false;
  Time deadlock_window = 100 * kUs;   // PFC deadlock detection (fabric/pfc_deadlock_detector.h)
};

// The 802.1p priority the HCAs' data frames carry: `pcp`, else the DSCP's class selector.
inline std::uint8_t roce_data_priority(const RoceSpec& r) {
  return r.pcp ? *r.pcp : static_cast<std::uint8_t>(r.dscp >> 3);
}

// Reads `fabric:` and `roce:` into s.fabric and s.roce, after everything else of the scenario (with
// fabric: infiniband, `roce:` is checked and ignored with a warning, so that one file may serve both). With
// `fabric: roce`, refuses (InputError at the entry or key, file:line:col) what a RoCE run does not
// support yet: generator flows, traffic classes, verbs flows with connect: cm or srq: true,
// collectives (SHARP among them), the trace replay, attacks, faults, routers, multicast, IPoIB,
// `subnet_manager:`, `cm:`, `shared_receive_queue:`, `link:` and `phy:`
// (addresses and routes are static), link packets in captures, packet logs, waveforms, time
// series and more than one thread. `congestion_control.enabled` turns ECN marking and DCQCN on
// (unless `roce.ecn.enabled` / `roce.dcqcn.enabled` say otherwise); its InfiniBand keys (switch,
// ca, cct) are ignored with a warning.
void parse_fabric_kind(const YamlMap& root, Scenario& s);

}  // namespace ibfsim
