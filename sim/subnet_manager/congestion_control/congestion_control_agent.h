// The Congestion Control Agent of a node (IBA Vol1 Annex A10.4): answers Congestion Control MADs
// (class 0x21, cc_mad.h) by reading or changing the node's settings. A switch's agent takes
// CongestionInfo, SwitchCongestionSetting and SwitchPortCongestionSetting; a CA's takes
// CongestionInfo, CACongestionSetting and CongestionControlTable. Get and Set are answered with
// GetResp holding the attribute (after a Set: as it now is); CongestionInfo is read-only.
// Errors go in the response status: a class version other than 2 -> 0x0004, a method other than
// Get/Set -> 0x0008, an attribute the node does not have (or a Set of CongestionInfo) -> 0x000C,
// a block out of range -> 0x001C (nothing is changed then). CC_Key protection is not modelled.
//
// Pure functions over the settings: whoever calls the agent (the fabric at setup today; a node's
// GSI on QP1 once a subnet manager sends CC MADs in-band) applies the settings to the Switch or
// Hca with set_congestion_control.
#pragma once
#include <cstdint>

#include "sim/network/congestion_detector.h"
#include "sim/subnet_manager/congestion_control/ca_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/congestion_control/congestion_control_table_mad.h"
#include "sim/subnet_manager/congestion_control/congestion_info.h"
#include "sim/subnet_manager/congestion_control/switch_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/switch_port_congestion_setting.h"
#include "sim/transport/cc_throttle.h"

namespace ibfsim {

// CongestionControlTable blocks a CA port holds (ControlTableCap): 16 x 64 entries.
constexpr std::uint8_t kCaControlTableCap = 16;

Mad switch_cc_agent(const Mad& request, SwitchCongestionConfig& config, unsigned num_ports);
Mad ca_cc_agent(const Mad& request, CaCongestionConfig& config);

// What the attributes do to the settings, and what a Get reads back.
void apply_switch_congestion_setting(const SwitchCongestionSetting& s, SwitchCongestionConfig& c);
SwitchCongestionSetting switch_congestion_setting_of(const SwitchCongestionConfig& c);
// Element i of `block` is port 32 x block + i; elements of ports the switch does not have are ignored.
void apply_switch_port_congestion_setting(const SwitchPortCongestionSetting& s, unsigned block,
                                          SwitchCongestionConfig& c, unsigned num_ports);
// Each existing port's marking parameters as a valid Control_Type 0 element.
SwitchPortCongestionSetting switch_port_congestion_setting_of(const SwitchCongestionConfig& c, unsigned block,
                                                              unsigned num_ports);
// Port_Control always; the entries of the SLs in Control_Map.
void apply_ca_congestion_setting(const CaCongestionSetting& s, CaCongestionConfig& c);
CaCongestionSetting ca_congestion_setting_of(const CaCongestionConfig& c);
// CCTI_Limit (for the whole table) and entries 64 x block .. 64 x block + 63.
void apply_congestion_control_table_block(const CongestionControlTableBlock& b, unsigned block, CaCongestionConfig& c);
CongestionControlTableBlock congestion_control_table_block_of(const CaCongestionConfig& c, unsigned block);

}  // namespace ibfsim
