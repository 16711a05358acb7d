#include "sim/subnet_manager/routing/nue.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/nue_network.h"
#include "sim/subnet_manager/routing/nue_search.h"

namespace ibfsim {

namespace {

using namespace nue;

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// The layers: OpenSM's get_max_num_vls (every linked switch port's VLs, capped by the option).
unsigned layers(const SubnetGraph& g, unsigned option) {
  unsigned vls = 15;
  for (const SubnetNode& n : g.nodes) {
    if (!n.is_switch()) continue;
    for (unsigned p = 0; p <= n.num_ports(); ++p)
      if (n.ports[p].peer) vls = std::min(vls, n.ports[p].data_vls);
  }
  vls = std::max(vls, 1u);
  return option != 0 && option <= vls ? option : vls;
}

class NueRouting {
 public:
  NueRouting(const SubnetGraph& g, unsigned max_vls) : g_(g), max_vl_(max_vls), t_(empty_routing_tables(g)) {}
  bool route();
  RoutingTables& tables() { return t_; }
  const std::vector<std::uint8_t>& layer_of_lid() const { return layer_; }

 private:
  void update_lft(Lid dlid);
  bool update_weights(Lid dest_switch);

  const SubnetGraph& g_;
  unsigned max_vl_;
  RoutingTables t_;
  Network net_;
  Ccdg cdg_;
  std::vector<SubnetPortRef> port_of_lid_;
  std::vector<std::uint8_t> layer_;
};

void NueRouting::update_lft(Lid dlid) {
  const SubnetPortRef dest = port_of_lid_[dlid];
  for (const Node& n : net_.nodes) {
    PortNum exit = 0;
    if (n.used_link < 0) {
      if (g_.nodes[dest.node].is_switch()) continue;  // its own LID: port 0 already
      exit = g_.port(dest).peer->port;
    } else {
      exit = static_cast<PortNum>(net_.links[at(n.used_link)].info.remote_port);
    }
    t_.lft[n.graph_node][dlid] = exit;
  }
}

bool NueRouting::update_weights(Lid dest_switch) {
  for (const Node& n : net_.nodes) {
    if (n.lid == dest_switch) continue;
    const std::uint8_t add = n.num_terminals;
    Lid cur = n.lid;
    do {
      const Node& on = net_.nodes[at(net_.node(cur))];
      if (on.used_link < 0) return false;
      Link& l = net_.links[at(on.used_link)];
      l.weight += add;
      cur = l.info.local_lid;
    } while (cur != dest_switch);
  }
  return true;
}

bool NueRouting::route() {
  // Destinations: every CA port and switch port 0 in OpenSM's port GUID table order.
  std::vector<SubnetPortRef> ports;
  for (std::size_t n = 0; n < g_.nodes.size(); ++n)
    for (unsigned p = 0; p <= g_.nodes[n].num_ports(); ++p)
      if (g_.nodes[n].ports[p].lids.assigned()) ports.push_back({n, static_cast<PortNum>(p)});
  std::stable_sort(ports.begin(), ports.end(), [&](SubnetPortRef a, SubnetPortRef b) {
    return guid_table_order(g_.port_guid(a)) < guid_table_order(g_.port_guid(b));
  });
  std::uint64_t total = 0;
  unsigned max_lmc = 0;
  port_of_lid_.assign(static_cast<std::size_t>(t_.lft_top) + 1, SubnetPortRef{});
  for (const SubnetPortRef p : ports) {
    const LidRange r = g_.port(p).lids;
    total += r.count();
    unsigned lmc = 0;
    while ((1u << lmc) < r.count()) ++lmc;
    max_lmc = std::max(max_lmc, lmc);
    for (unsigned lid = r.first; lid <= r.last; ++lid) port_of_lid_[lid] = p;
  }
  build_network(g_, total * total, net_, cdg_);
  for (const Node& n : net_.nodes) t_.lft[n.graph_node][n.lid] = 0;
  layer_.assign(port_of_lid_.size(), 0);

  // The CAs' base LIDs dealt round robin to the layers (distribute_lids_semi_randomly).
  std::vector<std::vector<Lid>> dests(max_vl_);
  unsigned vl = 0;
  for (const SubnetPortRef p : ports) {
    if (g_.nodes[p.node].is_switch()) continue;
    dests[vl].push_back(g_.port(p).lids.first);
    vl = (vl + 1) % max_vl_;
  }
  std::size_t most = 1;
  for (const auto& d : dests) most = std::max(most, d.size());
  cdg_.colors.resize(most * (std::size_t{1} << max_lmc) + 3);

  for (vl = 0; vl < max_vl_; ++vl) {
    if (dests[vl].empty()) continue;
    for (std::size_t i = 0; i < cdg_.colors.size(); ++i) cdg_.colors[i] = {static_cast<int>(i), static_cast<int>(i)};
    for (CNode& c : cdg_.nodes) {
      c.color = kUnused;
      c.wet = false;
      for (Edge& e : c.edges) {
        e.color = kUnused;
        e.wet = false;
      }
    }
    if (!mark_escape_paths(g_, port_of_lid_, net_, cdg_, dests[vl], vl == 0)) return false;
    int color = kEscape + 1;
    for (const Lid base : dests[vl]) {
      const LidRange r = g_.port(port_of_lid_[base]).lids;
      for (unsigned lid = r.first; lid <= r.last; ++lid) {
        if (static_cast<std::size_t>(color) >= cdg_.colors.size()) return false;
        bool escape = false;
        const Lid sw = switch_lid(g_, port_of_lid_, static_cast<Lid>(lid));
        if (!search_paths(net_, cdg_, sw, color++, escape)) return false;
        update_lft(static_cast<Lid>(lid));
        if (!update_weights(sw)) return false;
        layer_[lid] = static_cast<std::uint8_t>(vl);
      }
    }
  }
  // Switch LIDs: over a weighted spanning tree each, in layer 0.
  for (std::size_t i = 0; i < net_.nodes.size(); ++i) {
    const Lid lid = net_.nodes[i].lid;
    spanning_tree(net_, static_cast<int>(i));
    use_escape_paths(net_, lid);
    update_lft(lid);
    if (!update_weights(lid)) return false;
    layer_[lid] = 0;
  }
  return true;
}

}  // namespace

RoutingTables route_nue(const SubnetGraph& g, const NueOptions& options) {
  const unsigned vls = layers(g, options.max_vls);
  NueRouting nue(g, vls);
  if (!nue.route()) {
    RoutingTables t = route_minhop(g);
    t.notes.push_back("nue: the switches are not all connected; routed with minhop instead, as OpenSM does");
    return t;
  }
  RoutingTables t = std::move(nue.tables());
  if (vls > 1) {
    unsigned least_vls = 15;
    for (const SubnetNode& nd : g.nodes)
      for (unsigned p = 1; p <= nd.num_ports(); ++p)
        if (nd.ports[p].peer) least_vls = std::min(least_vls, nd.ports[p].data_vls);
    PathServiceLevels sl;
    sl.by_destination = nue.layer_of_lid();
    sl.sl_to_vl = opensm_default_sl_to_vl(least_vls);
    sl.vls_needed = vls;
    t.sl = std::move(sl);
  }
  t.notes.push_back(fmt::format("nue: {} layer{} (SL i -> VL i)", vls, vls == 1 ? "" : "s"));
  return t;
}

}  // namespace ibfsim
