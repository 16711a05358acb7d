// A topology as an Ethernet L3 fabric (fabric/ethernet_topology.h): a generated leaf-spine gives
// the same addresses, routes, ECMP groups and seeds as the plan's own leaf-spine, and what an
// Ethernet fabric of one-port hosts cannot be is a located error.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include "sim/core/error.h"
#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml.h"

using namespace ibfsim;

TEST_CASE("Ethernet plan of a generated leaf-spine: the plan's leaf-spine, addresses, routes and ECMP alike",
          "[fabric][ethernet][roce]") {
  const Topology topo = generate_leaf_spine(3, 2, 4, TopologyDefaults{});
  const EthernetFabricPlan got = ethernet_plan_from_topology(topo, 7);
  const EthernetFabricPlan want = ethernet_leaf_spine(3, 2, 4, 7);
  REQUIRE(got.nodes.size() == want.nodes.size());
  REQUIRE(got.cables.size() == want.cables.size());
  const std::vector<std::size_t> hosts = want.hosts();
  REQUIRE(got.hosts() == hosts);
  for (std::size_t n = 0; n < want.nodes.size(); ++n) {
    const EthernetNodePlan& g = got.nodes[n];
    const EthernetNodePlan& w = want.nodes[n];
    INFO("node " << n << " " << w.name);
    CHECK(g.is_switch == w.is_switch);
    CHECK(g.port_macs == w.port_macs);
    CHECK(g.neighbour_macs == w.neighbour_macs);
    if (w.is_switch) {
      CHECK(g.name == w.name);
      CHECK(g.ecmp_seed == w.ecmp_seed);
      // Every host's IP takes the same next hops: 1 (a host of its own), or both spines (2-way ECMP).
      for (const std::size_t h : hosts) {
        const NextHops* a = g.routes.lookup(want.nodes[h].ip);
        const NextHops* b = w.routes.lookup(want.nodes[h].ip);
        REQUIRE(a != nullptr);
        REQUIRE(b != nullptr);
        CHECK(*a == *b);
      }
    } else {
      CHECK(g.ip == w.ip);
      CHECK(g.gateway_mac == w.gateway_mac);
    }
  }
  // leaf1 to a host of leaf2 (10.0.2.1): over the two spine ports, 5 and 6.
  const NextHops* up = got.nodes[0].routes.lookup(IpAddress::v4(10, 0, 2, 1));
  REQUIRE(up != nullptr);
  CHECK(*up == NextHops{5, 6});
}

TEST_CASE("Ethernet plan of a topology: an HCA with two cabled ports, or cabled to an HCA, is a located error",
          "[fabric][ethernet][roce]") {
  const auto plan_of = [](const std::string& text) {
    const Topology t = parse_topology(YAML::Load(text), "t.yaml");
    return ethernet_plan_from_topology(t, 1);
  };
  const std::string two_ports = "nodes:\n  - {name: sw1, type: switch, ports: 4}\n  - {name: h1, type: hca, ports: 2}\n"
                                "  - {name: h2, type: hca}\ncables:\n  - {from: h1/1, to: sw1/1}\n"
                                "  - {from: h1/2, to: sw1/2}\n  - {from: h2/1, to: sw1/3}\n";
  CHECK_THROWS_WITH(plan_of(two_ports),
                    Catch::Contains("t.yaml:3:5: fabric: roce: expected an HCA with one cabled port (a host has one "
                                    "Ethernet port here), got h1 with 2"));
  const std::string back_to_back = "nodes:\n  - {name: h1, type: hca}\n  - {name: h2, type: hca}\ncables:\n"
                                   "  - {from: h1/1, to: h2/1}\n";
  CHECK_THROWS_WITH(plan_of(back_to_back), Catch::Contains("t.yaml:5:5: fabric: roce: expected an HCA cabled to a "
                                                           "switch, got h1 cabled to h2"));
}
