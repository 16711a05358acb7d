#include "sim/subnet_manager/sma/sma.h"

#include <algorithm>

#include "sim/subnet_manager/mad/m_key_check.h"
#include "sim/subnet_manager/mad/node_description.h"

namespace ibfsim {

unsigned data_vls_of_code(std::uint8_t code) {
  switch (code) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 8;
    case 5: return 15;
    default: return 0;
  }
}

std::uint32_t mtu_bytes_of_code(std::uint8_t code) { return code >= 1 && code <= 5 ? 128u << code : 0; }

std::uint8_t mtu_code_of_bytes(std::uint32_t bytes) {
  for (std::uint8_t c = 1; c <= 5; ++c)
    if (mtu_bytes_of_code(c) == bytes) return c;
  return 0;
}

namespace {

// An answer with a status and no attribute change (the data is whatever the handler wrote).
struct Answer {
  std::uint16_t status = IB_MAD_STATUS_SUCCESS;
  bool applied = false;
  PortNum port = 0;
};

Answer bad_field() { return Answer{IB_MAD_STATUS_INVALID_FIELD, false, 0}; }
Answer unsupported() { return Answer{IB_MAD_STATUS_UNSUP_METHOD_ATTR, false, 0}; }

bool is_set(const Smp& r) { return r.method == IB_MAD_METHOD_SET; }

PortNum port_info_port(const SmaState& s, const Smp& r, PortNum arrival) {
  if (!s.is_switch()) return arrival;  // a CA answers for the port it was asked on
  const std::uint32_t m = r.attribute_modifier;
  return m <= s.num_ports() ? static_cast<PortNum>(m) : 0;
}

// ---- PortInfo ----

// The state a Set may move a port to, or nullopt if the transition is not allowed.
std::optional<std::uint8_t> next_port_state(std::uint8_t current, std::uint8_t wanted) {
  if (wanted == IB_LINK_NO_CHANGE) return current;
  if (wanted == IB_LINK_ARMED && (current == IB_LINK_INIT || current == IB_LINK_ARMED)) return wanted;
  if (wanted == IB_LINK_ACTIVE && (current == IB_LINK_ARMED || current == IB_LINK_ACTIVE)) return wanted;
  return std::nullopt;
}

Answer port_info(SmaState& s, const Smp& r, PortNum arrival, SmpData& data, bool hide_m_key) {
  const PortNum pn = port_info_port(s, r, arrival);
  if (s.is_switch() ? r.attribute_modifier > s.num_ports() : (pn == 0 || pn >= s.ports.size())) return bad_field();
  SmaPort& port = s.ports[pn];
  Answer a{IB_MAD_STATUS_SUCCESS, false, pn};
  if (is_set(r)) {
    const PortInfo in = decode_port_info(r.data.data());
    PortInfo next = port.info;
    const auto state = next_port_state(port.info.port_state, in.port_state);
    if (!state || in.port_physical_state != IB_PORT_PHYS_STATE_NO_CHANGE) return bad_field();
    next.port_state = *state;
    const bool holds_lid = !s.is_switch() || pn == 0;
    if (holds_lid) {
      if (!is_unicast_lid(in.lid) || in.lmc > 7) return bad_field();
      next.lid = in.lid;
      next.lmc = in.lmc;
      next.master_sm_lid = in.master_sm_lid;
      next.master_sm_sl = in.master_sm_sl;
    }
    if (!s.is_switch() || pn != 0) {
      // Link settings of a physical port.
      if (in.neighbor_mtu < 1 || in.neighbor_mtu > port.info.mtu_cap) return bad_field();
      next.neighbor_mtu = in.neighbor_mtu;
      if (in.operational_vls != 0) {
        if (in.operational_vls > port.info.vl_cap || data_vls_of_code(in.operational_vls) == 0) return bad_field();
        const bool quiet = port.info.port_state == IB_LINK_DOWN || port.info.port_state == IB_LINK_INIT;
        if (in.operational_vls != port.info.operational_vls && !quiet) return bad_field();
        next.operational_vls = in.operational_vls;
      }
      next.vl_high_limit = in.vl_high_limit;
      next.hoq_life = in.hoq_life;
      next.vl_stall_count = in.vl_stall_count;
      if (in.link_width_enabled != 0)
        next.link_width_enabled = in.link_width_enabled == 0xFF ? port.info.link_width_supported : in.link_width_enabled;
      if (in.link_speed_enabled != 0)
        next.link_speed_enabled = in.link_speed_enabled == 0x0F ? port.info.link_speed_supported : in.link_speed_enabled;
      if (in.link_speed_ext_enabled != 0)
        next.link_speed_ext_enabled =
            in.link_speed_ext_enabled == 0x1F ? port.info.link_speed_ext_supported : in.link_speed_ext_enabled;
      if (in.link_down_default_state != 0) next.link_down_default_state = in.link_down_default_state;
      next.partition_enforcement_inbound = in.partition_enforcement_inbound;
      next.partition_enforcement_outbound = in.partition_enforcement_outbound;
      next.filter_raw_inbound = in.filter_raw_inbound;
      next.filter_raw_outbound = in.filter_raw_outbound;
    }
    next.m_key = in.m_key;
    next.gid_prefix = in.gid_prefix;
    next.m_key_protect_bits = in.m_key_protect_bits;
    next.m_key_lease_period = in.m_key_lease_period;
    next.subnet_timeout = in.subnet_timeout;
    next.client_reregister = in.client_reregister;
    port.info = next;
    a.applied = true;
  }
  PortInfo out = port.info;
  out.local_port_num = s.is_switch() ? arrival : pn;
  if (hide_m_key) out.m_key = 0;
  data = encode_port_info(out);
  return a;
}

// ---- switch tables ----

Answer switch_info(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch()) return unsupported();
  if (r.attribute_modifier != 0) return bad_field();
  Answer a;
  if (is_set(r)) {
    const SwitchInfo in = decode_switch_info(r.data.data());
    if (in.linear_fdb_top >= s.switch_info.linear_fdb_cap) return bad_field();
    SwitchInfo& si = s.switch_info;
    si.linear_fdb_top = in.linear_fdb_top;
    si.default_port = in.default_port;
    si.default_multicast_primary_port = in.default_multicast_primary_port;
    si.default_multicast_not_primary_port = in.default_multicast_not_primary_port;
    si.life_time_value = in.life_time_value & 0x1F;
    if (in.port_state_change) si.port_state_change = false;  // writing 1 clears it
    si.multicast_fdb_top = in.multicast_fdb_top;
    a.applied = true;
  }
  data = encode_switch_info(s.switch_info);
  return a;
}

Answer linear_forwarding_table(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch()) return unsupported();
  const std::uint32_t block = r.attribute_modifier;
  if (static_cast<std::uint64_t>(block) * kLftBlockEntries >= s.switch_info.linear_fdb_cap) return bad_field();
  const std::size_t first = static_cast<std::size_t>(block) * kLftBlockEntries;
  Answer a;
  if (is_set(r)) {
    const LinearForwardingTableBlock in = decode_linear_forwarding_table(r.data.data());
    for (PortNum p : in.ports)
      if (p != kNoRoute && p > s.num_ports()) return bad_field();
    if (s.lft.size() < first + kLftBlockEntries) s.lft.resize(first + kLftBlockEntries, kNoRoute);
    std::copy(in.ports.begin(), in.ports.end(), s.lft.begin() + static_cast<std::ptrdiff_t>(first));
    a.applied = true;
  }
  LinearForwardingTableBlock out;
  for (std::size_t i = 0; i < kLftBlockEntries && first + i < s.lft.size(); ++i) out.ports[i] = s.lft[first + i];
  data = encode_linear_forwarding_table(out);
  return a;
}

Answer multicast_forwarding_table(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch()) return unsupported();
  const MftAttributeModifier m = decode_mft_attribute_modifier(r.attribute_modifier);
  const unsigned positions = s.mft_positions();
  if (m.position >= positions || static_cast<std::uint64_t>(m.block) * kMftBlockEntries >= s.switch_info.multicast_fdb_cap ||
      (r.attribute_modifier & 0x0FFFFE00u) != 0)
    return bad_field();
  const std::size_t first = static_cast<std::size_t>(m.block) * kMftBlockEntries;
  Answer a;
  if (is_set(r)) {
    const MulticastForwardingTableBlock in = decode_multicast_forwarding_table(r.data.data());
    const std::size_t need = (first + kMftBlockEntries) * positions;
    if (s.mft.size() < need) s.mft.resize(need, 0);
    for (std::size_t i = 0; i < kMftBlockEntries; ++i) s.mft[(first + i) * positions + m.position] = in.port_masks[i];
    a.applied = true;
  }
  MulticastForwardingTableBlock out;
  for (std::size_t i = 0; i < kMftBlockEntries; ++i) {
    const std::size_t at = (first + i) * positions + m.position;
    out.port_masks[i] = at < s.mft.size() ? s.mft[at] : 0;
  }
  data = encode_multicast_forwarding_table(out);
  return a;
}

// ---- adaptive routing (mad/adaptive_routing.h) ----

Answer ar_info(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch() || s.ar_info.group_cap == 0) return unsupported();
  if (r.attribute_modifier != 0) return bad_field();
  Answer a;
  if (is_set(r)) {
    const AdaptiveRoutingInfo in = decode_ar_info(r.data.data());
    if (in.group_top > s.ar_info.group_cap) return bad_field();
    const std::uint16_t cap = s.ar_info.group_cap;
    s.ar_info = in;
    s.ar_info.group_cap = cap;  // read-only
    a.applied = true;
  }
  data = encode_ar_info(s.ar_info);
  return a;
}

Answer ar_group_table(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch() || s.ar_info.group_cap == 0) return unsupported();
  const std::uint64_t first = static_cast<std::uint64_t>(r.attribute_modifier) * kArGroupsPerBlock;
  if (first > s.ar_info.group_cap) return bad_field();
  Answer a;
  if (is_set(r)) {
    const ArGroupTableBlock in = decode_ar_group_table(r.data.data());
    for (std::size_t i = 0; i < kArGroupsPerBlock; ++i) {
      const std::vector<PortNum> ports = ar_mask_ports(in.groups[i]);
      if (!ports.empty() && (first + i == 0 || first + i > s.ar_info.group_cap || ports.front() == 0 ||
                             ports.back() > s.num_ports()))
        return bad_field();
    }
    if (s.ar_groups.size() < first + kArGroupsPerBlock) s.ar_groups.resize(first + kArGroupsPerBlock, ArPortMask{});
    for (std::size_t i = 0; i < kArGroupsPerBlock; ++i) s.ar_groups[first + i] = in.groups[i];
    a.applied = true;
  }
  ArGroupTableBlock out;
  for (std::size_t i = 0; i < kArGroupsPerBlock && first + i < s.ar_groups.size(); ++i) out.groups[i] = s.ar_groups[first + i];
  data = encode_ar_group_table(out);
  return a;
}

Answer ar_lft(SmaState& s, const Smp& r, SmpData& data) {
  if (!s.is_switch() || s.ar_info.group_cap == 0) return unsupported();
  const std::uint64_t first = static_cast<std::uint64_t>(r.attribute_modifier) * kArLftBlockEntries;
  if (first >= s.switch_info.linear_fdb_cap) return bad_field();
  Answer a;
  if (is_set(r)) {
    const ArLftBlock in = decode_ar_lft(r.data.data());
    for (std::uint16_t g : in.groups)
      if (g > s.ar_info.group_cap) return bad_field();
    if (s.ar_lft.size() < first + kArLftBlockEntries) s.ar_lft.resize(first + kArLftBlockEntries, 0);
    std::copy(in.groups.begin(), in.groups.end(), s.ar_lft.begin() + static_cast<std::ptrdiff_t>(first));
    a.applied = true;
  }
  ArLftBlock out;
  for (std::size_t i = 0; i < kArLftBlockEntries && first + i < s.ar_lft.size(); ++i) out.groups[i] = s.ar_lft[first + i];
  data = encode_ar_lft(out);
  return a;
}

// ---- per-port tables ----

Answer sl_to_vl(SmaState& s, const Smp& r, PortNum arrival, SmpData& data) {
  const SlToVlAttributeModifier m = decode_sl_to_vl_attribute_modifier(r.attribute_modifier);
  Answer a;
  if (!s.is_switch()) {
    // A CA has one table per port: the one the SMP came in on.
    if (is_set(r)) {
      s.sl_to_vl[0][arrival] = decode_sl_to_vl_mapping_table(r.data.data());
      a.applied = true;
    }
    a.port = arrival;
    data = encode_sl_to_vl_mapping_table(s.sl_to_vl[0][arrival]);
    return a;
  }
  const unsigned n = s.num_ports();
  const bool many = m.all_input_ports || m.all_output_ports;
  if (m.input_port > n || m.output_port > n || (r.attribute_modifier & 0xFFFC0000u) != 0) return bad_field();
  if (many && (!is_set(r) || s.switch_info.optimized_sl_to_vl_mapping_programming == 0)) return bad_field();
  if (is_set(r)) {
    const SlToVlMappingTable t = decode_sl_to_vl_mapping_table(r.data.data());
    for (unsigned in = 0; in <= n; ++in) {
      if (!m.all_input_ports && in != m.input_port) continue;
      for (unsigned out = 0; out <= n; ++out) {
        if (!m.all_output_ports && out != m.output_port) continue;
        s.sl_to_vl[in][out] = t;
      }
    }
    a.applied = true;
  }
  a.port = m.output_port;
  data = encode_sl_to_vl_mapping_table(s.sl_to_vl[m.input_port][m.output_port]);
  return a;
}

Answer vl_arbitration(SmaState& s, const Smp& r, PortNum arrival, SmpData& data) {
  const VlArbAttributeModifier m = decode_vl_arb_attribute_modifier(r.attribute_modifier);
  const PortNum pn = s.is_switch() ? m.port : arrival;
  if (s.is_switch() && (m.port == 0 || m.port > s.num_ports())) return bad_field();
  SmaPort& port = s.ports[pn];
  const unsigned sel = m.block_selector;
  const unsigned cap = sel <= 2 ? port.info.vl_arbitration_low_cap : port.info.vl_arbitration_high_cap;
  const unsigned first_entry = (sel == 2 || sel == 4) ? kVlArbBlockEntries : 0;
  if (sel < 1 || sel > 4 || cap <= first_entry) return bad_field();
  Answer a{IB_MAD_STATUS_SUCCESS, false, pn};
  if (is_set(r)) {
    VlArbitrationTableBlock in = decode_vl_arbitration_table(r.data.data());
    // Entries beyond the port's capacity do not exist.
    for (std::size_t i = 0; i < kVlArbBlockEntries; ++i)
      if (first_entry + i >= cap) in.entries[i] = VlArbEntry{};
    port.vl_arbitration[sel - 1] = in;
    a.applied = true;
  }
  data = encode_vl_arbitration_table(port.vl_arbitration[sel - 1]);
  return a;
}

Answer p_key_table(SmaState& s, const Smp& r, PortNum arrival, SmpData& data) {
  const PKeyAttributeModifier m = decode_p_key_attribute_modifier(r.attribute_modifier);
  PortNum pn = arrival;
  if (s.is_switch()) {
    if (m.port > s.num_ports()) return bad_field();
    pn = m.port;
  } else if (m.port != 0) {
    return bad_field();
  }
  SmaPort& port = s.ports[pn];
  const std::size_t first = static_cast<std::size_t>(m.block) * kPKeyBlockEntries;
  if (first >= port.p_keys.size()) return bad_field();
  Answer a{IB_MAD_STATUS_SUCCESS, false, pn};
  if (is_set(r)) {
    const PKeyTableBlock in = decode_p_key_table(r.data.data());
    std::copy(in.p_keys.begin(), in.p_keys.end(), port.p_keys.begin() + static_cast<std::ptrdiff_t>(first));
    a.applied = true;
  }
  PKeyTableBlock out;
  std::copy_n(port.p_keys.begin() + static_cast<std::ptrdiff_t>(first), kPKeyBlockEntries, out.p_keys.begin());
  data = encode_p_key_table(out);
  return a;
}

}  // namespace

PortNum sma_port_info_target(const SmaState& s, const Smp& request, PortNum arrival_port) {
  if (request.attribute_id != IB_MAD_ATTR_PORT_INFO) return 0;
  return port_info_port(s, request, arrival_port);
}

SmaResult sma_process(SmaState& s, const Smp& r, PortNum arrival, Time now) {
  SmaResult result;
  if (is_response_method(r.method) || r.method == IB_MAD_METHOD_TRAP || r.method == IB_MAD_METHOD_TRAP_REPRESS)
    return result;  // not a request to an SMA: the shells take traps and answers
  auto answer = [&](std::uint16_t status) {
    result.respond = true;
    result.response = r;
    // Get and Set are answered by GetResp; another method by itself with the response bit.
    const bool get_or_set = r.method == IB_MAD_METHOD_GET || r.method == IB_MAD_METHOD_SET;
    result.response.method = get_or_set ? IB_MAD_METHOD_GET_RESP : static_cast<std::uint8_t>(r.method | IB_MAD_METHOD_RESP_MASK);
    result.response.status = r.directed() ? (status & IB_SMP_STATUS_MASK) : status;
    if (r.directed()) result.response.direction = true;
    return result;
  };
  if (r.class_version != 1) return answer(IB_MAD_STATUS_UNSUP_CLASS_VER);
  if (r.method != IB_MAD_METHOD_GET && r.method != IB_MAD_METHOD_SET) return answer(IB_MAD_STATUS_UNSUP_METHOD);

  // R41: the M_Key of the port the SMP came in on (a switch's is port 0's), and its lease.
  const PortNum keyed_port = s.is_switch() ? 0 : arrival;
  SmaPort& keyed = s.ports[keyed_port];
  PortInfo& key_info = keyed.info;
  if (keyed.m_key_lease_ends != 0 && now >= keyed.m_key_lease_ends) {
    key_info.m_key_protect_bits = 0;  // the lease ran out before this SMP came
    keyed.m_key_lease_ends = 0;
  }
  if (key_info.m_key == 0 || r.m_key == key_info.m_key) keyed.m_key_lease_ends = 0;  // the valid key stops the lease timer
  const MKeyCheck mk = check_m_key(key_info.m_key, key_info.m_key_protect_bits, r.method, r.m_key);
  if (mk == MKeyCheck::kViolation) {
    if (key_info.m_key_violations < 0xFFFF) ++key_info.m_key_violations;
    if (keyed.m_key_lease_ends == 0 && key_info.m_key_lease_period != 0)
      keyed.m_key_lease_ends = now + key_info.m_key_lease_period * kSec;
    result.m_key_violation = true;
    result.port = keyed_port;
    return result;
  }

  SmpData data{};
  Answer a;
  switch (r.attribute_id) {
    case IB_MAD_ATTR_NODE_DESC:
      if (is_set(r)) a = unsupported();
      else if (r.attribute_modifier != 0) a = bad_field();
      else data = encode_node_description(NodeDescription{s.description});
      break;
    case IB_MAD_ATTR_NODE_INFO: {
      if (is_set(r)) {
        a = unsupported();
        break;
      }
      if (r.attribute_modifier != 0) {
        a = bad_field();
        break;
      }
      NodeInfo ni = s.node_info;
      ni.local_port_num = arrival;
      ni.port_guid = s.ports[s.is_switch() ? 0 : arrival].guid;
      data = encode_node_info(ni);
      break;
    }
    case IB_MAD_ATTR_SWITCH_INFO: a = switch_info(s, r, data); break;
    case IB_MAD_ATTR_PORT_INFO: a = port_info(s, r, arrival, data, mk == MKeyCheck::kAcceptHiddenMKey); break;
    case IB_MAD_ATTR_P_KEY_TABLE: a = p_key_table(s, r, arrival, data); break;
    case IB_MAD_ATTR_SLVL_TABLE: a = sl_to_vl(s, r, arrival, data); break;
    case IB_MAD_ATTR_VL_ARBITRATION: a = vl_arbitration(s, r, arrival, data); break;
    case IB_MAD_ATTR_LIN_FWD_TBL: a = linear_forwarding_table(s, r, data); break;
    case IB_MAD_ATTR_MCAST_FWD_TBL: a = multicast_forwarding_table(s, r, data); break;
    case IBFSIM_MAD_ATTR_AR_INFO: a = ar_info(s, r, data); break;
    case IBFSIM_MAD_ATTR_AR_GROUP_TABLE: a = ar_group_table(s, r, data); break;
    case IBFSIM_MAD_ATTR_AR_LFT: a = ar_lft(s, r, data); break;
    case IB_MAD_ATTR_SM_INFO:
      // Only where an SM runs; a Set (handover) is answered with the SM's state unchanged.
      if (!s.sm_info) a = unsupported();
      else data = encode_sm_info(*s.sm_info);
      break;
    default: a = unsupported(); break;
  }
  answer(a.status);
  // An error answer echoes the request's data; a good one carries the attribute.
  if (a.status == IB_MAD_STATUS_SUCCESS) result.response.data = data;
  result.applied = a.applied;
  result.port = a.port;
  return result;
}

}  // namespace ibfsim
