#include "sim/subnet_manager/sm/cc_configuration.h"

#include <algorithm>
#include <map>

namespace ibfsim {

namespace {
std::bitset<256> port_mask(CongestionControlSettings::Ports which,
                           const std::vector<std::pair<std::size_t, unsigned>>& list, std::size_t node,
                           unsigned num_ports, const std::vector<bool>& hca_port) {
  std::bitset<256> m;
  for (unsigned p = 1; p <= num_ports && p < 255; ++p) {
    switch (which) {
      case CongestionControlSettings::Ports::kHcaPorts: m[p] = p < hca_port.size() && hca_port[p]; break;
      case CongestionControlSettings::Ports::kAll: m[p] = true; break;
      case CongestionControlSettings::Ports::kNone: break;
      case CongestionControlSettings::Ports::kList:
        m[p] = std::find(list.begin(), list.end(), std::make_pair(node, p)) != list.end();
        break;
    }
  }
  return m;
}
}  // namespace

SwitchCcPlan switch_cc_plan(const CongestionControlSettings& s, std::size_t node, unsigned num_ports,
                            const std::vector<bool>& hca_port) {
  SwitchCcPlan plan;
  SwitchCongestionSetting& w = plan.setting;
  w.control_map = kSwCcControlAll;
  w.victim_mask = port_mask(s.victim, s.victim_ports, node, num_ports, hca_port);
  w.credit_mask = port_mask(s.credit, s.credit_ports, node, num_ports, hca_port);
  w.threshold = s.threshold;
  w.packet_size = s.packet_size;
  w.cs_threshold = s.cs_threshold;
  w.cs_return_delay = s.cs_return_delay;
  w.marking_rate = s.marking_rate;
  std::map<unsigned, SwitchPortCongestionSetting> blocks;
  for (const auto& o : s.port_overrides) {
    if (o.node != node || o.port == 0 || o.port > num_ports) continue;
    const unsigned block = o.port / kSwitchPortCongestionBlockPorts;
    const unsigned i = o.port % kSwitchPortCongestionBlockPorts;
    if (o.threshold || o.packet_size || o.marking_rate) {
      // Control_Type 0 sets all three: the unset ones keep the switch-wide values.
      blocks[block][i] = {true, false, o.threshold.value_or(s.threshold), o.packet_size.value_or(s.packet_size),
                          o.marking_rate.value_or(s.marking_rate)};
    }
  }
  for (auto& [block, elements] : blocks) plan.port_blocks.emplace_back(block, elements);
  // Credit starvation thresholds are Control_Type 1 elements: a block of their own.
  std::map<unsigned, SwitchPortCongestionSetting> cs_blocks;
  for (const auto& o : s.port_overrides) {
    if (o.node != node || o.port == 0 || o.port > num_ports || !o.cs_threshold) continue;
    cs_blocks[o.port / kSwitchPortCongestionBlockPorts][o.port % kSwitchPortCongestionBlockPorts] = {
        true, true, *o.cs_threshold, 0, 0};
  }
  for (auto& [block, elements] : cs_blocks) plan.port_blocks.emplace_back(block, elements);
  return plan;
}

CaCcPlan ca_cc_plan(const CongestionControlSettings& s) {
  CaCcPlan plan;
  plan.setting.port_control = s.per_sl ? kCaCcPortControlPerSl : 0;
  plan.setting.control_map = 0xFFFF;
  for (auto& e : plan.setting.entries) e = {s.ca.ccti_timer, s.ca.ccti_increase, s.ca.trigger_threshold, s.ca.ccti_min};
  const std::size_t n = std::size_t{s.cct.ccti_limit} + 1;
  const std::size_t nblocks = (n + kCctBlockEntries - 1) / kCctBlockEntries;
  for (std::size_t b = 0; b < nblocks; ++b) {
    CongestionControlTableBlock block;
    block.ccti_limit = s.cct.ccti_limit;
    for (std::size_t i = 0; i < kCctBlockEntries; ++i) {
      const std::size_t k = b * kCctBlockEntries + i;
      if (k < n && k < s.cct.entries.size()) block.entries[i] = s.cct.entries[k];
    }
    plan.cct_blocks.push_back(block);
  }
  return plan;
}

std::vector<Mad> switch_cc_mads(const SwitchCcPlan& plan, std::uint64_t* tid) {
  std::vector<Mad> out;
  out.push_back(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_SET, IB_MAD_ATTR_SW_CONG_SETTING, 0,
                                          encode_switch_congestion_setting(plan.setting), (*tid)++)));
  for (const auto& [block, elements] : plan.port_blocks)
    out.push_back(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_SET, IB_MAD_ATTR_SW_PORT_CONG_SETTING, block,
                                            encode_switch_port_congestion_setting(elements), (*tid)++)));
  return out;
}

std::vector<Mad> ca_cc_mads(const CaCcPlan& plan, std::uint64_t* tid) {
  std::vector<Mad> out;
  out.push_back(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_SET, IB_MAD_ATTR_CA_CONG_SETTING, 0,
                                          encode_ca_congestion_setting(plan.setting), (*tid)++)));
  for (std::size_t b = 0; b < plan.cct_blocks.size(); ++b)
    out.push_back(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_SET, IB_MAD_ATTR_CC_TBL, static_cast<std::uint32_t>(b),
                                            encode_congestion_control_table_block(plan.cct_blocks[b]), (*tid)++)));
  return out;
}

}  // namespace ibfsim
