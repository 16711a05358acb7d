// The subnet management agent (IBA Vol1 14.2-14.3): what every switch and CA answers on QP0, as a
// pure function over the node's management state. The SystemC shells (switch_sma.h, hca_sma.h)
// own time and wiring: they walk the directed route, keep the live fields of the state current
// (port and link states), call sma_process after the SMA's latency, send the response, and
// program the hardware with what a Set changed.
//
// Attributes: NodeDescription, NodeInfo (Get only), SwitchInfo (switches), PortInfo, P_KeyTable,
// SLtoVLMappingTable, VLArbitrationTable, LinearForwardingTable and MulticastForwardingTable
// (switches), SMInfo (ports where an SM runs), and ibfsim's adaptive routing attributes
// (AdaptiveRoutingInfo, AdaptiveRoutingGroupTable, AdaptiveRoutingLFT: switches with a GroupCap,
// mad/adaptive_routing.h). Methods Get and Set; a Set answers with the attribute as it is
// afterwards. Adaptive routing Sets are refused (0x001C) for a GroupTop or group above GroupCap,
// a group naming port 0 or a port the switch lacks, or an AR LFT block beyond LinearFDBCap.
//
// Status of the answer (IBA Vol1 13.4.7): a ClassVersion other than 1 -> 0x0004; a method other
// than Get/Set -> 0x0008; an attribute the node does not implement, or a Set of a read-only one ->
// 0x000C; an AttributeModifier naming no port/block the node has, or a Set with a value the node
// cannot take (an invalid PortState transition, an MTU above MTUCap, OperationalVLs above VLCap or
// changed outside Init, a LID that is not unicast, an LFT port the switch lacks, a LinearFDBTop
// beyond LinearFDBCap) -> 0x001C, and nothing of that Set is applied.
//
// M_Key (R41, m_key_check.h): checked against the M_Key of the port the SMP arrived on (a switch:
// its port 0). A violation is discarded without an answer, counted in that port's M_KeyViolations
// (saturating at 0xFFFF) and reported to the shell, which sends trap 256 (Bad M_Key) to the SM.
// The lease (IBA Vol1 14.2.4.2): a violation starts the port's M_Key lease timer of
// M_KeyLeasePeriod seconds unless it runs already (0: no lease, protection never lapses); an SMP
// carrying the valid M_Key stops it; when it runs out, M_KeyProtectBits fall to 0, so that an SM
// taking over from a dead one can read the M_Key again. Only an SMP can see the protection, so the
// lapse is applied when the next SMP arrives (as the qib and hfi1 drivers do), not by a timer event.
//
// PortState by Set: NoChange; Armed from Init (or Armed); Active from Armed (or Active). Down and
// Init are refused (0x001C): taking a link down by SMP is not modelled. PortPhysicalState must be
// NoChange. On a switch, the LID, LMC and MasterSMLID of ports 1..N are ignored (port 0 holds the
// switch's own).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/time.h"
#include "sim/subnet_manager/mad/adaptive_routing.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/p_key_table.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"
#include "sim/subnet_manager/mad/sm_info.h"
#include "sim/subnet_manager/mad/smp.h"
#include "sim/subnet_manager/mad/switch_info.h"
#include "sim/subnet_manager/mad/vl_arbitration_table.h"

namespace ibfsim {

// One port of a node as its SMA knows it.
struct SmaPort {
  PortInfo info;  // local_port_num is filled in per answer
  Guid guid = 0;  // a CA port's GUID; a switch's port 0 holds the switch's (ports 1..N: 0)
  std::vector<std::uint16_t> p_keys;  // the P_KeyTable, in blocks of 32 (its size is a multiple of 32)
  // VLArbitrationTable blocks 1-4: low entries 0-31, low 32-63, high 0-31, high 32-63.
  std::array<VlArbitrationTableBlock, 4> vl_arbitration{};
  Time m_key_lease_ends = 0;  // the M_Key lease timer runs out then (0: not running)
};

struct SmaState {
  NodeInfo node_info;  // local_port_num and port_guid are filled in per answer
  std::string description;
  // Indexed by port number 0..NumPorts; a CA's entry 0 is unused.
  std::vector<SmaPort> ports;
  // SLtoVLMappingTable: a switch's [input][output] (0..N each); a CA's [0][port].
  std::vector<std::vector<SlToVlMappingTable>> sl_to_vl;
  // Switches only.
  SwitchInfo switch_info;
  std::vector<PortNum> lft;         // entries written so far, by LID; missing entries read 255
  std::vector<std::uint16_t> mft;   // port masks by (MLID - 0xC000) * positions + position
  // Adaptive routing (mad/adaptive_routing.h): the info, the group table by group number (entry 0
  // unused) and the AR LFT by LID (missing entries read 0, static).
  AdaptiveRoutingInfo ar_info;
  std::vector<ArPortMask> ar_groups;
  std::vector<std::uint16_t> ar_lft;
  std::optional<SmInfo> sm_info;    // set where an SM runs: SMInfo is answered

  bool is_switch() const { return node_info.node_type == IB_NODE_TYPE_SWITCH; }
  unsigned num_ports() const { return node_info.num_ports; }
  // Mask positions per MLID: ports 0..N in groups of 16.
  unsigned mft_positions() const { return num_ports() / kMftPortsPerMask + 1; }
};

// What the SMA did with one SMP.
struct SmaResult {
  bool respond = false;   // false: discarded without an answer (an M_Key violation, not a request)
  Smp response;           // the answer (GetResp), D = 1 for a directed-route SMP
  bool applied = false;   // a Set changed the state: the shell programs the hardware
  PortNum port = 0;       // the port the attribute was about (PortInfo, VLArb, P_Key; SL->VL: output)
  bool m_key_violation = false;  // refused for its M_Key (port: the port whose M_Key it failed)
};

// The port whose PortInfo the request reads or writes (the arrival port on a CA; the modifier on a
// switch), so the shell can refresh its live fields first; 0 if the request is not about PortInfo
// or names no port.
PortNum sma_port_info_target(const SmaState& s, const Smp& request, PortNum arrival_port);

// Handles one request that arrived on `arrival_port` (a switch's port 0 for an SMP that reached
// its management port by LID) at time `now` (the M_Key lease counts from it). Does not walk the
// directed route (directed_route.h) and does not handle traps (the shells do).
SmaResult sma_process(SmaState& s, const Smp& request, PortNum arrival_port, Time now = 0);

// OperationalVLs / VLCap code <-> number of data VLs (1 -> 1, 2 -> 2, 3 -> 4, 4 -> 8, 5 -> 15; 0
// for any other code).
unsigned data_vls_of_code(std::uint8_t code);
// MTU code (1-5) <-> bytes (256..4096); 0 for any other code.
std::uint32_t mtu_bytes_of_code(std::uint8_t code);
std::uint8_t mtu_code_of_bytes(std::uint32_t bytes);

}  // namespace ibfsim
