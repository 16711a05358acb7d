#include "sim/subnet_manager/sma/switch_sma.h"

#include <algorithm>

#include "sim/subnet_manager/mad/notice.h"

namespace ibfsim {

namespace {

constexpr std::uint16_t kDeviceIdSwitch = 0xCB20;  // as a Mellanox Switch-IB reports it
constexpr std::uint32_t kVendorMellanox = 0x0002C9;
constexpr std::uint16_t kLinearFdbCap = 0xC000;     // every unicast LID
constexpr std::uint16_t kMulticastFdbCap = 0x4000;  // every multicast LID
constexpr std::size_t kPKeyEntries = 32;

SmaState initial_state(Switch& sw, const SwitchSmaConfig& c) {
  const unsigned n = sw.num_ports();
  SmaState s;
  NodeInfo& ni = s.node_info;
  ni.node_type = IB_NODE_TYPE_SWITCH;
  ni.num_ports = static_cast<std::uint8_t>(n);
  ni.system_image_guid = ni.node_guid = ni.port_guid = c.node_guid;
  ni.partition_cap = kPKeyEntries;
  ni.device_id = kDeviceIdSwitch;
  ni.vendor_id = kVendorMellanox;
  s.description = c.description;
  s.ports.resize(n + 1);
  for (SmaPort& port : s.ports) {
    port.p_keys.assign(kPKeyEntries, 0);
    port.p_keys[0] = IB_DEFAULT_PKEY;
  }
  // Port 0, the management port: always up; it holds the switch's LID.
  PortInfo& p0 = s.ports[0].info;
  p0.lid = sw.lid();
  p0.capability_mask = IB_PORT_CAP_HAS_SL_MAP | IB_PORT_CAP_HAS_TRAP;
  p0.port_state = IB_LINK_ACTIVE;
  p0.port_physical_state = IB_PORT_PHYS_STATE_LINKUP;
  p0.mtu_cap = p0.neighbor_mtu = IB_MTU_LEN_4096;
  p0.vl_cap = p0.operational_vls = 1;
  s.ports[0].guid = c.node_guid;
  for (unsigned p = 1; p <= n; ++p) {
    auto pick = [&](const std::vector<std::uint8_t>& v, std::uint8_t all) { return v.empty() ? all : v.at(p); };
    SmaPort& port = s.ports[p];
    port.info = power_up_port_info(sw.port(static_cast<PortNum>(p)), pick(c.speeds, 0x07), pick(c.speeds_ext, 0x0F),
                                   pick(c.widths, 0x1F), sw.neighbor_mtu(static_cast<PortNum>(p)),
                                   sw.config().hoq_life_code);
    store_vl_arbitration(port, sw.vl_arbitration(static_cast<PortNum>(p)));
  }
  s.sl_to_vl.assign(n + 1, std::vector<SlToVlMappingTable>(n + 1));
  for (unsigned in = 0; in <= n; ++in)
    for (unsigned out = 0; out <= n; ++out) {
      const SlToVlTable& t = sw.sl_to_vl_table(static_cast<PortNum>(in ? in : 1), static_cast<PortNum>(out ? out : 1));
      for (unsigned sl = 0; sl < 16; ++sl) s.sl_to_vl[in][out].vl_of_sl[sl] = t.vl(static_cast<std::uint8_t>(sl));
    }
  SwitchInfo& si = s.switch_info;
  si.linear_fdb_cap = kLinearFdbCap;
  si.multicast_fdb_cap = kMulticastFdbCap;
  si.linear_fdb_top = sw.lft().top();
  si.life_time_value = static_cast<std::uint8_t>(sw.config().life_time_code & 0x1F);
  si.optimized_sl_to_vl_mapping_programming = 1;  // the all-input/all-output modifier bits work
  si.partition_enforcement_cap = kPKeyEntries;
  s.ar_info.group_cap = kArGroupMax;  // adaptive routing: every 12-bit group
  for (Lid lid = 0; lid <= si.linear_fdb_top && lid < kLinearFdbCap; ++lid) {
    const PortNum out = sw.lft().lookup(lid);
    if (out == kNoRoute) continue;
    if (s.lft.size() <= lid) s.lft.resize(static_cast<std::size_t>(lid) + 1, kNoRoute);
    s.lft[lid] = out;
  }
  const unsigned positions = s.mft_positions();
  for (const auto& [mlid, ports] : sw.mft().entries()) {
    const std::size_t i = static_cast<std::size_t>(mlid - kMulticastLidBase);
    if (s.mft.size() < (i + 1) * positions) s.mft.resize((i + 1) * positions, 0);
    for (PortNum p : ports)
      s.mft[i * positions + p / kMftPortsPerMask] |= static_cast<std::uint16_t>(1u << (p % kMftPortsPerMask));
  }
  return s;
}

}  // namespace

SwitchSma::SwitchSma(Switch& sw, SwitchSmaConfig config)
    : SmaShell(sw, sw.pool(), sw.ledger(), initial_state(sw, config), DrNode{true, static_cast<PortNum>(sw.num_ports())},
               config.timing),
      sw_(sw),
      config_(std::move(config)) {
  sw_.set_management_agent(this);
}

PortNum SwitchSma::lid_route(Lid dlid, PortNum) const {
  const PortNum out = sw_.lft().lookup(dlid);
  return out == kNoRoute || out == 0 || out > sw_.num_ports() ? 0 : out;
}

void SwitchSma::sync_port(PortNum p) {
  if (p == 0) return;  // the management port is always up
  sync_live_port_info(state_.ports[p].info, sw_.port(p));
}

void SwitchSma::apply(const Smp& request, const SmaResult& result, PortNum) {
  const unsigned n = sw_.num_ports();
  switch (request.attribute_id) {
    case IB_MAD_ATTR_PORT_INFO: {
      const PortNum p = result.port;
      const SmaPort& port = state_.ports[p];
      const PortInfo& pi = port.info;
      if (p == 0) {
        sw_.set_lid(pi.lid, pi.lmc);
        return;
      }
      LinkPort& lp = sw_.port(p);
      sw_.set_neighbor_mtu(p, mtu_bytes_of_code(pi.neighbor_mtu));
      sw_.set_hoq_life(p, pi.hoq_life);
      const unsigned vls = data_vls_of_code(pi.operational_vls);
      if (vls != lp.op_vls()) lp.set_op_vls(vls);
      if (pi.port_state != static_cast<std::uint8_t>(lp.state())) lp.set_state(static_cast<PortState>(pi.port_state));
      if (sw_.vl_arbitration(p).high_limit != pi.vl_high_limit) sw_.set_vl_arbitration(p, vl_arbitration_of(port));
      sw_.on_credits(lp);  // what waits for the port may go now
      return;
    }
    case IB_MAD_ATTR_SWITCH_INFO:
      sw_.set_life_time(state_.switch_info.life_time_value);
      sw_.lft().set_top(state_.switch_info.linear_fdb_top);
      return;
    case IB_MAD_ATTR_LIN_FWD_TBL: {
      const std::size_t first = static_cast<std::size_t>(request.attribute_modifier) * kLftBlockEntries;
      for (std::size_t i = 0; i < kLftBlockEntries; ++i)
        sw_.lft().set(static_cast<Lid>(first + i), state_.lft[first + i]);
      sw_.lft().set_top(state_.switch_info.linear_fdb_top);
      return;
    }
    case IB_MAD_ATTR_MCAST_FWD_TBL: {
      const MftAttributeModifier m = decode_mft_attribute_modifier(request.attribute_modifier);
      const unsigned positions = state_.mft_positions();
      for (std::size_t i = 0; i < kMftBlockEntries; ++i) {
        const std::size_t e = static_cast<std::size_t>(m.block) * kMftBlockEntries + i;
        std::vector<PortNum> ports;
        for (unsigned pos = 0; pos < positions; ++pos)
          for (unsigned b = 0; b < kMftPortsPerMask; ++b)
            if (state_.mft[e * positions + pos] >> b & 1) ports.push_back(static_cast<PortNum>(pos * kMftPortsPerMask + b));
        sw_.mft().set(static_cast<Lid>(kMulticastLidBase + e), std::move(ports));
      }
      return;
    }
    case IB_MAD_ATTR_SLVL_TABLE: {
      const SlToVlAttributeModifier m = decode_sl_to_vl_attribute_modifier(request.attribute_modifier);
      for (unsigned in = 1; in <= n; ++in) {
        if (!m.all_input_ports && in != m.input_port) continue;
        for (unsigned out = 1; out <= n; ++out) {
          if (!m.all_output_ports && out != m.output_port) continue;
          sw_.set_sl_to_vl(static_cast<PortNum>(in), static_cast<PortNum>(out),
                           SlToVlTable::from(state_.sl_to_vl[in][out].vl_of_sl));
        }
      }
      return;
    }
    case IB_MAD_ATTR_VL_ARBITRATION:
      sw_.set_vl_arbitration(result.port, vl_arbitration_of(state_.ports[result.port]));
      return;
    case IBFSIM_MAD_ATTR_AR_INFO: {
      const AdaptiveRoutingInfo& info = state_.ar_info;
      ArSettings s{info.enable, info.fast_recovery, info.sl_mask, static_cast<Time>(info.flowlet_gap_ns) * kNs,
                   info.credit_levels, {}, info.congestion_threshold,
                   static_cast<Time>(info.congestion_hold_ns) * kNs};
      for (PortNum p : ar_mask_ports(info.notify_ports)) s.notify_ports.set(p);
      s.flowlet_margin = std::max<std::uint8_t>(info.flowlet_margin, 1);
      sw_.routing_unit().adaptive().set_settings(s);
      sw_.fault_notifier().clear();  // new tables supersede what notifications excluded
      sw_.ar_congestion().clear();
      return;
    }
    case IBFSIM_MAD_ATTR_AR_GROUP_TABLE: {
      const std::size_t first = static_cast<std::size_t>(request.attribute_modifier) * kArGroupsPerBlock;
      for (std::size_t i = 0; i < kArGroupsPerBlock; ++i)
        if (first + i != 0)
          sw_.routing_unit().adaptive().set_group(static_cast<std::uint16_t>(first + i), ar_mask_ports(state_.ar_groups[first + i]));
      sw_.fault_notifier().clear();
      sw_.ar_congestion().clear();
      return;
    }
    case IBFSIM_MAD_ATTR_AR_LFT: {
      const std::size_t first = static_cast<std::size_t>(request.attribute_modifier) * kArLftBlockEntries;
      for (std::size_t i = 0; i < kArLftBlockEntries; ++i)
        sw_.routing_unit().adaptive().set_group_of(static_cast<Lid>(first + i), state_.ar_lft[first + i]);
      sw_.fault_notifier().clear();
      sw_.ar_congestion().clear();
      return;
    }
    default:
      return;  // P_Keys are kept, not enforced on switch ports
  }
}

bool SwitchSma::sm_port_up(PortNum) const {
  for (unsigned p = 1; p <= sw_.num_ports(); ++p)
    if (sw_.port(static_cast<PortNum>(p)).state() != PortState::kDown) return true;
  return false;
}

void SwitchSma::send_gmp_from_sm(const Mad& mad, PortNum port, Lid dlid, std::uint8_t sl) {
  if (dlid != sw_.lid()) {
    const PortNum out = lid_route(dlid, port);
    if (out != 0) send_gmp(mad, dlid, sl, out);
    return;
  }
  // To the switch itself: its agents answer without the MAD leaving the node.
  ReceivedGmp request;
  request.mad = mad;
  request.lrh.dlid = request.lrh.slid = dlid;
  request.lrh.sl = sl;
  request.src_qp = 1;
  const auto answer = on_gmp(request, 0);
  if (!answer) return;
  ++stats_.gmps_answered;
  ReceivedGmp back = request;
  back.mad = *answer;
  local_answers_.push_back(back);
  module().schedule<&SwitchSma::local_gmp_answered>(ScheduledModule::now() + timing().process, this);
}

void SwitchSma::local_gmp_answered() {
  const ReceivedGmp answer = local_answers_.front();
  local_answers_.pop_front();
  if (sm_) sm_->on_gmp(answer, 0);
}

void SwitchSma::on_port_state_change(PortNum port) {
  state_.switch_info.port_state_change = true;
  if (sm_) {
    sm_->on_port_state_change(port);  // the SM runs here: no trap to itself
    return;
  }
  if (trap_tid_ != 0) return;  // the outstanding trap tells the SM already
  // No SM to tell yet (or no LID to send from): it sees the change when it sweeps.
  if (!is_unicast_lid(state_.ports[0].info.master_sm_lid) || sw_.lid() == 0) return;
  trap_tid_ = next_tid_++;
  trap_sends_ = 0;
  module().schedule<&SwitchSma::trap_due>(ScheduledModule::now() + timing().process, this, trap_tid_);
}

void SwitchSma::send_trap() {
  const Lid sm_lid = state_.ports[0].info.master_sm_lid;
  const Lid own = sw_.lid();
  const PortNum out = is_unicast_lid(sm_lid) && own != 0 ? lid_route(sm_lid, 0) : 0;
  if (out == 0) {
    trap_tid_ = 0;  // no SM to tell yet: it will see the change when it sweeps
    return;
  }
  Smp trap;
  trap.mgmt_class = IB_MCLASS_SUBN_LID;
  trap.method = IB_MAD_METHOD_TRAP;
  trap.attribute_id = IB_MAD_ATTR_NOTICE;
  trap.transaction_id = trap_tid_;
  trap.m_key = state_.ports[0].info.m_key;
  trap.data = encode_notice(make_trap_128(own));
  send_smp(trap, sm_lid, own, out);
  ++stats_.traps_sent;
  if (++trap_sends_ < config_.trap_repeats)
    module().schedule<&SwitchSma::trap_due>(ScheduledModule::now() + config_.trap_repeat, this, trap_tid_);
  else
    trap_tid_ = 0;
}

void SwitchSma::trap_due(std::uint64_t tid) {
  if (tid == trap_tid_) send_trap();
}

void SwitchSma::on_trap_repress(const Smp& smp) {
  if (smp.transaction_id == trap_tid_) trap_tid_ = 0;
}

std::optional<Mad> SwitchSma::on_gmp(const ReceivedGmp& gmp, PortNum port) {
  if (is_response_method(gmp.mad[3])) {
    if (sm_) sm_->on_gmp(gmp, port);  // an answer to the SM running here
    return std::nullopt;
  }
  if (gmp.mad[1] != IB_MCLASS_CC) return std::nullopt;
  SwitchCongestionConfig c = sw_.congestion_config();
  const Mad answer = switch_cc_agent(gmp.mad, c, sw_.num_ports());
  if (gmp.mad[3] == IB_MAD_METHOD_SET && decode_cc_mad(answer).header.status == IB_MAD_STATUS_SUCCESS)
    sw_.set_congestion_control(c);
  return answer;
}

}  // namespace ibfsim
