#include <catch2/catch.hpp>

#include <string>

#include "sim/core/error.h"
#include "sim/fabric/topology.h"
#include "sim/fabric/topology_generators.h"

using namespace ibfsim;

namespace {

TopoNode node(std::string name, NodeType type, unsigned ports, Guid guid, int line) {
  TopoNode n;
  n.name = std::move(name);
  n.type = type;
  n.num_ports = ports;
  n.guid = guid;
  n.rx_buffer_credits = 8;
  n.mark = SourceMark{"m.yaml", line, 3};
  return n;
}

TopoCable cable(std::size_t a, unsigned pa, std::size_t b, unsigned pb, int line) {
  TopoCable c;
  c.node_a = a;
  c.port_a = pa;
  c.node_b = b;
  c.port_b = pb;
  c.mark = SourceMark{"m.yaml", line, 3};
  return c;
}

Topology small() {
  Topology t;
  t.nodes = {node("sw", NodeType::kSwitch, 4, 10, 1), node("a", NodeType::kHca, 1, 11, 2),
             node("b", NodeType::kHca, 2, 12, 3)};
  t.cables = {cable(1, 1, 0, 1, 4), cable(2, 2, 0, 2, 5)};
  return t;
}

std::string validate_error(const Topology& t) {
  try {
    validate_topology(t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("validate_topology accepts a well-formed topology built in code", "[fabric][topology]") {
  const Topology t = small();
  CHECK(validate_error(t).empty());
  const auto table = t.port_cables();
  CHECK(table[0].size() == 5);
  CHECK(table[0][1] == 0u);
  CHECK(table[0][2] == 1u);
  CHECK_FALSE(table[0][3]);
  CHECK_FALSE(table[2][1]);
  CHECK(t.cable_at(2, 2) == 1u);
  CHECK_FALSE(t.cable_at(2, 1));
  CHECK(t.hcas() == std::vector<std::size_t>{1, 2});
  CHECK(t.switches() == std::vector<std::size_t>{0});
}

TEST_CASE("validate_topology rejects port numbers out of range, naming the cable", "[fabric][topology]") {
  Topology t = small();
  t.cables[1].port_b = 5;
  CHECK(validate_error(t) == "m.yaml:5:3: expected a port of sw in 1..4, got sw/5");
  t.cables[1].port_b = 0;  // the management port is never cabled
  CHECK(validate_error(t) == "m.yaml:5:3: expected a port of sw in 1..4, got sw/0");
}

TEST_CASE("validate_topology rejects dangling node indices and bad port counts", "[fabric][topology]") {
  Topology t = small();
  t.cables[0].node_a = 7;
  CHECK(validate_error(t) == "m.yaml:4:3: expected a node index below 3, got 7");
  t = small();
  t.nodes[2].num_ports = 255;
  CHECK(validate_error(t) == "m.yaml:3:3: expected 1..254 ports on b, got 255");
  t = small();
  t.nodes[1].guid = 0;
  CHECK(validate_error(t) == "m.yaml:2:3: expected a nonzero GUID for a, got 0");
}

TEST_CASE("validate_topology without a source position names the topology", "[fabric][topology]") {
  Topology t = small();
  t.nodes[2].guid = 10;
  t.nodes[2].mark = SourceMark{};
  CHECK(validate_error(t) == "topology: expected a unique GUID, got 0x000000000000000a again (already the GUID of sw at line 1)");
}

TEST_CASE("generate_leaf_spine builds the documented wiring", "[fabric][topology]") {
  TopologyDefaults d;
  d.link_rate.speed = LinkSpeed::kHdr;
  d.link_length_mm = 3000;
  const Topology t = generate_leaf_spine(3, 2, 4, d);
  REQUIRE(t.nodes.size() == 12 + 3 + 2);
  REQUIRE(t.cables.size() == 12 + 6);
  CHECK(validate_error(t).empty());
  CHECK(t.nodes[12].name == "leaf1");
  CHECK(t.nodes[12].num_ports == 6);
  CHECK(t.nodes[15].name == "spine1");
  CHECK(t.nodes[15].num_ports == 3);
  CHECK(t.nodes[15].switch_latency == 100 * kNs);
  CHECK(t.nodes[4].rx_buffer_credits == 256);
  CHECK(t.nodes[16].guid == default_guid(NodeType::kSwitch, 16));
  CHECK(t.nodes[16].guid == 0x0002c90300000011ull);  // spine2, node 17: switch range
  CHECK(t.nodes[4].guid == 0x0002c90301000005ull);   // h5, node 5: HCA range
  for (std::size_t leaf = 0; leaf < 3; ++leaf) {
    for (unsigned h = 0; h < 4; ++h) {
      const PortRef host = t.cables.at(*t.cable_at(12 + leaf, h + 1)).far_end(12 + leaf);
      CHECK(host.node == leaf * 4 + h);
      CHECK(host.port == 1);
    }
    for (unsigned s = 0; s < 2; ++s) {
      const PortRef spine = t.cables.at(*t.cable_at(12 + leaf, 4 + s + 1)).far_end(12 + leaf);
      CHECK(spine.node == 15 + s);
      CHECK(spine.port == leaf + 1);
    }
  }
  CHECK(t.cables[0].rate.speed == LinkSpeed::kHdr);
  CHECK(t.cables[17].length_mm == 3000);
}

TEST_CASE("generate_leaf_spine uses the default switch port count when given", "[fabric][topology]") {
  TopologyDefaults d;
  d.switch_ports = 36;
  const Topology t = generate_leaf_spine(2, 2, 2, d);
  CHECK(t.nodes[4].num_ports == 36);
  CHECK(t.nodes[6].num_ports == 36);
  CHECK_THROWS_AS(generate_leaf_spine(2, 40, 2, d), std::invalid_argument);
  CHECK_THROWS_AS(generate_leaf_spine(0, 2, 2, d), std::invalid_argument);
  CHECK_THROWS_AS(generate_leaf_spine(300, 2, 2, TopologyDefaults{}), std::invalid_argument);
}
