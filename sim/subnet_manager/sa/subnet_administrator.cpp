#include "sim/subnet_manager/sa/subnet_administrator.h"

#include <algorithm>

#include "sim/subnet_manager/sa/multicast_tree.h"
#include "sim/subnet_manager/sa/node_record.h"
#include "sim/subnet_manager/sa/port_info_record.h"

namespace ibfsim {

namespace {

constexpr std::uint64_t kCreatedMgidPrefix = 0xFF12A01BFFFF0000ull;

bool has(std::uint64_t mask, std::uint64_t bits) { return (mask & bits) == bits; }

// Whether `have` passes a selector-qualified request for `want` (larger code: larger value).
bool selected(std::uint8_t selector, double want, double have) {
  switch (selector) {
    case IB_PATH_SELECTOR_GREATER_THAN: return have > want;
    case IB_PATH_SELECTOR_LESS_THAN: return have < want;
    case IB_PATH_SELECTOR_EXACTLY: return have == want;
    default: return true;  // largest available: what the path has
  }
}

std::uint16_t words_of(std::size_t bytes) { return static_cast<std::uint16_t>((bytes + 7) / 8); }

// The smallest NeighborMTU and link rate over every HCA port the SM knows: a new group's defaults.
std::pair<std::uint8_t, double> smallest_ca_port(const SaSubnet& s) {
  std::uint8_t mtu = IB_MTU_LEN_4096;
  double rate = 0;
  for (std::size_t n = 0; n < s.graph.nodes.size(); ++n) {
    if (s.graph.nodes[n].is_switch()) continue;
    for (PortNum p = 1; p < s.graph.nodes[n].ports.size(); ++p) {
      const PortInfo* pi = s.port_info(n, p);
      if (!pi || !s.graph.nodes[n].ports[p].peer) continue;
      mtu = std::min(mtu, pi->neighbor_mtu);
      const double r = port_rate_gbps(*pi);
      if (r > 0 && (rate == 0 || r < rate)) rate = r;
    }
  }
  return {mtu, rate};
}

std::uint8_t rate_code(double gbps) {
  for (std::uint8_t c = 2; c <= 22; ++c)
    if (sa_rate_gbps(c) == gbps) return c;
  return 0;
}

}  // namespace

SaMad sa_answer_with(const SaMad& request, const std::vector<SaData>& records, std::size_t record_bytes) {
  const std::uint8_t method = request.header.method;
  SaMad r = make_sa_response(request, IB_MAD_STATUS_SUCCESS);
  const std::uint16_t words = words_of(record_bytes);
  r.attribute_offset = words;
  if (method == IB_MAD_METHOD_GETTABLE) {
    const std::size_t fit = kSaDataBytes / (words * 8u);
    if (records.size() > fit) return make_sa_response(request, IB_SA_MAD_STATUS_TOO_MANY_RECORDS);
    for (std::size_t i = 0; i < records.size(); ++i)
      std::copy(records[i].begin(), records[i].begin() + record_bytes, r.data.begin() + i * words * 8u);
    r.rmpp = {kRmppVersion, IB_RMPP_TYPE_DATA, 0, IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST, 0, 1,
              static_cast<std::uint32_t>(kSaHeaderBytes + records.size() * words * 8u)};
    return r;
  }
  if (records.empty()) return make_sa_response(request, IB_SA_MAD_STATUS_NO_RECORDS);
  if (records.size() > 1) return make_sa_response(request, IB_SA_MAD_STATUS_TOO_MANY_RECORDS);
  r.data = records.front();
  return r;
}

SaMad SubnetAdministrator::answer(const SaMad& q, const SaSubnet& s, Lid requester, std::uint8_t requester_sl) {
  if (q.header.class_version != kSaClassVersion) return make_sa_response(q, IB_MAD_STATUS_UNSUP_CLASS_VER);
  const std::uint8_t m = q.header.method;
  const bool read = m == IB_MAD_METHOD_GET || m == IB_MAD_METHOD_GETTABLE;
  switch (q.header.attribute_id) {
    case IB_MAD_ATTR_PATH_RECORD:
      if (read) return path_records(q, s, requester);
      break;
    case IB_MAD_ATTR_NODE_RECORD:
      if (read) return node_records(q, s);
      break;
    case IB_MAD_ATTR_PORTINFO_RECORD:
      if (read) return port_info_records(q, s);
      break;
    case IB_MAD_ATTR_MCMEMBER_RECORD:
      if (read) return mc_member(q, s);
      if (m == IB_MAD_METHOD_SET) return mc_join(q, s);
      if (m == IB_MAD_METHOD_DELETE) return mc_leave(q, s);
      break;
    case IB_MAD_ATTR_INFORM_INFO:
      return informs_.set(q, requester, requester_sl);
    default:
      return make_sa_response(q, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  }
  return make_sa_response(q, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
}

SaMad SubnetAdministrator::path_records(const SaMad& q, const SaSubnet& s, Lid requester) {
  const std::uint64_t mask = q.component_mask;
  const PathRecord want = decode_path_record(q.data.data());
  const SubnetGraph& g = s.graph;
  std::optional<SubnetPortRef> src, dst;
  if (has(mask, IB_PR_COMPMASK_SGID)) src = port_of_guid(g, gid_guid(want.sgid));
  else if (has(mask, IB_PR_COMPMASK_SLID)) src = port_of_lid(g, want.slid);
  else src = port_of_lid(g, requester);
  if (has(mask, IB_PR_COMPMASK_DGID)) dst = port_of_guid(g, gid_guid(want.dgid));
  else if (has(mask, IB_PR_COMPMASK_DLID)) dst = port_of_lid(g, want.dlid);
  else return make_sa_response(q, IB_SA_MAD_STATUS_INSUF_COMPS);
  if (!src || !dst) return sa_answer_with(q, {}, kPathRecordBytes);
  const LidRange src_lids = g.port(g.lid_port(*src)).lids;
  const LidRange dst_lids = g.port(g.lid_port(*dst)).lids;
  const Lid slid = has(mask, IB_PR_COMPMASK_SLID) ? want.slid : src_lids.first;
  if (!src_lids.contains(slid)) return sa_answer_with(q, {}, kPathRecordBytes);
  std::vector<Lid> dlids;
  if (has(mask, IB_PR_COMPMASK_DLID)) {
    if (dst_lids.contains(want.dlid)) dlids.push_back(want.dlid);
  } else {
    for (Lid l = dst_lids.first; dst_lids.assigned() && l <= dst_lids.last; ++l) dlids.push_back(l);
  }
  std::vector<SaData> records;
  for (Lid dlid : dlids) {
    const auto path = trace_path(s, *src, dlid);
    if (!path) continue;
    PathRecord r;
    r.service_id = want.service_id;
    r.dgid = gid_of(settings_.gid_prefix, g.port_guid(*dst));
    r.sgid = gid_of(settings_.gid_prefix, g.port_guid(*src));
    r.dlid = dlid;
    r.slid = slid;
    r.reversible = true;
    r.p_key = settings_.p_key;
    r.sl = path->sl;
    r.mtu_selector = r.rate_selector = r.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
    r.mtu = path->mtu;
    r.rate = rate_code(path->rate_gbps);  // 0 for a switch to itself (no link crossed)
    r.packet_life_time = settings_.packet_life_time;
    if (has(mask, IB_PR_COMPMASK_SL) && want.sl != r.sl) continue;
    if (has(mask, IB_PR_COMPMASK_PKEY) && (want.p_key & 0x7FFF) != (r.p_key & 0x7FFF)) continue;
    if (has(mask, IB_PR_COMPMASK_MTU) &&
        !selected(has(mask, IB_PR_COMPMASK_MTUSELEC) ? want.mtu_selector : IB_PATH_SELECTOR_EXACTLY, want.mtu, r.mtu))
      continue;
    if (has(mask, IB_PR_COMPMASK_RATE) &&
        !selected(has(mask, IB_PR_COMPMASK_RATESELEC) ? want.rate_selector : IB_PATH_SELECTOR_EXACTLY,
                  sa_rate_gbps(want.rate), sa_rate_gbps(r.rate)))
      continue;
    if (has(mask, IB_PR_COMPMASK_PKTLIFETIME) &&
        !selected(has(mask, IB_PR_COMPMASK_PKTLIFETIMESELEC) ? want.packet_life_time_selector
                                                              : IB_PATH_SELECTOR_EXACTLY,
                  want.packet_life_time, r.packet_life_time))
      continue;
    records.push_back(encode_path_record(r));
  }
  return sa_answer_with(q, records, kPathRecordBytes);
}

SaMad SubnetAdministrator::node_records(const SaMad& q, const SaSubnet& s) {
  const std::uint64_t mask = q.component_mask;
  const NodeRecord want = decode_node_record(q.data.data());
  std::vector<SaData> records;
  for (std::size_t n = 0; n < s.graph.nodes.size(); ++n) {
    const SubnetNode& node = s.graph.nodes[n];
    const NodeInfo* ni = s.node_info(n);
    if (!ni) continue;
    for (PortNum p = node.is_switch() ? 0 : 1; p < node.ports.size(); ++p) {
      const SubnetPort& port = node.ports[p];
      if (!port.lids.assigned()) continue;
      NodeRecord r;
      r.lid = port.lids.first;
      r.node_info = *ni;
      r.node_info.port_guid = port.guid;
      r.node_info.local_port_num = p;
      r.description.text = node.description;
      const bool match = (!has(mask, IB_NR_COMPMASK_LID) || want.lid == r.lid) &&
                         (!has(mask, IB_NR_COMPMASK_NODETYPE) || want.node_info.node_type == ni->node_type) &&
                         (!has(mask, IB_NR_COMPMASK_NODEGUID) || want.node_info.node_guid == ni->node_guid) &&
                         (!has(mask, IB_NR_COMPMASK_PORTGUID) || want.node_info.port_guid == port.guid);
      if (match) records.push_back(encode_node_record(r));
      if (node.is_switch()) break;
    }
  }
  return sa_answer_with(q, records, kNodeRecordBytes);
}

SaMad SubnetAdministrator::port_info_records(const SaMad& q, const SaSubnet& s) {
  const std::uint64_t mask = q.component_mask;
  const PortInfoRecord want = decode_port_info_record(q.data.data());
  std::vector<SaData> records;
  for (std::size_t n = 0; n < s.graph.nodes.size(); ++n) {
    const SubnetNode& node = s.graph.nodes[n];
    for (PortNum p = node.is_switch() ? 0 : 1; p < node.ports.size(); ++p) {
      const Lid lid = s.graph.port(s.graph.lid_port({n, p})).lids.first;
      const PortInfo* pi = s.port_info(n, p);
      if (lid == 0 || !pi) continue;
      if (has(mask, IB_PIR_COMPMASK_LID) && want.endport_lid != lid) continue;
      if (has(mask, IB_PIR_COMPMASK_PORTNUM) && want.port_num != p) continue;
      records.push_back(encode_port_info_record({lid, p, *pi}));
    }
  }
  return sa_answer_with(q, records, kPortInfoRecordBytes);
}

SaMad SubnetAdministrator::mc_member(const SaMad& q, const SaSubnet&) {
  const McMemberRecord want = decode_mc_member_record(q.data.data());
  std::vector<SaData> records;
  for (const McGroup& g : groups_) {
    if (has(q.component_mask, IB_MCR_COMPMASK_MGID) && g.record.mgid != want.mgid) continue;
    if (has(q.component_mask, IB_MCR_COMPMASK_MLID) && g.record.mlid != want.mlid) continue;
    records.push_back(encode_mc_member_record(g.record));
  }
  return sa_answer_with(q, records, kMcMemberRecordBytes);
}

SaMad SubnetAdministrator::mc_join(const SaMad& q, const SaSubnet& s) {
  const std::uint64_t mask = q.component_mask;
  const McMemberRecord want = decode_mc_member_record(q.data.data());
  if (!has(mask, IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE) || (want.join_state & 0x7) == 0)
    return make_sa_response(q, IB_SA_MAD_STATUS_INSUF_COMPS);
  const Guid port_guid = gid_guid(want.port_gid);
  if (!port_of_guid(s.graph, port_guid)) return make_sa_response(q, IB_SA_MAD_STATUS_INVALID_GID);
  const Gid zero{};
  auto it = std::find_if(groups_.begin(), groups_.end(), [&](const McGroup& g) {
    return has(mask, IB_MCR_COMPMASK_MGID) && want.mgid != zero && g.record.mgid == want.mgid;
  });
  if (it == groups_.end()) {
    // A new group: its defining components must be there.
    if (!has(mask, IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY)) return make_sa_response(q, IB_SA_MAD_STATUS_INSUF_COMPS);
    McGroup g;
    g.record = want;
    if (!has(mask, IB_MCR_COMPMASK_MGID) || want.mgid == zero) g.record.mgid = gid_of(kCreatedMgidPrefix, next_mgid_++);
    Lid mlid = settings_.first_mlid;
    while (std::any_of(groups_.begin(), groups_.end(), [&](const McGroup& o) { return o.record.mlid == mlid; })) ++mlid;
    g.record.mlid = mlid;
    const auto [mtu, rate] = smallest_ca_port(s);
    g.record.mtu_selector = g.record.rate_selector = g.record.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
    if (!has(mask, IB_MCR_COMPMASK_MTU)) g.record.mtu = mtu;
    if (!has(mask, IB_MCR_COMPMASK_RATE)) g.record.rate = rate_code(rate);
    g.record.packet_life_time = settings_.packet_life_time;
    if (!has(mask, IB_MCR_COMPMASK_SCOPE)) g.record.scope = g.record.mgid[1] & 0xF;
    if (!has(mask, IB_MCR_COMPMASK_SL)) g.record.sl = 0;
    g.record.port_gid = Gid{};
    g.record.join_state = 0;
    g.record.proxy_join = false;
    groups_.push_back(g);
    it = groups_.end() - 1;
  } else if ((has(mask, IB_MCR_COMPMASK_QKEY) && want.q_key != it->record.q_key) ||
             (has(mask, IB_MCR_COMPMASK_PKEY) && want.p_key != it->record.p_key) ||
             (has(mask, IB_MCR_COMPMASK_MLID) && want.mlid != it->record.mlid)) {
    return make_sa_response(q, IB_SA_MAD_STATUS_REQ_INVALID);
  }
  std::uint8_t& state = it->members[port_guid];
  const std::uint8_t before = state;
  state |= want.join_state & 0x7;
  if (state != before) reprogram(*it, s, false);
  McMemberRecord r = it->record;
  r.port_gid = want.port_gid;
  r.join_state = state;
  SaMad a = make_sa_response(q, IB_MAD_STATUS_SUCCESS);
  a.attribute_offset = kMcMemberRecordOffset;
  a.data = encode_mc_member_record(r);
  return a;
}

SaMad SubnetAdministrator::mc_leave(const SaMad& q, const SaSubnet& s) {
  const std::uint64_t mask = q.component_mask;
  const McMemberRecord want = decode_mc_member_record(q.data.data());
  if (!has(mask, IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE))
    return make_sa_response(q, IB_SA_MAD_STATUS_INSUF_COMPS);
  auto it = std::find_if(groups_.begin(), groups_.end(), [&](const McGroup& g) { return g.record.mgid == want.mgid; });
  if (it == groups_.end()) return make_sa_response(q, IB_SA_MAD_STATUS_REQ_INVALID);
  auto m = it->members.find(gid_guid(want.port_gid));
  if (m == it->members.end() || (m->second & want.join_state) == 0) return make_sa_response(q, IB_SA_MAD_STATUS_REQ_INVALID);
  m->second &= static_cast<std::uint8_t>(~want.join_state);
  if (m->second == 0) it->members.erase(m);
  McMemberRecord r = it->record;
  r.port_gid = want.port_gid;
  r.join_state = want.join_state;
  const bool gone = it->members.empty();
  reprogram(*it, s, gone);
  if (gone) groups_.erase(it);
  SaMad a = make_sa_response(q, IB_MAD_STATUS_SUCCESS);
  a.attribute_offset = kMcMemberRecordOffset;
  a.data = encode_mc_member_record(r);
  return a;
}

void SubnetAdministrator::reprogram(const McGroup& g, const SaSubnet& s, bool removed) {
  const Lid mlid = g.record.mlid;
  std::vector<MulticastMember> members;
  if (!removed)
    for (const auto& [guid, state] : g.members)
      if (auto p = port_of_guid(s.graph, guid))
        members.push_back({*p, (state & (IB_MC_REC_STATE_FULL_MEMBER | IB_MC_REC_STATE_NON_MEMBER)) != 0});
  const auto tree = multicast_tree(s.graph, members);
  for (std::size_t sw : s.graph.switches()) {
    auto& table = programmed_[sw];
    std::vector<PortNum> before = table.count(mlid) ? table[mlid] : std::vector<PortNum>{};
    auto t = tree.find(sw);
    std::vector<PortNum> after = t == tree.end() ? std::vector<PortNum>{} : t->second;
    if (before == after) continue;
    if (after.empty()) table.erase(mlid);
    else table[mlid] = after;
    const unsigned positions = (s.graph.nodes[sw].num_ports() + 1 + kMftPortsPerMask - 1) / kMftPortsPerMask;
    auto mask_of = [&](const std::vector<PortNum>& ports, unsigned pos) {
      std::uint16_t m = 0;
      for (PortNum p : ports)
        if (p / kMftPortsPerMask == pos) m |= static_cast<std::uint16_t>(1u << (p % kMftPortsPerMask));
      return m;
    };
    for (unsigned pos = 0; pos < positions; ++pos) {
      if (mask_of(before, pos) == mask_of(after, pos)) continue;
      MftUpdate u;
      u.node = sw;
      u.switch_lid = s.graph.nodes[sw].ports[0].lids.first;
      u.where = {static_cast<std::uint8_t>(pos), mft_block_of(mlid)};
      const Lid first = static_cast<Lid>(kMulticastLidBase + u.where.block * kMftBlockEntries);
      for (std::size_t i = 0; i < kMftBlockEntries; ++i) {
        auto e = table.find(static_cast<Lid>(first + i));
        if (e != table.end()) u.block.port_masks[i] = mask_of(e->second, pos);
      }
      mft_updates_.push_back(u);
    }
  }
}

}  // namespace ibfsim
