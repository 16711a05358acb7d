#include "sim/ethernet/ethernet_fabric_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <limits>

#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "sim/ethernet/ip_prefix.h"

namespace ibfsim {

namespace {

constexpr unsigned kMaxNumbered = 250;

MacAddress switch_port_mac(unsigned sw, unsigned port) {
  return {0x02, 0, 0x01, 0, static_cast<std::uint8_t>(sw), static_cast<std::uint8_t>(port)};
}
MacAddress host_mac(unsigned leaf, unsigned h) {
  return {0x02, 0, 0, 0, static_cast<std::uint8_t>(leaf), static_cast<std::uint8_t>(h)};
}
IpAddress host_ip(unsigned leaf, unsigned h) {
  return IpAddress::v4(10, 0, static_cast<std::uint8_t>(leaf), static_cast<std::uint8_t>(h));
}

// Builds the plan's switches (numbered 1..n, ports given) and hosts, cables them, then computes the
// routes by breadth-first distances between switches.
class PlanBuilder {
 public:
  PlanBuilder(unsigned switches, std::uint64_t seed) {
    IBFSIM_CHECK(switches >= 1 && switches <= kMaxNumbered, "Ethernet fabric: 1 to 250 switches");
    for (unsigned s = 1; s <= switches; ++s) {
      EthernetNodePlan n;
      n.is_switch = true;
      n.ecmp_seed = static_cast<std::uint32_t>(RngStream(seed, kEcmpSeedStream + s).next_u64());
      plan.nodes.push_back(std::move(n));
    }
  }
  EthernetNodePlan& sw(unsigned s) { return plan.nodes[s - 1]; }
  void add_port(unsigned s) {
    EthernetNodePlan& n = sw(s);
    n.port_macs.push_back(switch_port_mac(s, n.num_ports() + 1));
    n.neighbour_macs.push_back({});
  }
  void cable_switches(unsigned s, PortNum sp, unsigned t, PortNum tp, const EthernetCableOwn& own = {}) {
    plan.cables.push_back({s - 1, sp, t - 1, tp, own});
    sw(s).neighbour_macs[sp - 1] = sw(t).port_macs[tp - 1];
    sw(t).neighbour_macs[tp - 1] = sw(s).port_macs[sp - 1];
  }
  // A host on port h of switch s (named h<s>_<h> unless named).
  void add_host(unsigned s, unsigned h, std::string name = {}, const EthernetCableOwn& own = {}) {
    IBFSIM_CHECK(h <= kMaxNumbered, "Ethernet fabric: at most 250 hosts per switch");
    EthernetNodePlan n;
    n.name = name.empty() ? fmt::format("h{}_{}", s, h) : std::move(name);
    n.port_macs = {host_mac(s, h)};
    n.neighbour_macs = {sw(s).port_macs[h - 1]};
    n.ip = host_ip(s, h);
    n.gateway_mac = sw(s).port_macs[h - 1];
    sw(s).neighbour_macs[h - 1] = n.port_macs[0];
    plan.cables.push_back({s - 1, static_cast<PortNum>(h), plan.nodes.size(), 1, own});
    plan.nodes.push_back(std::move(n));
    leaf_hosts[s].push_back(static_cast<PortNum>(h));
  }
  void finish_routes(unsigned switches) {
    // Switch-to-switch ports: (neighbour switch, port) per switch.
    std::vector<std::vector<std::pair<unsigned, PortNum>>> adj(switches + 1);
    for (const auto& c : plan.cables)
      if (c.b < switches) {
        adj[c.a + 1].push_back({static_cast<unsigned>(c.b + 1), c.a_port});
        adj[c.b + 1].push_back({static_cast<unsigned>(c.a + 1), c.b_port});
      }
    for (unsigned dst = 1; dst <= switches; ++dst) {
      if (leaf_hosts.count(dst) == 0) continue;
      // Hops from every switch to dst.
      std::vector<unsigned> dist(switches + 1, std::numeric_limits<unsigned>::max());
      std::deque<unsigned> q{dst};
      dist[dst] = 0;
      while (!q.empty()) {
        const unsigned u = q.front();
        q.pop_front();
        for (const auto& [v, port] : adj[u])
          if (dist[v] == std::numeric_limits<unsigned>::max()) {
            dist[v] = dist[u] + 1;
            q.push_back(v);
          }
      }
      const IpPrefix subnet{host_ip(dst, 0), 24};
      for (unsigned s = 1; s <= switches; ++s) {
        if (s == dst) {
          for (const PortNum h : leaf_hosts[dst]) sw(s).routes.add(IpPrefix{host_ip(dst, h), 32}, {h});
          continue;
        }
        if (dist[s] == std::numeric_limits<unsigned>::max()) continue;
        NextHops hops;
        for (const auto& [v, port] : adj[s])
          if (dist[v] + 1 == dist[s]) hops.push_back(port);
        std::sort(hops.begin(), hops.end());
        sw(s).routes.add(subnet, hops);
      }
    }
  }

  EthernetFabricPlan plan;
  std::map<unsigned, std::vector<PortNum>> leaf_hosts;  // switch -> the ports its hosts are on
};

}  // namespace

std::vector<std::size_t> EthernetFabricPlan::hosts() const {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].is_switch) v.push_back(i);
  return v;
}

std::vector<std::size_t> EthernetFabricPlan::switches() const {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].is_switch) v.push_back(i);
  return v;
}

std::size_t EthernetFabricPlan::find(const std::string& name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return i;
  return nodes.size();
}

EthernetFabricPlan ethernet_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf, std::uint64_t seed) {
  IBFSIM_CHECK(leaves >= 1 && spines >= 1 && hosts_per_leaf >= 1, "Ethernet leaf-spine: at least one of each");
  IBFSIM_CHECK(hosts_per_leaf + spines <= kMaxNumbered && leaves <= kMaxNumbered,
               "Ethernet leaf-spine: at most 250 ports a switch");
  PlanBuilder b(leaves + spines, seed);
  for (unsigned l = 1; l <= leaves; ++l) {
    b.sw(l).name = fmt::format("leaf{}", l);
    for (unsigned p = 0; p < hosts_per_leaf + spines; ++p) b.add_port(l);
  }
  for (unsigned s = 1; s <= spines; ++s) {
    b.sw(leaves + s).name = fmt::format("spine{}", s);
    for (unsigned p = 0; p < leaves; ++p) b.add_port(leaves + s);
  }
  for (unsigned l = 1; l <= leaves; ++l)
    for (unsigned s = 1; s <= spines; ++s)
      b.cable_switches(l, static_cast<PortNum>(hosts_per_leaf + s), leaves + s, static_cast<PortNum>(l));
  for (unsigned l = 1; l <= leaves; ++l)
    for (unsigned h = 1; h <= hosts_per_leaf; ++h) b.add_host(l, h);
  b.finish_routes(leaves + spines);
  return std::move(b.plan);
}

EthernetFabricPlan ethernet_line(unsigned switches, unsigned hosts_per_switch, std::uint64_t seed) {
  IBFSIM_CHECK(hosts_per_switch >= 1 && hosts_per_switch + 2 <= kMaxNumbered, "Ethernet line: 1 to 248 hosts a switch");
  PlanBuilder b(switches, seed);
  for (unsigned s = 1; s <= switches; ++s) {
    b.sw(s).name = fmt::format("sw{}", s);
    const unsigned ports = hosts_per_switch + (s > 1) + (s < switches);
    for (unsigned p = 0; p < ports; ++p) b.add_port(s);
  }
  // Port n+1 toward the previous switch, the last port toward the next.
  for (unsigned s = 1; s < switches; ++s)
    b.cable_switches(s, static_cast<PortNum>(b.sw(s).num_ports()), s + 1, static_cast<PortNum>(hosts_per_switch + 1));
  for (unsigned s = 1; s <= switches; ++s)
    for (unsigned h = 1; h <= hosts_per_switch; ++h) b.add_host(s, h);
  b.finish_routes(switches);
  return std::move(b.plan);
}

std::uint64_t nearest_edges(Time t, const EthernetRate& rate) {
  const std::uint64_t period = rate.info().byte_period_fs;
  return (static_cast<std::uint64_t>(t) + period / 2) / period;
}

std::uint64_t cable_propagation_edges(const EthernetCablePlan& c, const EthernetRate& rate, std::uint64_t fabric_edges) {
  return c.own.propagation ? nearest_edges(*c.own.propagation, rate) : fabric_edges;
}

EthernetFabricPlan ethernet_plan(const EthernetShape& shape, std::uint64_t seed) {
  const auto n = static_cast<unsigned>(shape.switches.size());
  PlanBuilder b(n, seed);
  for (unsigned s = 1; s <= n; ++s) {
    const EthernetShape::Switch& sw = shape.switches[s - 1];
    IBFSIM_CHECK(sw.ports >= 1 && sw.ports <= kMaxNumbered, "Ethernet fabric: 1 to 250 ports a switch");
    b.sw(s).name = sw.name;
    for (unsigned p = 0; p < sw.ports; ++p) b.add_port(s);
  }
  for (const EthernetShape::Link& l : shape.links)
    b.cable_switches(static_cast<unsigned>(l.a + 1), l.a_port, static_cast<unsigned>(l.b + 1), l.b_port, l.cable);
  for (const EthernetShape::Host& h : shape.hosts)
    b.add_host(static_cast<unsigned>(h.switch_index + 1), h.port, h.name, h.cable);
  b.finish_routes(n);
  return std::move(b.plan);
}

}  // namespace ibfsim
