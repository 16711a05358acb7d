// What a subnet manager's congestion control step sends (OpenSM's osm_congestion_control.c does
// the same after routing): every switch a SwitchCongestionSetting Set (all of Control_Map) and,
// for ports with settings of their own, SwitchPortCongestionSetting Sets; every CA port a
// CACongestionSetting Set and one CongestionControlTable Set per 64-entry block.
// CongestionControlSettings is the scenario's `congestion_control:` block (docs/scenario.md), in
// the terms of OpenSM's cc_* options; the plans turn it into attributes for one node.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/subnet_manager/congestion_control/ca_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/congestion_control/congestion_control_table_mad.h"
#include "sim/subnet_manager/congestion_control/switch_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/switch_port_congestion_setting.h"
#include "sim/transport/cc_throttle.h"

namespace ibfsim {

struct CongestionControlSettings {
  bool enabled = false;
  // SwitchCongestionSetting of every switch.
  std::uint8_t threshold = 8;
  std::uint8_t packet_size = 1;      // credits (64 B)
  std::uint16_t marking_rate = 0;
  std::uint8_t cs_threshold = 0;
  std::uint16_t cs_return_delay = 0;
  enum class Ports : std::uint8_t { kHcaPorts, kAll, kNone, kList };
  Ports victim = Ports::kHcaPorts;   // Victim_Mask
  Ports credit = Ports::kNone;       // Credit_Mask
  std::vector<std::pair<std::size_t, unsigned>> victim_ports, credit_ports;  // (node, port) for kList
  // SwitchPortCongestionSetting: one port's own values (unset ones keep the switch's).
  struct PortOverride {
    std::size_t node = 0;
    unsigned port = 0;
    std::optional<std::uint8_t> threshold, packet_size, cs_threshold;
    std::optional<std::uint16_t> marking_rate;
  };
  std::vector<PortOverride> port_overrides;
  // CACongestionSetting of every CA port: the same entry for every SL.
  bool per_sl = false;
  CaCongestionEntry ca;
  CongestionControlTable cct;
};

struct SwitchCcPlan {
  SwitchCongestionSetting setting;
  std::vector<std::pair<unsigned, SwitchPortCongestionSetting>> port_blocks;  // (block, elements)
};

struct CaCcPlan {
  CaCongestionSetting setting;
  std::vector<CongestionControlTableBlock> cct_blocks;  // block i at index i
};

// The plan of switch `node` with `num_ports` ports; hca_port[p] says whether port p faces a CA.
SwitchCcPlan switch_cc_plan(const CongestionControlSettings& s, std::size_t node, unsigned num_ports,
                            const std::vector<bool>& hca_port);
CaCcPlan ca_cc_plan(const CongestionControlSettings& s);

// The Set MADs of a plan, in the order OpenSM sends them; transaction IDs count up from `*tid`.
std::vector<Mad> switch_cc_mads(const SwitchCcPlan& plan, std::uint64_t* tid);
std::vector<Mad> ca_cc_mads(const CaCcPlan& plan, std::uint64_t* tid);

}  // namespace ibfsim
