#include "sim/subnet_manager/sm/sm_sweep.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/sm/lid_assignment.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/node_description.h"
#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"
#include "sim/subnet_manager/sma/sma.h"
#include "sim/subnet_manager/mad/vl_arbitration_table.h"

namespace ibfsim {

const char* sweep_phase_name(SweepPhase p) {
  switch (p) {
    case SweepPhase::kIdle: return "idle";
    case SweepPhase::kDiscovery: return "discovery";
    case SweepPhase::kLids: return "lids";
    case SweepPhase::kLfts: return "lfts";
    case SweepPhase::kQos: return "qos";
    case SweepPhase::kArm: return "arm";
    case SweepPhase::kActivate: return "activate";
    case SweepPhase::kDone: return "done";
  }
  return "?";
}

SmSweep::SmSweep(SmSweepConfig config, PortNum sm_port) : config_(std::move(config)), sm_port_(sm_port) {}

void SmSweep::start() {
  phase_ = SweepPhase::kDiscovery;
  ready_.clear();
  pending_.clear();
  views_.clear();
  node_by_guid_.clear();
  graph_ = SubnetGraph{};
  tables_ = RoutingTables{};
  stats_ = SweepStats{};
  notes_.clear();
  // The SM's own node first: a directed route of no hops.
  ask(Ask::kNodeInfo, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, {}, kNoSubnetNode, 0);
}

std::optional<Smp> SmSweep::next_request() {
  if (ready_.empty()) return std::nullopt;
  Smp s = std::move(ready_.front());
  ready_.pop_front();
  return s;
}

void SmSweep::ask(Ask what, std::uint8_t method, std::uint16_t attr, std::uint32_t mod, std::vector<PortNum> path,
                  std::size_t node, PortNum port, std::size_t from, const SmpData& data) {
  const std::uint64_t tid = next_tid_++;
  Smp s = make_dr_request(method, attr, mod, tid, path, config_.m_key);
  s.data = data;
  ready_.push_back(s);
  pending_.emplace(tid, Pending{what, node, port, from, std::move(path)});
  ++stats_.requests;
}

std::vector<PortNum> SmSweep::path_to(std::size_t node, PortNum port) const {
  const NodeView& v = views_[node];
  return graph_.nodes[node].is_switch() ? v.path : v.port_paths[port];
}

bool SmSweep::port_up(std::size_t node, PortNum port) const {
  const NodeView& v = views_[node];
  return port < v.ports.size() && v.port_known[port] &&
         v.ports[port].port_physical_state == IB_PORT_PHYS_STATE_LINKUP && graph_.nodes[node].ports[port].peer;
}

void SmSweep::explore(std::size_t from, PortNum port) {
  std::vector<PortNum> path = path_to(from, port);
  if (path.size() >= kSmpMaxHopCount) return;  // beyond what a directed route reaches
  path.push_back(port);
  ask(Ask::kNodeInfo, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, std::move(path), kNoSubnetNode, port, from);
}

void SmSweep::on_answer(const Smp& a) {
  auto it = pending_.find(a.transaction_id);
  if (it == pending_.end() || !is_response_method(a.method)) return;
  const Pending p = std::move(it->second);
  pending_.erase(it);
  if (a.status != IB_MAD_STATUS_SUCCESS) {
    ++stats_.errors;
    notes_.push_back(fmt::format("attribute {:#06x} modifier {:#x}: status {:#06x}", a.attribute_id, a.attribute_modifier,
                                 a.status));
  } else {
    switch (p.ask) {
      case Ask::kNodeInfo: on_node_info(p, a); break;
      case Ask::kNodeDesc: graph_.nodes[p.node].description = decode_node_description(a.data.data()).text; break;
      case Ask::kSwitchInfo: views_[p.node].switch_info = decode_switch_info(a.data.data()); break;
      case Ask::kPortInfo: on_port_info(p, a); break;
      case Ask::kSet:
        if (a.attribute_id == IB_MAD_ATTR_PORT_INFO) views_[p.node].ports[p.port] = decode_port_info(a.data.data());
        if (a.attribute_id == IB_MAD_ATTR_SWITCH_INFO) views_[p.node].switch_info = decode_switch_info(a.data.data());
        break;
    }
  }
  advance();
}

void SmSweep::on_lost(std::uint64_t tid) {
  auto it = pending_.find(tid);
  if (it == pending_.end()) return;
  notes_.push_back(fmt::format("no answer to an SMP on the route of {} hops", it->second.path.size()));
  pending_.erase(it);
  ++stats_.errors;
  advance();
}

void SmSweep::on_node_info(const Pending& p, const Smp& a) {
  const NodeInfo ni = decode_node_info(a.data.data());
  const bool is_switch = ni.node_type == IB_NODE_TYPE_SWITCH;
  if (ni.num_ports == 0 || (!is_switch && (ni.local_port_num < 1 || ni.local_port_num > ni.num_ports))) return;
  std::size_t n;
  auto it = node_by_guid_.find(ni.node_guid);
  const bool fresh = it == node_by_guid_.end();
  if (fresh) {
    n = views_.size();
    node_by_guid_.emplace(ni.node_guid, n);
    NodeView v;
    v.info = ni;
    v.ports.resize(ni.num_ports + 1u);
    v.port_known.assign(ni.num_ports + 1u, false);
    if (is_switch) v.path = p.path;
    else v.port_paths.resize(ni.num_ports + 1u);
    views_.push_back(std::move(v));
    SubnetNode sn;
    sn.kind = is_switch ? SubnetNodeKind::kSwitch
                        : ni.node_type == IB_NODE_TYPE_ROUTER ? SubnetNodeKind::kRouter : SubnetNodeKind::kCa;
    sn.node_guid = ni.node_guid;
    sn.system_image_guid = ni.system_image_guid;
    sn.ports.resize(ni.num_ports + 1u);
    if (is_switch) sn.ports[0].guid = ni.port_guid;
    graph_.nodes.push_back(std::move(sn));
    ask(Ask::kNodeDesc, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_DESC, 0, p.path, n, 0);
    if (is_switch) {
      ask(Ask::kSwitchInfo, IB_MAD_METHOD_GET, IB_MAD_ATTR_SWITCH_INFO, 0, p.path, n, 0);
      for (unsigned port = 0; port <= ni.num_ports; ++port)
        ask(Ask::kPortInfo, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, port, p.path, n, static_cast<PortNum>(port));
    }
  } else {
    n = it->second;
    if (graph_.nodes[n].is_switch() != is_switch) return;
  }
  if (p.from == kNoSubnetNode && p.path.empty()) graph_.sm_port = SubnetPortRef{n, sm_port_};
  if (!is_switch) {
    // A CA is reached port by port: each port has its own path and GUID.
    const PortNum lp = ni.local_port_num;
    if (graph_.nodes[n].ports[lp].guid == 0) {
      graph_.nodes[n].ports[lp].guid = ni.port_guid;
      views_[n].port_paths[lp] = p.path;
      ask(Ask::kPortInfo, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, lp, p.path, n, lp);
    }
  }
  if (p.from != kNoSubnetNode) {
    // The link the NodeInfo crossed last: (from, port) <-> (n, LocalPortNum).
    const PortNum far = ni.local_port_num;
    if (far < 1 || far > ni.num_ports) return;
    graph_.nodes[p.from].ports[p.port].peer = SubnetPortRef{n, far};
    graph_.nodes[n].ports[far].peer = SubnetPortRef{p.from, p.port};
  }
}

void SmSweep::on_port_info(const Pending& p, const Smp& a) {
  NodeView& v = views_[p.node];
  const PortInfo pi = decode_port_info(a.data.data());
  v.ports[p.port] = pi;
  v.port_known[p.port] = true;
  SubnetPort& gp = graph_.nodes[p.node].ports[p.port];
  gp.data_vls = std::max(1u, data_vls_of_code(pi.vl_cap));
  const bool up = pi.port_physical_state == IB_PORT_PHYS_STATE_LINKUP;
  const bool sm_port = graph_.sm_port.valid() && graph_.sm_port.node == p.node && p.port == sm_port_;
  if (up && p.port != 0 && !gp.peer && (graph_.nodes[p.node].is_switch() || sm_port)) explore(p.node, p.port);
}

void SmSweep::advance() {
  while (ready_.empty() && pending_.empty()) {
    switch (phase_) {
      case SweepPhase::kDiscovery:
        if (!compute()) {
          phase_ = SweepPhase::kDone;
          return;
        }
        phase_ = SweepPhase::kLids;
        plan_lids();
        break;
      case SweepPhase::kLids:
        phase_ = SweepPhase::kLfts;
        plan_lfts();
        break;
      case SweepPhase::kLfts:
        phase_ = SweepPhase::kQos;
        plan_qos();
        break;
      case SweepPhase::kQos:
        phase_ = SweepPhase::kArm;
        plan_state(IB_LINK_INIT, IB_LINK_ARMED);
        break;
      case SweepPhase::kArm:
        phase_ = SweepPhase::kActivate;
        plan_state(IB_LINK_ARMED, IB_LINK_ACTIVE);
        break;
      case SweepPhase::kActivate:
        phase_ = SweepPhase::kDone;
        return;
      default:
        return;
    }
  }
}

bool SmSweep::compute() {
  // Links are known from the NodeInfo that crossed them; a port whose PortInfo says it is not up
  // (it went down since) carries none.
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    SubnetNode& node = graph_.nodes[n];
    if (node.description.empty()) node.description = fmt::format("node {:#018x}", node.node_guid);
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      auto& peer = node.ports[p].peer;
      if (!peer) continue;
      const bool up = views_[n].port_known[p] && views_[n].ports[p].port_physical_state == IB_PORT_PHYS_STATE_LINKUP;
      const auto& back = graph_.nodes[peer->node].ports[peer->port].peer;
      if (!up || !back || back->node != n || back->port != p) peer.reset();
    }
  }
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n)
    for (unsigned p = 1; p <= graph_.nodes[n].num_ports(); ++p) {
      auto& peer = graph_.nodes[n].ports[p].peer;
      if (peer && !graph_.nodes[peer->node].ports[peer->port].peer) peer.reset();
      if (peer && n < peer->node) ++stats_.links;
    }
  stats_.nodes = graph_.nodes.size();
  stats_.switches = graph_.switches().size();
  stats_.cas = stats_.nodes - stats_.switches;
  if (!graph_.sm_linked()) {
    notes_.push_back("the SM's port has no link: nothing to configure");
    return false;
  }

  // LIDs: a port keeps the range an earlier sweep gave it; new ports take fresh aligned ranges
  // after the highest LID in use (OpenSM's guid2lid cache does the same).
  if (lid_cache_.empty() || cached_lmc_ != config_.lmc) {
    assign_lids(graph_, config_.lmc);
    lid_cache_.clear();
    cached_lmc_ = config_.lmc;
  } else {
    graph_.lmc = config_.lmc;
    unsigned top = 0;
    for (const auto& [guid, range] : lid_cache_) top = std::max<unsigned>(top, range.last);
    for (SubnetPortRef r : lid_assignment_order(graph_)) {
      SubnetPort& port = graph_.port(r);
      const auto it = lid_cache_.find(port.guid);
      if (it != lid_cache_.end()) {
        port.lids = it->second;
        continue;
      }
      const unsigned size = graph_.nodes[r.node].is_switch() ? 1u : 1u << config_.lmc;
      const unsigned first = (top + size) / size * size;
      IBFSIM_CHECK(first + size - 1 <= kLidUnicastMax, "the subnet ran out of unicast LIDs");
      port.lids = LidRange{static_cast<Lid>(first), static_cast<Lid>(first + size - 1)};
      top = first + size - 1;
    }
  }
  for (SubnetPortRef r : lid_assignment_order(graph_)) lid_cache_[graph_.port(r).guid] = graph_.port(r).lids;
  sm_lid_ = graph_.port(graph_.sm_port).lids.first;
  tables_ = compute_routes(graph_, config_.routing);
  for (const std::string& note : tables_.notes) notes_.push_back(note);
  return true;
}

void SmSweep::set_port_info(std::size_t node, PortNum port, const PortInfo& pi) {
  ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, port, path_to(node, port), node, port, kNoSubnetNode,
      encode_port_info(pi));
}

void SmSweep::plan_lids() {
  // The ports to configure: the SM's first, then every node's in graph order.
  std::vector<SubnetPortRef> order{graph_.sm_port};
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const SubnetNode& node = graph_.nodes[n];
    for (unsigned p = node.is_switch() ? 0 : 1; p <= node.num_ports(); ++p) {
      const SubnetPortRef r{n, static_cast<PortNum>(p)};
      if (r == graph_.sm_port) continue;
      if (p != 0 && !port_up(n, r.port)) continue;
      if (p == 0 || views_[n].port_known[p]) order.push_back(r);
    }
  }
  for (const SubnetPortRef r : order) {
    const SubnetNode& node = graph_.nodes[r.node];
    const PortInfo& now = views_[r.node].ports[r.port];
    if (!views_[r.node].port_known[r.port]) continue;
    PortInfo want = now;
    // Fields a Set must not touch unless meant: NoChange everywhere else.
    want.port_state = IB_LINK_NO_CHANGE;
    want.port_physical_state = IB_PORT_PHYS_STATE_NO_CHANGE;
    want.link_width_enabled = 0;
    want.link_speed_enabled = 0;
    want.link_speed_ext_enabled = 0;
    want.link_down_default_state = 0;
    want.operational_vls = 0;
    bool differs = false;
    if (!node.is_switch() || r.port == 0) {
      const LidRange lids = node.ports[r.port].lids;
      want.lid = lids.first;
      want.lmc = node.is_switch() ? 0 : static_cast<std::uint8_t>(graph_.lmc);
      want.master_sm_lid = sm_lid_;
      want.master_sm_sl = 0;
      want.m_key = config_.m_key;
      want.m_key_protect_bits = config_.m_key_protect_bits;
      want.m_key_lease_period = config_.m_key_lease_period;
      differs = differs || now.lid != want.lid || now.lmc != want.lmc || now.master_sm_lid != want.master_sm_lid ||
                now.m_key != want.m_key || now.m_key_protect_bits != want.m_key_protect_bits ||
                now.m_key_lease_period != want.m_key_lease_period;
    }
    if (r.port != 0) {
      const SubnetPortRef peer = *node.ports[r.port].peer;
      const PortInfo& far = views_[peer.node].ports[peer.port];
      want.neighbor_mtu = std::min({now.mtu_cap, far.mtu_cap, config_.max_mtu_code});
      const std::uint8_t vls = std::min(now.vl_cap, far.vl_cap);
      const bool quiet = now.port_state == IB_LINK_INIT || now.port_state == IB_LINK_DOWN;
      if (quiet && vls != now.operational_vls) {
        want.operational_vls = vls;
        differs = true;
      }
      if (node.is_switch()) want.hoq_life = config_.hoq_life;
      if (config_.vl_arbitration) want.vl_high_limit = config_.vl_arbitration->high_limit;
      differs = differs || now.neighbor_mtu != want.neighbor_mtu || now.hoq_life != want.hoq_life ||
                now.vl_high_limit != want.vl_high_limit;
    }
    if (differs) set_port_info(r.node, r.port, want);
  }
}

void SmSweep::plan_lfts() {
  for (std::size_t s : graph_.switches()) {
    const NodeView& v = views_[s];
    const Guid guid = graph_.nodes[s].node_guid;
    const std::vector<PortNum>& want = tables_.lft[s];
    SwitchInfo si = v.switch_info;
    const bool info_differs = si.linear_fdb_top != tables_.lft_top || si.life_time_value != config_.life_time ||
                              si.port_state_change;
    if (info_differs) {
      si.linear_fdb_top = tables_.lft_top;
      si.life_time_value = config_.life_time;
      si.port_state_change = true;  // writing 1 clears it
      ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_SWITCH_INFO, 0, v.path, s, 0, kNoSubnetNode, encode_switch_info(si));
    }
    std::vector<PortNum>& done = programmed_lft_[guid];
    const std::size_t blocks = static_cast<std::size_t>(tables_.lft_top) / kLftBlockEntries + 1;
    for (std::size_t b = 0; b < blocks; ++b) {
      LinearForwardingTableBlock block;
      bool same = done.size() >= (b + 1) * kLftBlockEntries;
      for (std::size_t i = 0; i < kLftBlockEntries; ++i) {
        const std::size_t lid = b * kLftBlockEntries + i;
        block.ports[i] = lid < want.size() ? want[lid] : kNoRoute;
        if (same && done[lid] != block.ports[i]) same = false;
      }
      if (same) continue;
      ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, static_cast<std::uint32_t>(b), v.path, s, 0,
          kNoSubnetNode, encode_linear_forwarding_table(block));
      ++stats_.lft_blocks;
    }
    done.assign(blocks * kLftBlockEntries, kNoRoute);
    std::copy(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(std::min(want.size(), done.size())), done.begin());
    if (tables_.ar) plan_ar(s);
  }
}

void SmSweep::plan_ar(std::size_t s) {
  const NodeView& v = views_[s];
  const ArSwitchTables& want = tables_.ar->by_node[s];
  ArProgrammed& done = programmed_ar_[graph_.nodes[s].node_guid];
  auto set = [&](std::uint16_t attr, std::uint32_t mod, const SmpData& data) {
    ask(Ask::kSet, IB_MAD_METHOD_SET, attr, mod, v.path, s, 0, kNoSubnetNode, data);
    ++stats_.ar_smps;
  };
  // Groups 1..top (group 0 means static); blocks that held groups before are cleared too.
  const std::size_t top = want.groups.size();
  std::vector<std::vector<PortNum>> groups(top + 1);
  for (std::size_t g = 1; g <= top; ++g) groups[g] = want.groups[g - 1];
  const std::size_t group_blocks = std::max(groups.size(), done.groups.size()) / kArGroupsPerBlock + 1;
  groups.resize(group_blocks * kArGroupsPerBlock);
  done.groups.resize(groups.size());
  for (std::size_t b = 0; b < group_blocks; ++b) {
    ArGroupTableBlock block;
    bool same = true;
    for (std::size_t i = 0; i < kArGroupsPerBlock; ++i) {
      const std::size_t g = b * kArGroupsPerBlock + i;
      block.groups[i] = ar_port_mask(groups[g]);
      same = same && done.groups[g] == groups[g];
    }
    if (!same) set(IBFSIM_MAD_ATTR_AR_GROUP_TABLE, static_cast<std::uint32_t>(b), encode_ar_group_table(block));
  }
  done.groups = std::move(groups);
  const std::size_t lft_blocks = std::max(want.group_of_lid.size(), done.lft.size()) / kArLftBlockEntries + 1;
  std::vector<std::uint16_t> lft(lft_blocks * kArLftBlockEntries, 0);
  std::copy(want.group_of_lid.begin(), want.group_of_lid.end(), lft.begin());
  done.lft.resize(lft.size(), 0);
  for (std::size_t b = 0; b < lft_blocks; ++b) {
    ArLftBlock block;
    bool same = true;
    for (std::size_t i = 0; i < kArLftBlockEntries; ++i) {
      block.groups[i] = lft[b * kArLftBlockEntries + i];
      same = same && done.lft[b * kArLftBlockEntries + i] == block.groups[i];
    }
    if (!same) set(IBFSIM_MAD_ATTR_AR_LFT, static_cast<std::uint32_t>(b), encode_ar_lft(block));
  }
  done.lft = std::move(lft);
  const ArSweepSettings& c = config_.adaptive_routing;
  AdaptiveRoutingInfo info;
  info.enable = true;
  info.fast_recovery = c.fast_recovery;
  info.credit_levels = c.credit_levels;
  info.flowlet_margin = c.flowlet_margin;
  info.sl_mask = c.sl_mask;
  info.group_top = static_cast<std::uint16_t>(top);
  info.flowlet_gap_ns = static_cast<std::uint32_t>(c.flowlet_gap / kNs);
  info.congestion_threshold = c.congestion_threshold;
  info.congestion_hold_ns = static_cast<std::uint32_t>(c.congestion_hold / kNs);
  std::vector<PortNum> to_switches;
  for (unsigned p = 1; p <= graph_.nodes[s].num_ports(); ++p) {
    const auto& peer = graph_.nodes[s].ports[p].peer;
    if (peer && graph_.nodes[peer->node].is_switch()) to_switches.push_back(static_cast<PortNum>(p));
  }
  info.notify_ports = ar_port_mask(to_switches);
  const bool info_same = done.info && done.info->enable == info.enable && done.info->fast_recovery == info.fast_recovery &&
                         done.info->credit_levels == info.credit_levels &&
                         done.info->flowlet_margin == info.flowlet_margin &&
                         done.info->sl_mask == info.sl_mask && done.info->group_top == info.group_top &&
                         done.info->flowlet_gap_ns == info.flowlet_gap_ns && done.info->notify_ports == info.notify_ports &&
                         done.info->congestion_threshold == info.congestion_threshold &&
                         done.info->congestion_hold_ns == info.congestion_hold_ns;
  if (!info_same) set(IBFSIM_MAD_ATTR_AR_INFO, 0, encode_ar_info(info));
  done.info = info;
}

void SmSweep::plan_qos() {
  std::optional<SlToVlTable> ca_map = config_.sl_to_vl;
  std::optional<SlToVlTable> sw_map = config_.switch_sl_to_vl ? config_.switch_sl_to_vl : config_.sl_to_vl;
  if (tables_.sl) ca_map = sw_map = SlToVlTable::from(tables_.sl->sl_to_vl);  // the engine's SLs need their VLs
  const auto& arb = config_.vl_arbitration;
  if (!ca_map && !sw_map && !arb) return;
  auto sl2vl_data = [](const SlToVlTable& t) {
    SlToVlMappingTable m;
    for (unsigned sl = 0; sl < 16; ++sl) m.vl_of_sl[sl] = t.vl(static_cast<std::uint8_t>(sl));
    return encode_sl_to_vl_mapping_table(m);
  };
  auto arb_blocks = [&](std::size_t node, PortNum port, PortNum mod_port) {
    const PortInfo& pi = views_[node].ports[port];
    for (unsigned sel = 1; sel <= 4; ++sel) {
      const std::vector<VlArbEntry>& t = sel <= 2 ? arb->low : arb->high;
      const unsigned cap = sel <= 2 ? pi.vl_arbitration_low_cap : pi.vl_arbitration_high_cap;
      const std::size_t first = (sel == 2 || sel == 4) ? kVlArbBlockEntries : 0;
      // Blocks 1 and 3 always (they replace what the port had); 2 and 4 when the table reaches them.
      if (cap <= first || (first != 0 && t.size() <= first)) continue;
      VlArbitrationTableBlock b;
      for (std::size_t i = 0; i < kVlArbBlockEntries && first + i < t.size(); ++i) b.entries[i] = t[first + i];
      ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_VL_ARBITRATION, (sel << 16) | mod_port, path_to(node, port), node,
          port, kNoSubnetNode, encode_vl_arbitration_table(b));
    }
  };
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const SubnetNode& node = graph_.nodes[n];
    std::vector<bool>& done = qos_done_[node.node_guid];
    done.resize(node.num_ports() + 1u, false);
    bool any_new = false;
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const PortNum pn = static_cast<PortNum>(p);
      if (!port_up(n, pn)) continue;
      // A port that came (back) up in Init has lost nothing, but is treated as new all the same.
      if (done[p] && views_[n].ports[p].port_state != IB_LINK_INIT) continue;
      done[p] = true;
      any_new = true;
      if (!node.is_switch() && ca_map)
        ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, 0, path_to(n, pn), n, pn, kNoSubnetNode, sl2vl_data(*ca_map));
      if (arb) arb_blocks(n, pn, node.is_switch() ? pn : 0);
    }
    if (node.is_switch() && sw_map && any_new) {
      const NodeView& v = views_[n];
      if (v.switch_info.optimized_sl_to_vl_mapping_programming != 0) {
        const std::uint32_t mod = encode_sl_to_vl_attribute_modifier(SlToVlAttributeModifier{0, 0, true, true});
        ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, mod, v.path, n, 0, kNoSubnetNode, sl2vl_data(*sw_map));
      } else {
        for (unsigned in = 1; in <= node.num_ports(); ++in)
          for (unsigned out = 1; out <= node.num_ports(); ++out) {
            if (in == out || !port_up(n, static_cast<PortNum>(in)) || !port_up(n, static_cast<PortNum>(out))) continue;
            const std::uint32_t mod = encode_sl_to_vl_attribute_modifier(
                SlToVlAttributeModifier{static_cast<PortNum>(in), static_cast<PortNum>(out), false, false});
            ask(Ask::kSet, IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, mod, v.path, n, 0, kNoSubnetNode, sl2vl_data(*sw_map));
          }
      }
    }
  }
}

void SmSweep::plan_state(std::uint8_t from, std::uint8_t to) {
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    for (unsigned p = 1; p <= graph_.nodes[n].num_ports(); ++p) {
      const PortNum pn = static_cast<PortNum>(p);
      if (!port_up(n, pn) || views_[n].ports[p].port_state != from) continue;
      PortInfo want = views_[n].ports[p];
      want.port_state = to;
      want.port_physical_state = IB_PORT_PHYS_STATE_NO_CHANGE;
      want.link_width_enabled = 0;
      want.link_speed_enabled = 0;
      want.link_speed_ext_enabled = 0;
      want.link_down_default_state = 0;
      want.operational_vls = 0;
      set_port_info(n, pn, want);
    }
  }
}

}  // namespace ibfsim
