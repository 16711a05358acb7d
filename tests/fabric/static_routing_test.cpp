#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "sim/fabric/static_routing.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml.h"

using namespace ibfsim;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

// Follows the LFTs from the switch that `src` is cabled to until the packet reaches `dst`'s
// port; returns the number of switches crossed, or -1 if the route breaks or loops.
int hops(const Topology& t, const StaticRouting& r, std::size_t src_hca, Lid dlid) {
  const auto cables = t.port_cables();
  PortRef at = t.cables[*cables[src_hca][1]].far_end(src_hca);
  for (int n = 1; n <= 64; ++n) {
    if (t.nodes[at.node].type != NodeType::kSwitch) return -1;
    const std::uint8_t out = r.lft[at.node][dlid];
    if (out == kNoRoute || out == 0 || !cables[at.node][out]) return -1;
    const PortRef next = t.cables[*cables[at.node][out]].far_end(at.node);
    if (t.nodes[next.node].type == NodeType::kHca) return r.port_lid[next.node][next.port] == dlid ? n : -1;
    at = next;
  }
  return -1;
}

}  // namespace

TEST_CASE("static routing on quickstart: LIDs 1..8 for h1..h8, 9 for sw1", "[fabric][routing]") {
  const Topology t = load_topology(kTopologies + "quickstart.yaml");
  const StaticRouting r = compute_static_routing(t);
  CHECK(r.lft_top == 9);
  REQUIRE(r.port_lid.size() == 9);
  CHECK(r.port_lid[0].size() == 37);
  CHECK(r.port_lid[0][0] == 9);
  CHECK(r.lid_owner[9].node == 0);
  CHECK(r.lid_owner[9].port == 0);
  REQUIRE(r.lft[0].size() == 10);
  CHECK(r.lft[0][0] == kNoRoute);
  CHECK(r.lft[0][9] == 0);
  for (unsigned i = 1; i <= 8; ++i) {
    CHECK(r.port_lid[i] == std::vector<Lid>{0, static_cast<Lid>(i)});
    CHECK(r.lft[i].empty());
    CHECK(r.lft[0][i] == *t.cable_at(i, 1) + 1);  // h_i is cabled to sw1 port i
    CHECK(r.lft[0][i] == i);
  }
}

TEST_CASE("static routing on two_switches spreads remote LIDs over both links", "[fabric][routing]") {
  const Topology t = load_topology(kTopologies + "two_switches.yaml");
  const StaticRouting r = compute_static_routing(t);
  CHECK(r.lft_top == 10);
  CHECK(r.port_lid[0][0] == 9);
  CHECK(r.port_lid[1][0] == 10);
  const auto& sw1 = r.lft[0];
  const auto& sw2 = r.lft[1];
  for (Lid lid = 1; lid <= 4; ++lid) {
    CHECK(sw1[lid] == lid);   // local hosts on ports 1..4
    CHECK(sw2[lid + 4] == lid);
  }
  CHECK(std::vector<std::uint8_t>(sw1.begin() + 5, sw1.begin() + 9) == std::vector<std::uint8_t>{35, 36, 35, 36});
  CHECK(std::vector<std::uint8_t>(sw2.begin() + 1, sw2.begin() + 5) == std::vector<std::uint8_t>{35, 36, 35, 36});
  CHECK(sw1[9] == 0);
  CHECK(sw2[10] == 0);
  CHECK(sw1[10] == 35);  // after 2/2, the tie goes to the lower port
  CHECK(sw2[9] == 35);
}

TEST_CASE("static routing on leaf_spine_128 reaches every host with balanced up-ports", "[fabric][routing]") {
  const Topology t = load_topology(kTopologies + "leaf_spine_128.yaml");
  const StaticRouting r = compute_static_routing(t);
  REQUIRE(r.lft_top == 128 + 24);
  const std::size_t first_leaf = 128, first_spine = 144;
  for (std::size_t l = 0; l < 16; ++l) {
    const auto& lft = r.lft[first_leaf + l];
    CHECK(r.port_lid[first_leaf + l][0] == 129 + l);
    std::map<unsigned, unsigned> up_load;
    for (Lid lid = 1; lid <= 128; ++lid) {
      const std::size_t host_leaf = (lid - 1) / 8;
      if (host_leaf == l) {
        CHECK(lft[lid] == (lid - 1) % 8 + 1);  // local host port
      } else {
        REQUIRE(lft[lid] >= 9);
        REQUIRE(lft[lid] <= 16);
        ++up_load[lft[lid]];
      }
    }
    REQUIRE(up_load.size() == 8);
    for (const auto& [port, load] : up_load) CHECK(load == 15);
  }
  for (std::size_t s = 0; s < 8; ++s) {
    const auto& lft = r.lft[first_spine + s];
    CHECK(lft[145 + s] == 0);
    for (Lid lid = 1; lid <= 128; ++lid) CHECK(lft[lid] == (lid - 1) / 8 + 1);  // spine port i -> leaf i
    for (Lid lid = 129; lid <= 144; ++lid) CHECK(lft[lid] == lid - 128);        // leaf LIDs likewise
  }
  // End to end: every host reaches every other in 1 (same leaf) or 3 switch hops.
  for (std::size_t src = 0; src < 128; src += 17) {
    for (Lid dst = 1; dst <= 128; ++dst) {
      if (dst == src + 1) continue;
      CHECK(hops(t, r, src, dst) == (src / 8 == (dst - 1u) / 8 ? 1 : 3));
    }
  }
}

TEST_CASE("static routing gives no route to unreachable LIDs", "[fabric][routing]") {
  TopologyDefaults d;
  Topology t = generate_leaf_spine(1, 1, 2, d);  // h1, h2, leaf1, spine1
  TopoNode lone;
  lone.name = "h3";
  lone.num_ports = 2;
  lone.guid = 99;
  lone.rx_buffer_credits = 1;
  t.nodes.push_back(lone);
  const StaticRouting r = compute_static_routing(t);
  // h1, h2 -> 1, 2; h3 ports 1, 2 -> 3, 4; leaf1 -> 5; spine1 -> 6.
  CHECK(r.port_lid[4] == std::vector<Lid>{0, 3, 4});
  CHECK(r.port_lid[2][0] == 5);
  CHECK(r.port_lid[3][0] == 6);
  CHECK(r.lft[2] == std::vector<std::uint8_t>{kNoRoute, 1, 2, kNoRoute, kNoRoute, 0, 3});
  CHECK(r.lft[3] == std::vector<std::uint8_t>{kNoRoute, 1, 1, kNoRoute, kNoRoute, 1, 0});
}

TEST_CASE("tree_switch_levels: layered trees by their levels, other fabrics 0", "[fabric][routing]") {
  const TopologyDefaults d;
  CHECK(tree_switch_levels(generate_leaf_spine(4, 2, 2, d)) == 2);
  CHECK(tree_switch_levels(generate_kary_ntree(2, 3, d)) == 3);  // 3 levels: static routes warn there
  CHECK(tree_switch_levels(generate_kary_ntree(2, 4, d)) == 4);
  CHECK(tree_switch_levels(generate_mesh({2, 2}, 1, true, d)) == 0);  // switch cables within level 1
  CHECK(tree_switch_levels(generate_hypercube(3, 1, d)) == 0);
  // A cable across two levels (a leaf straight to a top switch) is no layered tree.
  Topology skew = generate_kary_ntree(2, 3, d);
  const std::vector<std::size_t> sw = skew.switches();
  TopoCable c;
  c.node_a = sw.front();
  c.node_b = sw.back();
  skew.nodes[c.node_a].num_ports += 1;
  skew.nodes[c.node_b].num_ports += 1;
  c.port_a = skew.nodes[c.node_a].num_ports;
  c.port_b = skew.nodes[c.node_b].num_ports;
  c.rate = skew.cables.front().rate;
  skew.cables.push_back(c);
  CHECK(tree_switch_levels(skew) == 0);
}
