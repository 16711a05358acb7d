// The generators of sim/fabric/topology_generators.h: node, cable and port counts equal the closed
// forms of topologies/README.md, every generated fabric is valid and connected, and the static
// routes reach every host in the fabric's diameter.
#include <catch2/catch.hpp>

#include <set>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/fabric/static_routing.h"
#include "sim/fabric/topology.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml.h"

using namespace ibfsim;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";
constexpr unsigned kFar = std::numeric_limits<unsigned>::max();

struct Expect {
  std::uint64_t hosts;
  std::uint64_t switches;
  std::uint64_t cables;
  unsigned switch_ports;
  unsigned diameter;  // most switch-to-switch hops between two switches that hold hosts
};

std::uint64_t power(std::uint64_t base, unsigned exp) {
  std::uint64_t r = 1;
  while (exp-- > 0) r *= base;
  return r;
}

// Hop distances between switches over switch-to-switch cables (BFS from every switch).
struct SwitchDistances {
  std::vector<std::size_t> index;          // [node] -> switch number, or kNone
  std::vector<std::vector<unsigned>> hops;  // [switch][switch], kFar if unreachable

  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  unsigned between(std::size_t node_a, std::size_t node_b) const { return hops[index[node_a]][index[node_b]]; }
};

SwitchDistances switch_distances(const Topology& t) {
  SwitchDistances d;
  const std::vector<std::size_t> switches = t.switches();
  d.index.assign(t.nodes.size(), SwitchDistances::kNone);
  for (std::size_t i = 0; i < switches.size(); ++i) d.index[switches[i]] = i;
  std::vector<std::vector<std::size_t>> adj(switches.size());
  for (const TopoCable& c : t.cables) {
    if (t.nodes[c.node_a].type == NodeType::kSwitch && t.nodes[c.node_b].type == NodeType::kSwitch) {
      adj[d.index[c.node_a]].push_back(d.index[c.node_b]);
      adj[d.index[c.node_b]].push_back(d.index[c.node_a]);
    }
  }
  d.hops.assign(switches.size(), std::vector<unsigned>(switches.size(), kFar));
  for (std::size_t from = 0; from < switches.size(); ++from) {
    std::vector<unsigned>& row = d.hops[from];
    row[from] = 0;
    std::queue<std::size_t> q;
    q.push(from);
    while (!q.empty()) {
      const std::size_t x = q.front();
      q.pop();
      for (std::size_t y : adj[x]) {
        if (row[y] != kFar) continue;
        row[y] = row[x] + 1;
        q.push(y);
      }
    }
  }
  return d;
}

// The switch a host's port 1 is cabled to.
std::size_t host_switch(const Topology& t, std::size_t host) {
  return t.cables.at(*t.cable_at(host, 1)).far_end(host).node;
}

unsigned host_diameter(const Topology& t) {
  const SwitchDistances dist = switch_distances(t);
  const auto cables = t.port_cables();
  std::vector<std::size_t> with_hosts;
  std::vector<bool> seen(t.nodes.size(), false);
  for (std::size_t h : t.hcas()) {
    const std::size_t sw = t.cables[*cables[h][1]].far_end(h).node;
    if (!seen[sw]) with_hosts.push_back(sw);
    seen[sw] = true;
  }
  unsigned diameter = 0;
  for (std::size_t a : with_hosts)
    for (std::size_t b : with_hosts) diameter = std::max(diameter, dist.between(a, b));
  return diameter;
}

using PortCables = std::vector<std::vector<std::optional<std::size_t>>>;

// Follows the LFTs from src's switch to dst_lid; the number of switches crossed, or 0 on a loop or a
// missing route.
unsigned switches_crossed(const Topology& t, const PortCables& cables, const StaticRouting& r, std::size_t src,
                          Lid dst_lid) {
  PortRef at{t.cables[*cables[src][1]].far_end(src).node, 0};
  for (unsigned crossed = 1; crossed <= 64; ++crossed) {
    const std::uint8_t out = r.lft[at.node].at(dst_lid);
    if (out == kNoRoute || out == 0) return 0;
    const PortRef next = t.cables[*cables[at.node][out]].far_end(at.node);
    if (t.nodes[next.node].type == NodeType::kHca) return r.port_lid[next.node][next.port] == dst_lid ? crossed : 0;
    at = next;
  }
  return 0;
}

// Everything every generated fabric must satisfy, plus the expected counts.
void check_fabric(const Topology& t, const Expect& e) {
  INFO("fabric of " << e.hosts << " hosts, " << e.switches << " switches");
  CHECK(t.hcas().size() == e.hosts);
  CHECK(t.switches().size() == e.switches);
  CHECK(t.nodes.size() == e.hosts + e.switches);
  CHECK(t.cables.size() == e.cables);
  CHECK_NOTHROW(validate_topology(t));
  CHECK(unreachable_nodes(t).empty());
  CHECK(topology_warnings(t).empty());
  CHECK_NOTHROW(require_connected(t));
  // HCAs come first and are named h1..hN.
  for (std::size_t i = 0; i < e.hosts; ++i) {
    CHECK(t.nodes[i].type == NodeType::kHca);
    CHECK(t.nodes[i].name == "h" + std::to_string(i + 1));
  }
  for (std::size_t s : t.switches()) {
    CHECK(t.nodes[s].num_ports == e.switch_ports);
    CHECK(t.nodes[s].port_speeds.size() == e.switch_ports + 1);
    CHECK(t.nodes[s].port_widths.size() == e.switch_ports + 1);
  }
  // Default GUIDs: switches 0x0002c903_00000000 + index + 1, HCAs 0x0002c903_01000000 + index + 1 +
  // the ports beyond the first of earlier HCAs; so no port GUID (HCA: node GUID + port) repeats.
  std::size_t extra = 0;
  std::set<Guid> port_guids;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const TopoNode& n = t.nodes[i];
    const Guid base = n.type == NodeType::kSwitch ? 0x0002c90300000000ull : 0x0002c90301000000ull + extra;
    CHECK(n.guid == base + i + 1);
    if (n.type == NodeType::kHca) extra += n.num_ports - 1;
    for (unsigned p = n.type == NodeType::kSwitch ? 0 : 1; p <= (n.type == NodeType::kSwitch ? 0 : n.num_ports); ++p)
      CHECK(port_guids.insert(port_guid_of(n, p)).second);
  }
  for (const TopoCable& c : t.cables) {
    CHECK(c.port_a >= 1);
    CHECK(c.port_a <= t.nodes[c.node_a].num_ports);
    CHECK(c.port_b >= 1);
    CHECK(c.port_b <= t.nodes[c.node_b].num_ports);
  }
  CHECK(host_diameter(t) == e.diameter);
}

// The static routes take every host to every other through at most diameter + 1 switches
// (sampled sources for larger fabrics).
void check_routes(const Topology& t, unsigned diameter) {
  const StaticRouting r = compute_static_routing(t);
  const std::vector<std::size_t> hosts = t.hcas();
  const std::size_t step = hosts.size() > 64 ? hosts.size() / 16 + 1 : 1;
  const SwitchDistances dist = switch_distances(t);
  const PortCables cables = t.port_cables();
  for (std::size_t i = 0; i < hosts.size(); i += step) {
    const std::size_t src = hosts[i];
    for (std::size_t dst : hosts) {
      if (dst == src) continue;
      const unsigned crossed = switches_crossed(t, cables, r, src, r.port_lid[dst][1]);
      INFO(t.nodes[src].name << " -> " << t.nodes[dst].name);
      CHECK(crossed == dist.between(host_switch(t, src), host_switch(t, dst)) + 1);  // min hop
      CHECK(crossed <= diameter + 1);
    }
  }
}

Expect xgft_expect(const std::vector<unsigned>& m, const std::vector<unsigned>& w) {
  const std::size_t h = m.size();
  auto level = [&](std::size_t i) {
    std::uint64_t n = 1;
    for (std::size_t j = 1; j <= h; ++j) n *= j <= i ? w[j - 1] : m[j - 1];
    return n;
  };
  Expect e{level(0), 0, 0, 0, 2 * static_cast<unsigned>(h - 1)};
  for (std::size_t i = 1; i <= h; ++i) e.switches += level(i);
  for (std::size_t i = 0; i < h; ++i) e.cables += level(i) * w[i];
  for (std::size_t i = 1; i <= h; ++i) e.switch_ports = std::max(e.switch_ports, m[i - 1] + (i < h ? w[i] : 0));
  return e;
}

}  // namespace

TEST_CASE("k-ary n-tree: k^n hosts, n k^(n-1) switches of 2k ports, n k^n cables", "[fabric][generators]") {
  const TopologyDefaults d;
  for (auto [k, n] : std::vector<std::pair<unsigned, unsigned>>{{2, 1}, {2, 2}, {2, 3}, {4, 2}, {4, 3}, {3, 4}, {8, 2}}) {
    const Topology t = generate_kary_ntree(k, n, d);
    const Expect e{power(k, n), n * power(k, n - 1), n * power(k, n), n == 1 ? k : 2 * k, 2 * (n - 1)};
    check_fabric(t, e);
    check_routes(t, e.diameter);
  }
}

TEST_CASE("fat tree from radix-r switches: 2 (r/2)^n hosts, (2n-1) (r/2)^(n-1) switches", "[fabric][generators]") {
  const TopologyDefaults d;
  for (auto [r, n] : std::vector<std::pair<unsigned, unsigned>>{{4, 1}, {4, 2}, {4, 3}, {6, 2}, {8, 3}, {36, 2}}) {
    const Topology t = generate_fat_tree_radix(r, n, d);
    const std::uint64_t k = r / 2;
    const Expect e{2 * power(k, n), (2 * n - 1) * power(k, n - 1), 2 * n * power(k, n), r, 2 * (n - 1)};
    check_fabric(t, e);
    if (r <= 8) check_routes(t, e.diameter);
  }
}

TEST_CASE("XGFT: N_i = prod_{j>i} m_j * prod_{j<=i} w_j, also oversubscribed", "[fabric][generators]") {
  const TopologyDefaults d;
  const std::vector<std::pair<std::vector<unsigned>, std::vector<unsigned>>> shapes = {
      {{4, 3}, {1, 2}},        // 12 hosts, 3 leaves with 2 up-links each: 2:1 oversubscribed
      {{6, 4, 2}, {1, 3, 2}},  // 48 hosts, three levels, oversubscribed at the leaves and spines
      {{5}, {1}},              // one switch
      {{3, 3, 3, 2}, {1, 3, 3, 3}},  // four levels
  };
  for (const auto& [m, w] : shapes) {
    const Topology t = generate_xgft(m, w, d);
    const Expect e = xgft_expect(m, w);
    check_fabric(t, e);
    check_routes(t, e.diameter);
  }
}

TEST_CASE("XGFT with w1 = 2 builds two separate planes, reported as not connected", "[fabric][generators]") {
  TopologyDefaults d;
  d.hca_ports = 2;
  const Topology t = generate_xgft({4, 2}, {2, 2}, d);
  const Expect e = xgft_expect({4, 2}, {2, 2});
  CHECK(t.hcas().size() == e.hosts);
  CHECK(t.switches().size() == e.switches);
  CHECK(t.cables.size() == e.cables);
  CHECK_NOTHROW(validate_topology(t));
  // Leaf (a2, b1) and spine (b2, b1) are numbered a2*2 + b1 and b2*2 + b1: plane b1 = 1 holds the
  // even-numbered ones, which cannot reach plane 0 (routes never pass through an HCA).
  std::vector<std::string> cut_off;
  for (std::size_t n : unreachable_nodes(t)) cut_off.push_back(t.nodes[n].name);
  CHECK(cut_off == std::vector<std::string>{"leaf2", "leaf4", "spine2", "spine4"});
  for (std::size_t host : t.hcas()) {
    CHECK(t.nodes[t.cables.at(*t.cable_at(host, 1)).far_end(host).node].name.back() % 2 == 1);  // leaf1, leaf3
    CHECK(t.nodes[t.cables.at(*t.cable_at(host, 2)).far_end(host).node].name.back() % 2 == 0);  // leaf2, leaf4
  }
}

TEST_CASE("XGFT wiring: child port a+1 of a parent, up ports after the down ports", "[fabric][generators]") {
  const Topology t = generate_xgft({2, 3}, {1, 2}, TopologyDefaults{});
  // h1..h6, leaf1..leaf3 (6..8), spine1..spine2 (9..10); ports max(2 + 2, 3) = 4.
  REQUIRE(t.nodes.size() == 11);
  CHECK(t.nodes[6].name == "leaf1");
  CHECK(t.nodes[9].name == "spine1");
  CHECK(t.nodes[10].name == "spine2");
  for (std::size_t host = 0; host < 6; ++host) {
    const PortRef leaf = t.cables.at(*t.cable_at(host, 1)).far_end(host);
    CHECK(leaf.node == 6 + host / 2);
    CHECK(leaf.port == host % 2 + 1);
  }
  for (std::size_t l = 0; l < 3; ++l) {
    for (unsigned s = 0; s < 2; ++s) {
      const PortRef spine = t.cables.at(*t.cable_at(6 + l, 3 + s)).far_end(6 + l);
      CHECK(spine.node == 9 + s);
      CHECK(spine.port == l + 1);
    }
  }
  CHECK_FALSE(t.cable_at(9, 4));  // spines use 3 of their 4 ports
}

TEST_CASE("leaf_spine equals the XGFT with m = (hosts_per_leaf, leaves), w = (1, spines), cable for cable", "[fabric][generators]") {
  const TopologyDefaults d;
  const Topology ls = generate_leaf_spine(5, 3, 4, d);
  const Topology x = generate_xgft({4, 5}, {1, 3}, d);
  REQUIRE(ls.nodes.size() == x.nodes.size());
  REQUIRE(ls.cables.size() == x.cables.size());
  for (std::size_t i = 0; i < ls.nodes.size(); ++i) CHECK(ls.nodes[i].name == x.nodes[i].name);
  for (std::size_t i = 0; i < ls.cables.size(); ++i) {
    CHECK(ls.cables[i].node_a == x.cables[i].node_a);
    CHECK(ls.cables[i].port_a == x.cables[i].port_a);
    CHECK(ls.cables[i].node_b == x.cables[i].node_b);
    CHECK(ls.cables[i].port_b == x.cables[i].port_b);
  }
}

TEST_CASE("fat tree generators reject impossible shapes", "[fabric][generators]") {
  const TopologyDefaults d;
  auto error = [](auto&& build) -> std::string {
    try {
      build();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error([&] { generate_kary_ntree(128, 2, d); }) == "at most 254 ports per switch, got switches needing 256");
  CHECK(error([&] { generate_fat_tree_radix(7, 2, d); }) == "an even switch radix of at least 2, got 7");
  CHECK(error([&] { generate_xgft({4, 4}, {1}, d); }) ==
        "m and w lists of the same length, at least 1, got 2 and 1 entries");
  CHECK(error([&] { generate_xgft({4, 0}, {1, 1}, d); }) == "every m >= 1, got 0");
  CHECK(error([&] { generate_xgft({4, 4}, {2, 1}, d); }) ==
        "HCAs with at least 2 ports for w1 = 2, got 1 (defaults.hca.ports)");
  CHECK(error([&] { generate_kary_ntree(36, 4, d); }) ==
        "a fabric with at most 49151 LIDs (HCA ports + switches), got 1679616 HCAs of 1 port and 186624 switches");
  TopologyDefaults small = d;
  small.switch_ports = 36;
  CHECK(error([&] { generate_fat_tree_radix(40, 2, small); }) ==
        "switches with at least 40 ports, got 36 ports (defaults.switch.ports)");
  CHECK(generate_kary_ntree(4, 2, small).nodes.back().num_ports == 36);
}

TEST_CASE("mesh: S = prod d_i switches of p + 2D ports, S p + sum S/d_i (d_i - 1) cables", "[fabric][generators]") {
  const TopologyDefaults d;
  for (unsigned p : {1u, 2u}) {
    for (const std::vector<unsigned>& dims :
         std::vector<std::vector<unsigned>>{{5}, {2, 2}, {4, 4}, {3, 5}, {2, 3, 4}, {4, 4, 4}}) {
      const Topology t = generate_mesh(dims, p, false, d);
      std::uint64_t s = 1;
      for (unsigned x : dims) s *= x;
      Expect e{s * p, s, s * p, p + 2 * static_cast<unsigned>(dims.size()), 0};
      for (unsigned x : dims) {
        e.cables += s / x * (x - 1);
        e.diameter += x - 1;
      }
      check_fabric(t, e);
      check_routes(t, e.diameter);
    }
  }
}

TEST_CASE("torus: S = prod d_i switches of p + 2D ports, S p + D S cables", "[fabric][generators]") {
  const TopologyDefaults d;
  for (unsigned p : {1u, 3u}) {
    for (const std::vector<unsigned>& dims :
         std::vector<std::vector<unsigned>>{{6}, {2, 2}, {4, 4}, {3, 5}, {2, 3, 4}, {4, 4, 4}}) {
      const Topology t = generate_mesh(dims, p, true, d);
      std::uint64_t s = 1;
      for (unsigned x : dims) s *= x;
      Expect e{s * p, s, s * p + dims.size() * s, p + 2 * static_cast<unsigned>(dims.size()), 0};
      for (unsigned x : dims) e.diameter += x / 2;
      check_fabric(t, e);
      check_routes(t, e.diameter);
      // Every switch port is cabled, hosts first, then +/- per dimension.
      for (std::size_t sw : t.switches())
        for (unsigned port = 1; port <= t.nodes[sw].num_ports; ++port) CHECK(t.cable_at(sw, port));
    }
  }
}

TEST_CASE("torus wiring: names by coordinate, port p+2i+1 to +1, wrap-around", "[fabric][generators]") {
  const Topology t = generate_mesh({3, 4}, 2, true, TopologyDefaults{});
  const std::size_t first = 24;  // 12 switches x 2 hosts
  CHECK(t.nodes[first].name == "sw0_0");
  CHECK(t.nodes[first + 1].name == "sw0_1");
  CHECK(t.nodes[first + 4].name == "sw1_0");
  CHECK(t.nodes[first + 11].name == "sw2_3");
  // sw2_3: +x (port 3) wraps to sw0_3 port 4; +y (port 5) wraps to sw2_0 port 6.
  const std::size_t sw23 = *t.find_node("sw2_3");
  const PortRef px = t.cables.at(*t.cable_at(sw23, 3)).far_end(sw23);
  CHECK(t.nodes[px.node].name == "sw0_3");
  CHECK(px.port == 4);
  const PortRef py = t.cables.at(*t.cable_at(sw23, 5)).far_end(sw23);
  CHECK(t.nodes[py.node].name == "sw2_0");
  CHECK(py.port == 6);
  // Switch s holds hosts h(2s+1), h(2s+2) on ports 1, 2.
  CHECK(t.cables.at(*t.cable_at(sw23, 2)).far_end(sw23).node == *t.find_node("h24"));
  // A mesh leaves outward ports uncabled.
  const Topology m = generate_mesh({3, 4}, 2, false, TopologyDefaults{});
  CHECK_FALSE(m.cable_at(*m.find_node("sw2_3"), 3));
  CHECK_FALSE(m.cable_at(*m.find_node("sw0_0"), 4));
  CHECK(m.cable_at(*m.find_node("sw0_0"), 3));
}

TEST_CASE("dragonfly: g a routers, g a p hosts, g a p + g a(a-1)/2 + c g(g-1)/2 cables", "[fabric][generators]") {
  const TopologyDefaults d;
  struct Shape {
    unsigned a, p, h, g;
  };
  for (const Shape s : std::vector<Shape>{{4, 2, 2, 0}, {2, 1, 1, 0}, {1, 1, 2, 0}, {4, 2, 2, 5}, {3, 1, 2, 4},
                                          {4, 1, 3, 6}, {6, 3, 3, 0}}) {
    const Topology t = generate_dragonfly(s.a, s.p, s.h, s.g, d);
    const std::uint64_t g = s.g == 0 ? s.a * s.h + 1 : s.g;
    const std::uint64_t c = s.a * s.h / (g - 1);
    const std::uint64_t routers = g * s.a;
    // Router to router: local, global, local; one group of one router: global only.
    const unsigned diameter = s.a == 1 ? 1 : 3;
    const Expect e{routers * s.p, routers, routers * s.p + g * s.a * (s.a - 1) / 2 + c * g * (g - 1) / 2,
                   s.p + s.a - 1 + s.h, diameter};
    INFO("a=" << s.a << " p=" << s.p << " h=" << s.h << " g=" << g);
    check_fabric(t, e);
    check_routes(t, e.diameter);
    // Every pair of groups is joined by exactly c global cables; each group is a complete graph.
    std::map<std::pair<std::uint64_t, std::uint64_t>, unsigned> between;
    const std::size_t first = routers * s.p;
    for (const TopoCable& cab : t.cables) {
      if (cab.node_a < first || cab.node_b < first) continue;
      const std::uint64_t ga = (cab.node_a - first) / s.a, gb = (cab.node_b - first) / s.a;
      ++between[{std::min(ga, gb), std::max(ga, gb)}];
    }
    for (std::uint64_t i = 0; i < g; ++i) {
      CHECK(between[{i, i}] == s.a * (s.a - 1) / 2);
      for (std::uint64_t k = i + 1; k < g; ++k) CHECK(between[{i, k}] == c);
    }
  }
}

TEST_CASE("dragonfly wiring: names g<G>r<R>, local then global ports", "[fabric][generators]") {
  const Topology t = generate_dragonfly(4, 2, 2, 0, TopologyDefaults{});  // 9 groups
  CHECK(t.nodes[72].name == "g1r1");
  CHECK(t.nodes[75].name == "g1r4");
  CHECK(t.nodes[76].name == "g2r1");
  CHECK(t.nodes.back().name == "g9r4");
  // g1r2 port 3 goes to g1r1 (its port 3); g1r1 port 5 to g1r4.
  const std::size_t g1r1 = *t.find_node("g1r1"), g1r2 = *t.find_node("g1r2");
  CHECK(t.cables.at(*t.cable_at(g1r2, 3)).far_end(g1r2).node == g1r1);
  CHECK(t.cables.at(*t.cable_at(g1r2, 3)).far_end(g1r2).port == 3);
  CHECK(t.cables.at(*t.cable_at(g1r1, 5)).far_end(g1r1).node == *t.find_node("g1r4"));
  // Group 1 global slot j (router j/2, port 6 + j%2) goes to group j+2: g1r1 port 6 -> group 2,
  // whose slot 0 (g2r1 port 6) serves group 1.
  const PortRef far = t.cables.at(*t.cable_at(g1r1, 6)).far_end(g1r1);
  CHECK(t.nodes[far.node].name == "g2r1");
  CHECK(far.port == 6);
  const PortRef last = t.cables.at(*t.cable_at(*t.find_node("g1r4"), 7)).far_end(*t.find_node("g1r4"));
  CHECK(t.nodes[last.node].name == "g9r1");
  CHECK(last.port == 6);
}

TEST_CASE("hypercube: 2^d switches of p + d ports, 2^d p + d 2^(d-1) cables", "[fabric][generators]") {
  const TopologyDefaults d;
  for (unsigned dim = 1; dim <= 6; ++dim) {
    for (unsigned p : {1u, 2u}) {
      const Topology t = generate_hypercube(dim, p, d);
      const std::uint64_t s = power(2, dim);
      check_fabric(t, Expect{s * p, s, s * p + dim * s / 2, p + dim, dim});
      check_routes(t, dim);
    }
  }
  const Topology t = generate_hypercube(3, 1, d);
  CHECK(t.nodes[8].name == "sw000");
  CHECK(t.nodes[9].name == "sw001");
  CHECK(t.nodes[15].name == "sw111");
  // sw101 port 1 + 1 + 1 (bit 1) goes to sw111, port 3.
  const PortRef far = t.cables.at(*t.cable_at(*t.find_node("sw101"), 3)).far_end(*t.find_node("sw101"));
  CHECK(t.nodes[far.node].name == "sw111");
  CHECK(far.port == 3);
}

TEST_CASE("mesh, torus, dragonfly and hypercube reject impossible shapes", "[fabric][generators]") {
  const TopologyDefaults d;
  auto error = [](auto&& build) -> std::string {
    try {
      build();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error([&] { generate_mesh({4, 4, 4, 4}, 1, true, d); }) == "1 to 3 dimensions, got 4");
  CHECK(error([&] { generate_mesh({4, 1}, 1, false, d); }) == "dimension sizes of at least 2, got 1");
  CHECK(error([&] { generate_mesh({4, 4}, 0, false, d); }) == "hosts_per_switch >= 1, got 0");
  CHECK(error([&] { generate_dragonfly(4, 2, 2, 10, d); }) == "2..9 groups (a*h + 1), got 10");
  CHECK(error([&] { generate_dragonfly(4, 2, 2, 1, d); }) == "2..9 groups (a*h + 1), got 1");
  CHECK(error([&] { generate_hypercube(16, 1, d); }) ==
        "a fabric with at most 49151 LIDs (HCA ports + switches), got 65536 HCAs of 1 port and 65536 switches");
  CHECK(error([&] { generate_hypercube(4, 251, d); }) == "at most 254 ports per switch, got switches needing 255");
}

TEST_CASE("generated nodes take every setting of the defaults", "[fabric][generators]") {
  TopologyDefaults d;
  d.switch_vls = 4;
  d.hca_vls = 2;
  d.switch_vl15_buffer_credits = 20;
  d.hca_vl15_buffer_credits = 6;
  d.switch_speeds = speed_bit(LinkSpeed::kEdr) | speed_bit(LinkSpeed::kHdr);
  d.hca_speeds = speed_bit(LinkSpeed::kEdr);
  d.switch_widths = width_bit(4);
  d.hca_widths = width_bit(4) | width_bit(1);
  d.switch_latency = 130 * kNs;
  d.switch_buffer_credits = 99;
  d.hca_buffer_credits = 77;
  for (const Topology& t : {generate_hypercube(2, 1, d), generate_dragonfly(2, 1, 1, 0, d),
                            generate_mesh({2, 2}, 1, true, d), generate_kary_ntree(2, 2, d),
                            generate_leaf_spine(2, 2, 2, d)}) {
    for (const TopoNode& n : t.nodes) {
      const bool sw = n.type == NodeType::kSwitch;
      CHECK(n.op_vls == (sw ? 4u : 2u));
      CHECK(n.vl15_buffer_credits == (sw ? 20u : 6u));
      CHECK(n.rx_buffer_credits == (sw ? 99u : 77u));
      CHECK(n.switch_latency == (sw ? 130 * kNs : 0));
      CHECK(n.port_speeds == std::vector<SpeedSet>(n.num_ports + 1, sw ? d.switch_speeds : d.hca_speeds));
      CHECK(n.port_widths == std::vector<WidthSet>(n.num_ports + 1, sw ? d.switch_widths : d.hca_widths));
    }
    CHECK_NOTHROW(validate_topology(t));
  }
}

TEST_CASE("presets load with the documented shape", "[fabric][generators]") {
  struct Preset {
    const char* file;
    std::uint64_t hosts, switches, cables;
    unsigned ports;
  };
  for (const Preset p : std::vector<Preset>{{"quickstart.yaml", 8, 1, 8, 36},
                                            {"leaf_spine_128.yaml", 128, 24, 256, 16},
                                            {"fat_tree_2level_648.yaml", 648, 54, 1296, 36},
                                            {"torus_4x4x4.yaml", 128, 64, 320, 8},
                                            {"mesh_8x8.yaml", 64, 64, 176, 5},
                                            {"dragonfly_72.yaml", 72, 36, 162, 7},
                                            {"hypercube_4d.yaml", 32, 16, 64, 6},
                                            {"mixed_speeds.yaml", 8, 1, 8, 40}}) {
    INFO(p.file);
    const Topology t = load_topology(kTopologies + p.file);
    CHECK(t.hcas().size() == p.hosts);
    CHECK(t.switches().size() == p.switches);
    CHECK(t.cables.size() == p.cables);
    CHECK(t.nodes[t.switches().front()].num_ports == p.ports);
    CHECK(unreachable_nodes(t).empty());
    CHECK(topology_warnings(t).empty());
    const StaticRouting r = compute_static_routing(t);
    CHECK(r.lft_top == p.hosts + p.switches);
  }
}

TEST_CASE("fat_tree_3level_11664.yaml loads and routes: 11,664 hosts, 1,620 switches", "[fabric][generators]") {
  const auto start = std::chrono::steady_clock::now();
  const Topology t = load_topology(kTopologies + "fat_tree_3level_11664.yaml");
  const auto loaded = std::chrono::steady_clock::now();
  const StaticRouting r = compute_static_routing(t);
  const auto routed = std::chrono::steady_clock::now();
  using ms = std::chrono::duration<double, std::milli>;
  std::cout << "fat_tree_3level_11664.yaml: load " << ms(loaded - start).count() << " ms, route "
            << ms(routed - loaded).count() << " ms\n";

  check_fabric(t, Expect{11664, 1620, 34992, 36, 4});
  CHECK(r.lft_top == 11664 + 1620);
  CHECK(t.nodes[11664].name == "leaf1");
  CHECK(t.nodes[11664 + 648].name == "spine1");
  CHECK(t.nodes[11664 + 1296].name == "core1");
  CHECK(t.nodes.back().name == "core324");
  // leaf1: ports 1..18 to h1..h18, 19..36 to spine1..spine18 (port 1 of each).
  const std::size_t leaf1 = 11664, spine1 = 11664 + 648, core1 = 11664 + 1296;
  for (unsigned port = 1; port <= 18; ++port) CHECK(t.cables.at(*t.cable_at(leaf1, port)).far_end(leaf1).node == port - 1);
  for (unsigned j = 0; j < 18; ++j) {
    const PortRef up = t.cables.at(*t.cable_at(leaf1, 19 + j)).far_end(leaf1);
    CHECK(up.node == spine1 + j);
    CHECK(up.port == 1);
  }
  // core1 port P goes to the first spine of pod P, on its port 19.
  for (unsigned pod = 0; pod < 36; ++pod) {
    const PortRef down = t.cables.at(*t.cable_at(core1, pod + 1)).far_end(core1);
    CHECK(down.node == spine1 + pod * 18);
    CHECK(down.port == 19);
  }
  // Routes: every host from three sources, min hop (1, 3 or 5 switches).
  const PortCables cables = t.port_cables();
  for (std::size_t src : {std::size_t{0}, std::size_t{5000}, std::size_t{11663}}) {
    for (std::size_t dst = 0; dst < 11664; ++dst) {
      if (dst == src) continue;
      const unsigned expected = src / 18 == dst / 18 ? 1 : src / 324 == dst / 324 ? 3 : 5;
      if (switches_crossed(t, cables, r, src, static_cast<Lid>(dst + 1)) != expected) {
        FAIL("h" << src + 1 << " -> h" << dst + 1 << " crosses the wrong number of switches");
      }
    }
  }
  // Balance: a leaf spreads the 11,646 remote hosts over its 18 up-ports, 647 each.
  std::vector<unsigned> per_port(37, 0);
  for (Lid lid = 1; lid <= 11664; ++lid) ++per_port[r.lft[leaf1][lid]];
  for (unsigned port = 19; port <= 36; ++port) CHECK(per_port[port] == 647);
}

namespace {

std::string topology_error(const std::string& text) {
  try {
    parse_topology(YAML::Load(text), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("generate: every kind is read from YAML", "[fabric][generators]") {
  auto parse = [](const std::string& text) { return parse_topology(YAML::Load(text), "t.yaml"); };
  const Topology kn = parse("generate: {kind: fat_tree, k: 4, n: 3}\n");
  CHECK(kn.hcas().size() == 64);
  CHECK(kn.switches().size() == 48);
  CHECK(kn.nodes.back().name == "core16");
  const Topology radix = parse("generate: {kind: fat_tree, radix: 8, levels: 3}\n");
  CHECK(radix.hcas().size() == 128);
  CHECK(radix.switches().size() == 80);
  const Topology xgft = parse("generate: {kind: fat_tree, m: [6, 4, 2], w: [1, 3, 2]}\n");
  CHECK(xgft.hcas().size() == 48);
  CHECK(xgft.switches().size() == 20);
  const Topology mesh = parse("generate: {kind: mesh, dims: [3, 4]}\n");  // hosts_per_switch defaults to 1
  CHECK(mesh.hcas().size() == 12);
  CHECK(mesh.cables.size() == 12 + 4 * 2 + 3 * 3);
  const Topology torus = parse("generate: {kind: torus, dims: [3, 3, 3], hosts_per_switch: 2}\n");
  CHECK(torus.hcas().size() == 54);
  CHECK(torus.cables.size() == 54 + 3 * 27);
  const Topology df = parse("generate: {kind: dragonfly, a: 4, p: 2, h: 2, g: 5}\n");
  CHECK(df.switches().size() == 20);
  CHECK(df.cables.size() == 40 + 5 * 6 + 2 * 10);
  const Topology hc = parse("generate: {kind: hypercube, dim: 5}\n");
  CHECK(hc.switches().size() == 32);
  CHECK(hc.hcas().size() == 32);
  CHECK(hc.nodes[0].mark.to_string() == "t.yaml:1:11");
}

TEST_CASE("generate: errors point at the generator and name what was expected", "[fabric][generators]") {
  CHECK(topology_error("generate: {kind: fat_tree, k: 4, m: [2]}\n") ==
        "t.yaml:1:11: expected one form of fat_tree: k and n, radix and levels, or m and w, got keys of two forms");
  CHECK(topology_error("generate: {kind: fat_tree}\n") ==
        "t.yaml:1:11: expected one form of fat_tree: k and n, radix and levels, or m and w, got none of these keys");
  CHECK(topology_error("generate: {kind: fat_tree, k: 4}\n") == "t.yaml:1:11: expected key 'n', got a map without it");
  CHECK(topology_error("generate: {kind: fat_tree, radix: 35, levels: 2}\n") ==
        "t.yaml:1:35: expected an even switch radix in 2..254, got '35'");
  CHECK(topology_error("generate: {kind: fat_tree, m: [4, 4], w: [1]}\n") ==
        "t.yaml:1:42: expected a list of 2 integers like m, got 1");
  CHECK(topology_error("generate: {kind: fat_tree, m: [4, 0], w: [1, 1]}\n") ==
        "t.yaml:1:35: expected an integer in 1..254, got '0'");
  CHECK(topology_error("generate: {kind: fat_tree, k: 4, n: 3, leaves: 2}\n") ==
        "t.yaml:1:40: expected one of the keys kind, k, n, radix, levels, m, w, got unknown key 'leaves'");
  CHECK(topology_error("defaults:\n  switch: {ports: 36}\ngenerate: {kind: fat_tree, k: 20, n: 2}\n") ==
        "t.yaml:3:11: expected switches with at least 40 ports, got 36 ports (defaults.switch.ports)");
  CHECK(topology_error("generate: {kind: fat_tree, k: 36, n: 4}\n") ==
        "t.yaml:1:11: expected a fabric with at most 49151 LIDs (HCA ports + switches), got 1679616 HCAs of 1 port "
        "and 186624 switches");
  CHECK(topology_error("generate: {kind: torus, dims: [4, 1]}\n") ==
        "t.yaml:1:35: expected an integer in 2..4096, got '1'");
  CHECK(topology_error("generate: {kind: torus, dims: [4, 4, 4, 4]}\n") ==
        "t.yaml:1:31: expected a list of 1..3 integers in 2..4096, got 4 entries");
  CHECK(topology_error("generate: {kind: mesh, dims: 4}\n") ==
        "t.yaml:1:30: expected a list of 1..3 integers in 2..4096, got '4'");
  CHECK(topology_error("generate: {kind: dragonfly, a: 4, p: 2, h: 2, g: 10}\n") ==
        "t.yaml:1:50: expected an integer in 2..9, got '10'");
  CHECK(topology_error("generate: {kind: dragonfly, a: 4, p: 2}\n") ==
        "t.yaml:1:11: expected key 'h', got a map without it");
  CHECK(topology_error("generate: {kind: hypercube, dim: 17}\n") ==
        "t.yaml:1:34: expected an integer in 1..16, got '17'");
  CHECK(topology_error("generate: {kind: [torus]}\n") ==
        "t.yaml:1:18: expected a generator kind (fat_tree, leaf_spine, rail_fat_tree, mesh, torus, dragonfly, hypercube), got a list");
}

namespace {

// "a/pa-b/pb" for every cable, in cable order.
std::vector<std::string> cable_texts(const Topology& t) {
  std::vector<std::string> out;
  for (const TopoCable& c : t.cables)
    out.push_back(t.nodes[c.node_a].name + "/" + std::to_string(c.port_a) + "-" + t.nodes[c.node_b].name + "/" +
                  std::to_string(c.port_b));
  return out;
}

}  // namespace

TEST_CASE("rail_fat_tree 4 nodes x 2 rails: HCA k of every server on rail k's leaves, uplinks spread over spines",
          "[fabric][generators]") {
  const Topology t = generate_rail_fat_tree(4, 2, 2, 2, TopologyDefaults{});
  std::vector<std::string> names;
  for (const TopoNode& n : t.nodes) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"n1r1", "n1r2", "n2r1", "n2r2", "n3r1", "n3r2", "n4r1", "n4r2", "r1leaf1",
                                          "r1leaf2", "r2leaf1", "r2leaf2", "spine1", "spine2"});
  // Leaf j of rail k: ports 1..2 to servers 2j+1, 2j+2's HCA k; ports 3, 4 to spine1, spine2, each
  // spine's port L+1 to leaf L (one cable per leaf and spine: 2 uplinks / 2 spines).
  CHECK(cable_texts(t) == std::vector<std::string>{
                              "n1r1/1-r1leaf1/1", "n2r1/1-r1leaf1/2", "n3r1/1-r1leaf2/1", "n4r1/1-r1leaf2/2",
                              "n1r2/1-r2leaf1/1", "n2r2/1-r2leaf1/2", "n3r2/1-r2leaf2/1", "n4r2/1-r2leaf2/2",
                              "r1leaf1/3-spine1/1", "r1leaf1/4-spine2/1", "r1leaf2/3-spine1/2", "r1leaf2/4-spine2/2",
                              "r2leaf1/3-spine1/3", "r2leaf1/4-spine2/3", "r2leaf2/3-spine1/4", "r2leaf2/4-spine2/4"});
  for (std::size_t s : t.switches()) CHECK(t.nodes[s].num_ports == 4);
  REQUIRE(t.servers.size() == 4);
  CHECK(t.servers[2].name == "n3");
  CHECK(t.servers[2].hosts == std::vector<std::size_t>{4, 5});
  CHECK(t.server_of()[5] == std::optional<std::size_t>(2));
  CHECK(t.server_of()[8] == std::nullopt);
  validate_topology(t);

  // Two uplinks per leaf to one spine: spine port L*2 + u + 1.
  const Topology one = generate_rail_fat_tree(2, 1, 2, 1, TopologyDefaults{});
  CHECK(cable_texts(one) == std::vector<std::string>{"n1r1/1-r1leaf1/1", "n2r1/1-r1leaf1/2", "r1leaf1/3-spine1/1",
                                                     "r1leaf1/4-spine1/2"});
}

TEST_CASE("rail_fat_tree rejects uneven shapes", "[fabric][generators]") {
  auto message = [](unsigned nodes, unsigned rails, unsigned per_leaf, unsigned spines) {
    try {
      generate_rail_fat_tree(nodes, rails, per_leaf, spines, TopologyDefaults{});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message(5, 2, 2, 2) == "nodes a multiple of nodes_per_leaf (every leaf of a rail full), got 5 nodes and 2 per leaf");
  CHECK(message(4, 2, 4, 3) ==
        "nodes_per_leaf (each leaf's uplinks) a multiple of spines (cabled evenly to every spine), got 4 uplinks and 3 spines");
  CHECK(message(4, 0, 2, 2) == "rails >= 1, got 0");
}

TEST_CASE("rail_32x8.yaml: 256 HCAs in 32 servers, 16 leaves each of one rail, 8 spines", "[fabric][generators]") {
  const Topology t = load_topology(kTopologies + "rail_32x8.yaml");
  CHECK(t.hcas().size() == 256);
  CHECK(t.switches().size() == 24);
  CHECK(t.cables.size() == 512);
  REQUIRE(t.servers.size() == 32);
  for (std::size_t s = 0; s < 32; ++s) {
    REQUIRE(t.servers[s].hosts.size() == 8);
    for (std::size_t k = 0; k < 8; ++k)
      CHECK(t.nodes[t.servers[s].hosts[k]].name == "n" + std::to_string(s + 1) + "r" + std::to_string(k + 1));
  }
  const auto cables = t.port_cables();
  std::size_t leaves = 0;
  for (std::size_t sw : t.switches()) {
    const TopoNode& n = t.nodes[sw];
    CHECK(n.num_ports == 32);
    if (n.name.rfind("spine", 0) == 0) {
      // 16 leaves x 2 cables each.
      std::map<std::string, int> per_leaf;
      for (unsigned p = 1; p <= 32; ++p) {
        REQUIRE(cables[sw][p]);
        ++per_leaf[t.nodes[t.cables[*cables[sw][p]].far_end(sw).node].name];
      }
      CHECK(per_leaf.size() == 16);
      for (const auto& [leaf, count] : per_leaf) CHECK(count == 2);
      continue;
    }
    ++leaves;
    const std::string rail = n.name.substr(0, n.name.find("leaf"));  // "r3"
    std::set<std::string> servers;
    std::map<std::string, int> per_spine;
    for (unsigned p = 1; p <= 32; ++p) {
      REQUIRE(cables[sw][p]);
      const TopoNode& far = t.nodes[t.cables[*cables[sw][p]].far_end(sw).node];
      if (p <= 16) {
        CHECK(far.type == NodeType::kHca);
        CHECK(far.name.substr(far.name.find('r')) == rail);  // every host of this leaf on its rail
        servers.insert(far.name.substr(0, far.name.find('r')));
      } else {
        ++per_spine[far.name];
      }
    }
    CHECK(servers.size() == 16);
    CHECK(per_spine.size() == 8);
    for (const auto& [spine, count] : per_spine) CHECK(count == 2);
  }
  CHECK(leaves == 16);
}
