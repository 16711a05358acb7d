#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"

#include <algorithm>

namespace ibfsim {

namespace {

// The GetResp to `in`, with `status` and (when it is 0) `data`.
Mad respond(const CcMad& in, std::uint16_t status, const CcMgmtData& data) {
  CcMad out = in;
  out.header.method = IB_MAD_METHOD_GET_RESP;
  out.header.status = status;
  out.data = status == IB_MAD_STATUS_SUCCESS ? data : in.data;
  return encode_cc_mad(out);
}

// The status of a request before its attribute is looked at (0 if it may go on).
std::uint16_t check_request(const CcMad& m) {
  if (m.header.class_version != kCcClassVersion) return IB_MAD_STATUS_UNSUP_CLASS_VER;
  if (m.header.method != IB_MAD_METHOD_GET && m.header.method != IB_MAD_METHOD_SET) return IB_MAD_STATUS_UNSUP_METHOD;
  return IB_MAD_STATUS_SUCCESS;
}

}  // namespace

void apply_switch_congestion_setting(const SwitchCongestionSetting& s, SwitchCongestionConfig& c) {
  if (s.control_map & kSwCcControlVictimMask) c.victim_mask = s.victim_mask;
  if (s.control_map & kSwCcControlCreditMask) c.credit_mask = s.credit_mask;
  if (s.control_map & kSwCcControlThreshold) {
    c.threshold = s.threshold & 0x0F;
    c.packet_size = s.packet_size;
  }
  if (s.control_map & kSwCcControlCreditStarvation) {
    c.cs_threshold = s.cs_threshold & 0x0F;
    c.cs_return_delay = s.cs_return_delay;
  }
  if (s.control_map & kSwCcControlMarkingRate) c.marking_rate = s.marking_rate;
}

SwitchCongestionSetting switch_congestion_setting_of(const SwitchCongestionConfig& c) {
  SwitchCongestionSetting s;
  s.control_map = kSwCcControlAll;
  s.victim_mask = c.victim_mask;
  s.credit_mask = c.credit_mask;
  s.threshold = c.threshold;
  s.packet_size = c.packet_size;
  s.cs_threshold = c.cs_threshold;
  s.cs_return_delay = c.cs_return_delay;
  s.marking_rate = c.marking_rate;
  return s;
}

void apply_switch_port_congestion_setting(const SwitchPortCongestionSetting& s, unsigned block,
                                          SwitchCongestionConfig& c, unsigned num_ports) {
  c.marking_override.resize(num_ports + 1);
  c.cs_override.resize(num_ports + 1);
  for (unsigned i = 0; i < kSwitchPortCongestionBlockPorts; ++i) {
    const unsigned port = block * kSwitchPortCongestionBlockPorts + i;
    const SwitchPortCongestionElement& e = s[i];
    if (!e.valid || port == 0 || port > num_ports) continue;
    if (e.credit_starvation) {
      c.cs_override[port] = static_cast<std::uint8_t>(e.threshold & 0x0F);
    } else {
      c.marking_override[port] = {true, static_cast<std::uint8_t>(e.threshold & 0x0F), e.packet_size, e.marking_rate};
    }
  }
}

SwitchPortCongestionSetting switch_port_congestion_setting_of(const SwitchCongestionConfig& c, unsigned block,
                                                              unsigned num_ports) {
  SwitchPortCongestionSetting s{};
  for (unsigned i = 0; i < kSwitchPortCongestionBlockPorts; ++i) {
    const unsigned port = block * kSwitchPortCongestionBlockPorts + i;
    if (port == 0 || port > num_ports) continue;
    const PortCongestionParams p = c.port(static_cast<PortNum>(port));
    s[i] = {true, false, p.threshold, p.packet_size, p.marking_rate};
  }
  return s;
}

void apply_ca_congestion_setting(const CaCongestionSetting& s, CaCongestionConfig& c) {
  c.per_sl = s.port_control & kCaCcPortControlPerSl;
  for (unsigned sl = 0; sl < 16; ++sl) {
    if (!(s.control_map >> sl & 1)) continue;
    const CaCongestionEntryFields& e = s.entries[sl];
    c.sl[sl] = {e.ccti_timer, e.ccti_increase, e.trigger_threshold, e.ccti_min};
  }
}

CaCongestionSetting ca_congestion_setting_of(const CaCongestionConfig& c) {
  CaCongestionSetting s;
  s.port_control = c.per_sl ? kCaCcPortControlPerSl : 0;
  s.control_map = 0xFFFF;
  for (unsigned sl = 0; sl < 16; ++sl)
    s.entries[sl] = {c.sl[sl].ccti_timer, c.sl[sl].ccti_increase, c.sl[sl].trigger_threshold, c.sl[sl].ccti_min};
  return s;
}

void apply_congestion_control_table_block(const CongestionControlTableBlock& b, unsigned block, CaCongestionConfig& c) {
  c.cct.ccti_limit = b.ccti_limit;
  const std::size_t first = std::size_t{block} * kCctBlockEntries;
  if (c.cct.entries.size() < first + kCctBlockEntries) c.cct.entries.resize(first + kCctBlockEntries);
  std::copy(b.entries.begin(), b.entries.end(), c.cct.entries.begin() + static_cast<std::ptrdiff_t>(first));
}

CongestionControlTableBlock congestion_control_table_block_of(const CaCongestionConfig& c, unsigned block) {
  CongestionControlTableBlock b;
  b.ccti_limit = c.cct.ccti_limit;
  for (unsigned i = 0; i < kCctBlockEntries; ++i) {
    const std::size_t k = std::size_t{block} * kCctBlockEntries + i;
    if (k < c.cct.entries.size()) b.entries[i] = c.cct.entries[k];
  }
  return b;
}

Mad switch_cc_agent(const Mad& request, SwitchCongestionConfig& config, unsigned num_ports) {
  const CcMad m = decode_cc_mad(request);
  if (const std::uint16_t st = check_request(m)) return respond(m, st, {});
  const bool set = m.header.method == IB_MAD_METHOD_SET;
  const std::uint32_t mod = m.header.attribute_modifier;
  switch (m.header.attribute_id) {
    case IB_MAD_ATTR_CONG_INFO:
      if (set) return respond(m, IB_MAD_STATUS_UNSUP_METHOD_ATTR, {});
      return respond(m, 0, encode_congestion_info({kCongestionInfoCreditStarvation, 0}));
    case IB_MAD_ATTR_SW_CONG_SETTING:
      if (mod != 0) return respond(m, IB_MAD_STATUS_INVALID_FIELD, {});
      if (set) apply_switch_congestion_setting(decode_switch_congestion_setting(m.data.data()), config);
      return respond(m, 0, encode_switch_congestion_setting(switch_congestion_setting_of(config)));
    case IB_MAD_ATTR_SW_PORT_CONG_SETTING:
      if (mod > num_ports / kSwitchPortCongestionBlockPorts) return respond(m, IB_MAD_STATUS_INVALID_FIELD, {});
      if (set) apply_switch_port_congestion_setting(decode_switch_port_congestion_setting(m.data.data()), mod, config, num_ports);
      return respond(m, 0, encode_switch_port_congestion_setting(switch_port_congestion_setting_of(config, mod, num_ports)));
    default:
      return respond(m, IB_MAD_STATUS_UNSUP_METHOD_ATTR, {});
  }
}

Mad ca_cc_agent(const Mad& request, CaCongestionConfig& config) {
  const CcMad m = decode_cc_mad(request);
  if (const std::uint16_t st = check_request(m)) return respond(m, st, {});
  const bool set = m.header.method == IB_MAD_METHOD_SET;
  const std::uint32_t mod = m.header.attribute_modifier;
  switch (m.header.attribute_id) {
    case IB_MAD_ATTR_CONG_INFO:
      if (set) return respond(m, IB_MAD_STATUS_UNSUP_METHOD_ATTR, {});
      return respond(m, 0, encode_congestion_info({0, kCaControlTableCap}));
    case IB_MAD_ATTR_CA_CONG_SETTING:
      if (mod != 0) return respond(m, IB_MAD_STATUS_INVALID_FIELD, {});
      if (set) apply_ca_congestion_setting(decode_ca_congestion_setting(m.data.data()), config);
      return respond(m, 0, encode_ca_congestion_setting(ca_congestion_setting_of(config)));
    case IB_MAD_ATTR_CC_TBL: {
      if (mod >= kCaControlTableCap) return respond(m, IB_MAD_STATUS_INVALID_FIELD, {});
      if (set) {
        const CongestionControlTableBlock b = decode_congestion_control_table_block(m.data.data());
        if (b.ccti_limit >= std::uint32_t{kCaControlTableCap} * kCctBlockEntries)
          return respond(m, IB_MAD_STATUS_INVALID_FIELD, {});
        apply_congestion_control_table_block(b, mod, config);
      }
      return respond(m, 0, encode_congestion_control_table_block(congestion_control_table_block_of(config, mod)));
    }
    default:
      return respond(m, IB_MAD_STATUS_UNSUP_METHOD_ATTR, {});
  }
}

}  // namespace ibfsim
