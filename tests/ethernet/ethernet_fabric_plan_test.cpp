// The generators of Ethernet L3 fabrics as plain data: addresses, cables, routes (ECMP groups).
#include <catch2/catch.hpp>

#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/ethernet/ip_prefix.h"

using namespace ibfsim;

namespace {
NextHops hops(const EthernetFabricPlan& p, const std::string& sw, const char* ip) {
  const std::size_t n = p.find(sw);
  REQUIRE(n < p.nodes.size());
  const NextHops* h = p.nodes[n].routes.lookup(*parse_ip_address(ip));
  return h ? *h : NextHops{};
}
}  // namespace

TEST_CASE("an Ethernet leaf-spine plan: addresses, cables, host and subnet routes, ECMP over the spines",
          "[ethernet]") {
  const EthernetFabricPlan p = ethernet_leaf_spine(2, 2, 2, 1);
  REQUIRE(p.nodes.size() == 8);
  CHECK(p.switches().size() == 4);
  CHECK(p.hosts().size() == 4);
  CHECK(p.cables.size() == 8);
  const EthernetNodePlan& h = p.nodes[p.find("h1_2")];
  CHECK(ip_text(h.ip) == "10.0.1.2");
  CHECK(mac_text(h.port_macs[0]) == "02:00:00:00:01:02");
  CHECK(mac_text(h.gateway_mac) == "02:00:01:00:01:02");  // leaf1 port 2
  const EthernetNodePlan& leaf1 = p.nodes[p.find("leaf1")];
  CHECK(leaf1.num_ports() == 4);
  CHECK(mac_text(leaf1.neighbour_macs[1]) == "02:00:00:00:01:02");  // h1_2
  CHECK(mac_text(leaf1.neighbour_macs[2]) == "02:00:01:00:03:01");  // spine1 port 1
  CHECK(mac_text(leaf1.neighbour_macs[3]) == "02:00:01:00:04:01");  // spine2 port 1
  CHECK(hops(p, "leaf1", "10.0.1.1") == NextHops{1});
  CHECK(hops(p, "leaf1", "10.0.1.2") == NextHops{2});
  CHECK(hops(p, "leaf1", "10.0.2.1") == NextHops{3, 4});  // both spines
  CHECK(hops(p, "leaf2", "10.0.1.2") == NextHops{3, 4});
  CHECK(hops(p, "spine1", "10.0.1.1") == NextHops{1});
  CHECK(hops(p, "spine2", "10.0.2.2") == NextHops{2});
  CHECK(hops(p, "spine2", "10.0.3.1").empty());  // no such leaf
  CHECK(p.nodes[0].ecmp_seed != p.nodes[1].ecmp_seed);
  CHECK(ethernet_leaf_spine(2, 2, 2, 1).nodes[0].ecmp_seed == p.nodes[0].ecmp_seed);  // from the seed
  CHECK(ethernet_leaf_spine(2, 2, 2, 2).nodes[0].ecmp_seed != p.nodes[0].ecmp_seed);
}

TEST_CASE("an Ethernet line plan: switches in a chain, each subnet routed along it", "[ethernet]") {
  const EthernetFabricPlan two = ethernet_line(2, 1, 1);
  REQUIRE(two.nodes.size() == 4);
  CHECK(two.cables.size() == 3);
  CHECK(hops(two, "sw1", "10.0.1.1") == NextHops{1});
  CHECK(hops(two, "sw1", "10.0.2.1") == NextHops{2});
  CHECK(hops(two, "sw2", "10.0.1.1") == NextHops{2});
  const EthernetFabricPlan three = ethernet_line(3, 2, 1);
  CHECK(three.nodes[three.find("sw2")].num_ports() == 4);  // 2 hosts, left, right
  CHECK(hops(three, "sw2", "10.0.1.2") == NextHops{3});
  CHECK(hops(three, "sw2", "10.0.3.1") == NextHops{4});
  CHECK(hops(three, "sw1", "10.0.3.2") == NextHops{3});
  CHECK(hops(three, "sw3", "10.0.1.1") == NextHops{3});
  CHECK(mac_text(three.nodes[three.find("sw2")].neighbour_macs[2]) == "02:00:01:00:01:03");  // sw1's port 3
}
