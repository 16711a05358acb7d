// Routers in topologies (topology.h, topology_subnets.h): the subnets they split a fabric into, in
// order, with their GID prefixes; the router's defaults and GUIDs; the checks on router cables.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_subnets.h"
#include "sim/fabric/topology_yaml.h"

using namespace ibfsim;

namespace {

std::string topology_error(const std::string& text) {
  try {
    parse_topology(YAML::Load(text), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("routers split a fabric into subnets numbered by their first node, each with its GID prefix",
          "[fabric][router]") {
  const Topology t = load_topology_file(std::string(IBFSIM_SOURCE_DIR) + "/topologies/two_subnets.yaml");
  const std::size_t r1 = *t.find_node("r1");
  REQUIRE(t.routers() == std::vector<std::size_t>{r1});
  CHECK(t.nodes[r1].num_ports == 2);                     // a router's default
  CHECK(t.nodes[r1].switch_latency == 100 * kNs);        // the switch defaults
  CHECK(t.nodes[r1].guid == 0x0002c90302000400ull);      // 0x0002c90302000000 + (3 + 1) x 0x100
  CHECK(port_guid_of(t.nodes[r1], 2) == 0x0002c90302000402ull);
  const TopologySubnets s = topology_subnets(t);
  REQUIRE(s.count() == 2);
  CHECK(s.prefix == std::vector<std::uint64_t>{0xfec0000000000000ull, 0xfec0000000000001ull});
  CHECK(s.of(*t.find_node("h1")) == 0);
  CHECK(s.of(*t.find_node("sw1"), 0) == 0);
  CHECK(s.of(r1, 1) == 0);
  CHECK(s.of(r1, 2) == 1);
  CHECK(s.of(*t.find_node("h4")) == 1);
  CHECK(s.nodes[0] == std::vector<std::size_t>{0, 1, 2, 3});  // h1, h2, sw1, r1
  CHECK(s.nodes[1] == std::vector<std::size_t>{3, 4, 5, 6});  // r1, sw2, h3, h4
  // The router joins them: nothing is cut off.
  CHECK(unreachable_nodes(t).empty());
}

TEST_CASE("a fabric without routers is one subnet with the link-local prefix", "[fabric][router]") {
  const Topology t = load_topology_file(std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml");
  const TopologySubnets s = topology_subnets(t);
  REQUIRE(s.count() == 1);
  CHECK(s.prefix[0] == kLinkLocalSubnetPrefix);
  CHECK(s.nodes[0].size() == t.nodes.size());
}

TEST_CASE("router topology errors: a cable between two routers, an uncabled router", "[fabric][router]") {
  CHECK(topology_error("nodes:\n  - {name: r1, type: router}\n  - {name: r2, type: router}\n"
                       "cables:\n  - {from: r1/1, to: r2/1}\n") ==
        "t.yaml:5:5: expected a router cabled to a switch or an HCA, got r1/1 to router r2/1");
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch, ports: 2}\n  - {name: h1, type: hca}\n"
                       "  - {name: r1, type: router}\ncables:\n  - {from: h1/1, to: sw1/1}\n") ==
        "t.yaml:4:5: expected at least one cable on router r1, got none");
  CHECK(topology_error("nodes:\n  - {name: r1, type: router, ports: 3, vls: 3}\n") ==
        "t.yaml:2:45: expected a number of data VLs (1, 2, 4, 8 or 15), got '3'");
}
