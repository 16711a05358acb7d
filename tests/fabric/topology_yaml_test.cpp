#include <catch2/catch.hpp>

#include <string>

#include "sim/core/error.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/yaml_input.h"

using namespace ibfsim;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

// The message of the InputError parsing `text` as t.yaml throws, or "" if it parses.
std::string topology_error(const std::string& text) {
  try {
    parse_topology(YAML::Load(text), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("quickstart.yaml: 8 HCAs on one 36-port switch, 4x EDR, 2 m", "[fabric][topology]") {
  const Topology t = load_topology(kTopologies + "quickstart.yaml");
  REQUIRE(t.nodes.size() == 9);
  REQUIRE(t.cables.size() == 8);
  CHECK(t.hcas().size() == 8);
  REQUIRE(t.switches() == std::vector<std::size_t>{0});
  const TopoNode& sw = t.nodes[0];
  CHECK(sw.name == "sw1");
  CHECK(sw.type == NodeType::kSwitch);
  CHECK(sw.num_ports == 36);
  CHECK(sw.switch_latency == 100 * kNs);
  CHECK(sw.rx_buffer_credits == 128);
  CHECK(sw.guid == 0x0002c90300000001ull);
  for (unsigned i = 1; i <= 8; ++i) {
    const TopoNode& h = t.nodes[i];
    CHECK(h.name == "h" + std::to_string(i));
    CHECK(h.type == NodeType::kHca);
    CHECK(h.num_ports == 1);
    CHECK(h.rx_buffer_credits == 256);
    CHECK(h.guid == default_guid(NodeType::kHca, i));
    CHECK(h.guid == 0x0002c90301000000ull + i + 1);
    const TopoCable& c = t.cables.at(*t.cable_at(i, 1));
    CHECK(c.far_end(i).node == 0);
    CHECK(c.far_end(i).port == i);
    CHECK(c.rate.speed == LinkSpeed::kEdr);
    CHECK(c.rate.lanes == 4);
    CHECK(c.length_mm == 2000);
  }
  CHECK(t.propagation_per_m == 5 * kNs);
  CHECK(t.cable_delay(0) == 10 * kNs);
  CHECK(t.find_node("h3") == 3u);
  CHECK_FALSE(t.find_node("h9"));
  CHECK(t.nodes[2].mark.to_string() == kTopologies + "quickstart.yaml:11:5");
}

TEST_CASE("two_switches.yaml: two switches joined by two 10 m cables", "[fabric][topology]") {
  const Topology t = load_topology(kTopologies + "two_switches.yaml");
  REQUIRE(t.nodes.size() == 10);
  REQUIRE(t.cables.size() == 10);
  CHECK(t.switches() == std::vector<std::size_t>{0, 1});
  CHECK(t.hcas().size() == 8);
  for (unsigned port : {35u, 36u}) {
    const TopoCable& c = t.cables.at(*t.cable_at(0, port));
    CHECK(c.far_end(0).node == 1);
    CHECK(c.far_end(0).port == port);
    CHECK(c.length_mm == 10'000);
    CHECK(c.rate.name() == "4x EDR");
  }
  CHECK(t.cables.at(*t.cable_at(*t.find_node("h5"), 1)).length_mm == 2000);
}

TEST_CASE("leaf_spine_128.yaml: generated 16 leaves, 8 spines, 128 hosts", "[fabric][topology]") {
  const Topology t = load_topology(kTopologies + "leaf_spine_128.yaml");
  REQUIRE(t.nodes.size() == 128 + 16 + 8);
  CHECK(t.cables.size() == 128 + 16 * 8);
  CHECK(t.hcas().size() == 128);
  CHECK(t.switches().size() == 24);
  CHECK(t.nodes[0].name == "h1");
  CHECK(t.nodes[127].name == "h128");
  CHECK(t.nodes[128].name == "leaf1");
  CHECK(t.nodes[144].name == "spine1");
  CHECK(t.nodes[151].name == "spine8");
  CHECK(t.nodes[128].num_ports == 16);  // 8 hosts + 8 spines
  CHECK(t.nodes[144].num_ports == 16);  // 16 leaves
  CHECK(t.nodes[128].switch_latency == 100 * kNs);
  // h9 is the first host of leaf2; leaf2 port 9 goes to spine1, whose port 2 goes back to leaf2.
  CHECK(t.cables.at(*t.cable_at(8, 1)).far_end(8).node == 129);
  CHECK(t.cables.at(*t.cable_at(8, 1)).far_end(8).port == 1);
  CHECK(t.cables.at(*t.cable_at(129, 9)).far_end(129).node == 144);
  CHECK(t.cables.at(*t.cable_at(129, 9)).far_end(129).port == 2);
  CHECK(t.cables[0].rate.speed == LinkSpeed::kEdr);
  CHECK(t.nodes[5].mark.line == 8);  // the generate line
}

TEST_CASE("defaults and per-node, per-cable overrides apply", "[fabric][topology]") {
  const Topology t = parse_topology(YAML::Load(R"(
defaults:
  link: {speed: HDR, width: 2x, length: 30cm}
  switch: {ports: 40, latency: 90ns, buffer_credits: 64}
  hca: {ports: 2, buffer_credits: 512}
  propagation: 4.5ns/m
nodes:
  - {name: s, type: switch, ports: 8, latency: 0.25us, buffer_credits: 100, guid: 0x1234}
  - {name: t, type: switch}
  - {name: a, type: hca, ports: 1, buffer_credits: 16}
  - {name: b, type: hca}
cables:
  - {from: a/1, to: s/1}
  - {from: b/2, to: s/2, speed: qdr, width: 12x, length: 0.5m}
  - {from: s/8, to: t/40, length: 1250mm}
)"), "t.yaml");
  CHECK(t.nodes[0].num_ports == 8);
  CHECK(t.nodes[0].switch_latency == 250 * kNs);
  CHECK(t.nodes[0].rx_buffer_credits == 100);
  CHECK(t.nodes[0].guid == 0x1234);
  CHECK(t.nodes[1].num_ports == 40);
  CHECK(t.nodes[1].switch_latency == 90 * kNs);
  CHECK(t.nodes[1].rx_buffer_credits == 64);
  CHECK(t.nodes[1].guid == default_guid(NodeType::kSwitch, 1));
  CHECK(t.nodes[2].num_ports == 1);
  CHECK(t.nodes[2].rx_buffer_credits == 16);
  CHECK(t.nodes[3].num_ports == 2);
  CHECK(t.nodes[3].rx_buffer_credits == 512);
  CHECK(t.cables[0].rate.name() == "2x HDR");
  CHECK(t.cables[0].length_mm == 300);
  CHECK(t.cables[1].rate.name() == "12x QDR");
  CHECK(t.cables[1].length_mm == 500);
  CHECK(t.cables[2].length_mm == 1250);
  CHECK(t.propagation_per_m == 4'500 * kPs);
  CHECK(t.cable_delay(2) == 5'625 * kPs);
  CHECK(t.source_file == "t.yaml");
}

TEST_CASE("overrides given with --set apply to a loaded topology", "[fabric][topology]") {
  YAML::Node root = load_yaml_file(kTopologies + "leaf_spine_128.yaml");
  apply_override(root, "defaults.link.speed", "NDR");
  apply_override(root, "generate.spines", "4");
  apply_override(root, "defaults.switch.ports", "36");
  const Topology t = parse_topology(root, "leaf_spine_128.yaml");
  CHECK(t.switches().size() == 20);
  CHECK(t.nodes[128].num_ports == 36);
  CHECK(t.cables[0].rate.speed == LinkSpeed::kNdr);
}

TEST_CASE("topology error: unknown key", "[fabric][topology]") {
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch, prots: 36}\n") ==
        "t.yaml:2:31: expected one of the keys name, type, guid, kind, ports, latency, buffer_credits, vls, "
        "vl15_buffer_credits, speeds, widths, port_overrides, got unknown key 'prots'");
  CHECK(topology_error("nodes:\n  - {name: h1, type: hca, latency: 5ns}\n") ==
        "t.yaml:2:27: expected one of the keys name, type, guid, ports, buffer_credits, vls, vl15_buffer_credits, "
        "speeds, widths, port_overrides, got unknown key 'latency'");
  CHECK(topology_error("defaults:\n  link: {sped: EDR}\nnodes: []\n") ==
        "t.yaml:2:10: expected one of the keys speed, width, length, fec, got unknown key 'sped'");
  CHECK(topology_error("node:\n  - {name: h1, type: hca}\n") ==
        "t.yaml:1:1: expected one of the keys defaults, nodes, cables, generate, servers, got unknown key 'node'");
}

// A switch may say which fabric it belongs to (kind: infiniband or ethernet; the scenario checks it
// against `fabric:`, tests/scenarios/roce_scenario_test.cpp); HCAs have no kind.
TEST_CASE("a switch's kind: infiniband, ethernet or unstated, and where it was given", "[fabric][topology]") {
  const Topology t = parse_topology(YAML::Load("nodes:\n  - {name: sw1, type: switch, kind: ethernet}\n"
                                               "  - {name: sw2, type: switch, kind: infiniband}\n"
                                               "  - {name: sw3, type: switch}\n"
                                               "  - {name: h1, type: hca}\n"
                                               "  - {name: h2, type: hca}\n"
                                               "  - {name: h3, type: hca}\n"
                                               "cables:\n  - {from: h1/1, to: sw1/1}\n  - {from: h2/1, to: sw2/1}\n"
                                               "  - {from: h3/1, to: sw3/1}\n"),
                                    "t.yaml");
  CHECK(t.nodes[0].kind == SwitchKind::kEthernet);
  CHECK(t.nodes[0].kind_mark.to_string() == "t.yaml:2:37");
  CHECK(t.nodes[1].kind == SwitchKind::kInfiniband);
  CHECK(t.nodes[2].kind == SwitchKind::kUnstated);
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch, kind: roce}\n") ==
        "t.yaml:2:37: expected a switch kind (infiniband or ethernet), got 'roce'");
  CHECK(topology_error("nodes:\n  - {name: h1, type: hca, kind: ethernet}\n") ==
        "t.yaml:2:27: expected one of the keys name, type, guid, ports, buffer_credits, vls, vl15_buffer_credits, "
        "speeds, widths, port_overrides, got unknown key 'kind'");
}

TEST_CASE("topology error: wrong type", "[fabric][topology]") {
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch, ports: many}\n") ==
        "t.yaml:2:38: expected an integer in 1..254, got 'many'");
  CHECK(topology_error("nodes: {name: sw1}\n") == "t.yaml:1:8: expected a list, got a map");
  CHECK(topology_error("nodes:\n  - sw1\n") == "t.yaml:2:5: expected a map, got 'sw1'");
  CHECK(topology_error("nodes:\n  - {name: sw1, type: bridge}\n") ==
        "t.yaml:2:23: expected a node type (switch, hca or router), got 'bridge'");
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch, latency: 100}\n") ==
        "t.yaml:2:40: expected a duration with a unit (fs, ps, ns, us, ms, s), e.g. 100ns, got '100'");
  CHECK(topology_error("nodes:\n  - {type: hca}\n") == "t.yaml:2:5: expected key 'name', got a map without it");
  CHECK(topology_error("") == "t.yaml: expected a topology (a map with nodes and cables, or generate), got an empty file");
  CHECK(topology_error("defaults: {}\n") == "t.yaml:1:1: expected key 'nodes' (or 'generate'), got a map with neither");
}

TEST_CASE("topology error: bad speed, width or length", "[fabric][topology]") {
  const std::string nodes = "nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\ncables:\n";
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1, speed: GDR}\n") ==
        "t.yaml:5:36: expected a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) or an Ethernet speed "
        "(25GbE, 50GbE, 100GbE, 200GbE, 400GbE), got 'GDR'");
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1, width: 3x}\n") ==
        "t.yaml:5:36: expected a link width (1x, 2x, 4x, 8x, 12x), got '3x'");
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1, length: 2}\n") ==
        "t.yaml:5:37: expected a cable length with a unit (m, cm, mm), e.g. 2m or 30cm, got '2'");
  CHECK(topology_error("defaults:\n  link: {speed: 100G}\nnodes: []\n") ==
        "t.yaml:2:17: expected a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR), got '100G'");
  CHECK(topology_error("defaults:\n  propagation: 5ns\nnodes: []\n") ==
        "t.yaml:2:16: expected a delay per metre, e.g. 5ns/m, got '5ns'");
}

TEST_CASE("cable FEC: on or off where the speed makes it optional, always on at HDR and above",
          "[fabric][topology][fec]") {
  const std::string nodes =
      "nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\n  - {name: h2, type: hca}\ncables:\n";
  const Topology t = parse_topology(YAML::Load("defaults: {link: {fec: on}}\n" + nodes +
                                               "  - {from: h1/1, to: sw1/1}\n  - {from: h2/1, to: sw1/2, fec: off}\n"),
                                    "t.yaml");
  CHECK(t.cables[0].fec == true);
  CHECK(t.cables[1].fec == false);
  CHECK(parse_topology(YAML::Load(nodes + "  - {from: h1/1, to: sw1/1, speed: HDR}\n"), "t.yaml").cables[0].fec ==
        std::nullopt);
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1, speed: HDR, fec: off}\n") ==
        "t.yaml:6:46: expected fec: on at HDR, which requires RS(544,514) FEC, got 'off'");
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1, fec: rs528}\n") ==
        "t.yaml:6:34: expected fec: on or off, got 'rs528'");
  CHECK(topology_error("defaults: {link: {speed: NDR, fec: off}}\n" + nodes) ==
        "t.yaml:1:36: expected fec: on at NDR, which requires RS(544,514) FEC, got 'off'");
  CHECK(topology_error("defaults: {link: {fec: off}}\n" + nodes + "  - {from: h1/1, to: sw1/1, speed: XDR}\n") ==
        "t.yaml:7:36: expected a speed where FEC is optional, or fec: on on the cable (defaults.link.fec is off), got "
        "'XDR', which requires RS(544,514) FEC");
}

TEST_CASE("topology error: dangling port reference", "[fabric][topology]") {
  const std::string nodes = "nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\ncables:\n";
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/1}\n  - {from: h9/1, to: sw1/2}\n") ==
        "t.yaml:6:12: expected NODE/PORT naming a declared node, got 'h9/1' (no node h9)");
  CHECK(topology_error(nodes + "  - {from: h1, to: sw1/1}\n") == "t.yaml:5:12: expected NODE/PORT, e.g. h1/1, got 'h1'");
  CHECK(topology_error(nodes + "  - {from: h1/2, to: sw1/1}\n") ==
        "t.yaml:5:12: expected a port of h1 in 1..1, got 'h1/2'");
  CHECK(topology_error(nodes + "  - {from: h1/1, to: sw1/0}\n") ==
        "t.yaml:5:22: expected a port of sw1 in 1..36, got 'sw1/0'");
  CHECK(topology_error(nodes + "  - {from: h1/1}\n") == "t.yaml:5:5: expected key 'to', got a map without it");
}

TEST_CASE("topology error: port used twice", "[fabric][topology]") {
  CHECK(topology_error(R"(nodes:
  - {name: sw1, type: switch}
  - {name: h1, type: hca}
  - {name: h2, type: hca}
cables:
  - {from: h1/1, to: sw1/1}
  - {from: h2/1, to: sw1/1}
)") == "t.yaml:7:5: expected a port that is not cabled yet, got sw1/1, already cabled at line 6");
}

TEST_CASE("topology error: duplicate GUID or name", "[fabric][topology]") {
  CHECK(topology_error(R"(nodes:
  - {name: sw1, type: switch}
  - {name: h1, type: hca, guid: 0x0002c90300000005}
  - {name: h2, type: hca, guid: 0x0002c90300000005}
cables:
  - {from: h1/1, to: sw1/1}
)") == "t.yaml:4:5: expected a unique GUID, got 0x0002c90300000005 again (already the GUID of h1 at line 3)");
  CHECK(topology_error(R"(nodes:
  - {name: sw1, type: switch}
  - {name: h1, type: hca}
  - {name: h1, type: hca}
)") == "t.yaml:4:5: expected a unique node name, got 'h1' again (first declared at line 3)");
}

TEST_CASE("topology error: self-loop, unconnected switch, bad name", "[fabric][topology]") {
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch}\ncables:\n  - {from: sw1/1, to: sw1/2}\n") ==
        "t.yaml:4:5: expected a cable between two different nodes, got sw1/1 to sw1/2");
  CHECK(topology_error("nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\n") ==
        "t.yaml:2:5: expected at least one cable on switch sw1, got none");
  CHECK(topology_error("nodes:\n  - {name: a/b, type: hca}\n") ==
        "t.yaml:2:5: expected a node name without '/' or spaces, got 'a/b'");
  // An HCA with no cable is fine.
  CHECK(topology_error("nodes:\n  - {name: h1, type: hca}\n").empty());
}

TEST_CASE("topology error: generator settings", "[fabric][topology]") {
  CHECK(topology_error("generate: {kind: ring, leaves: 2}\n") ==
        "t.yaml:1:18: expected a generator kind (fat_tree, leaf_spine, rail_fat_tree, mesh, torus, dragonfly, hypercube), got 'ring'");
  CHECK(topology_error("generate: {kind: leaf_spine, leaves: 2, spines: 2}\n") ==
        "t.yaml:1:11: expected key 'hosts_per_leaf', got a map without it");
  CHECK(topology_error("generate: {kind: leaf_spine, leaves: 0, spines: 2, hosts_per_leaf: 2}\n") ==
        "t.yaml:1:38: expected an integer in 1..254, got '0'");
  CHECK(topology_error("defaults:\n  switch: {ports: 16}\n"
                       "generate: {kind: leaf_spine, leaves: 4, spines: 10, hosts_per_leaf: 8}\n") ==
        "t.yaml:3:11: expected leaf switches with at least 18 ports, got 16 ports (defaults.switch.ports)");
  CHECK(topology_error("generate: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\nnodes: []\n") ==
        "t.yaml:2:8: expected either generate or nodes and cables, got nodes next to generate");
}

TEST_CASE("load_topology reports a missing file", "[fabric][topology]") {
  try {
    load_topology("no/such/topology.yaml");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "no/such/topology.yaml: expected a topology file, got no such file");
  }
}

TEST_CASE("servers group HCAs, and unknown, repeated or non-HCA members are located errors", "[fabric][topology]") {
  const std::string nodes = "nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\n"
                            "  - {name: h2, type: hca}\n  - {name: h3, type: hca}\n"
                            "cables:\n  - {from: h1/1, to: sw1/1}\n";
  const Topology t = parse_topology(YAML::Load(nodes + "servers: {a: [h2, h1], b: [h3]}\n"), "t.yaml");
  REQUIRE(t.servers.size() == 2);
  CHECK(t.servers[0].name == "a");
  CHECK(t.servers[0].hosts == std::vector<std::size_t>{2, 1});
  CHECK(t.servers[1].hosts == std::vector<std::size_t>{3});
  CHECK(topology_error(nodes + "servers: {a: [h1, h9]}\n") ==
        "t.yaml:8:19: expected an HCA of the topology, got 'h9' (no node h9)");
  CHECK(topology_error(nodes + "servers: {a: [h1, sw1]}\n") ==
        "t.yaml:8:19: expected an HCA of the topology, got 'sw1', a switch");
  CHECK(topology_error(nodes + "servers: {a: [h1, h2], b: [h3, h1]}\n") ==
        "t.yaml:8:32: expected each HCA in at most one server, got 'h1' again (already in a)");
  CHECK(topology_error(nodes + "servers: {a: []}\n") ==
        "t.yaml:8:14: expected at least one HCA in server a, got an empty list");
  CHECK(topology_error("generate: {kind: rail_fat_tree, nodes: 2, rails: 2, nodes_per_leaf: 2, spines: 1}\n"
                       "servers: {a: [n1r1]}\n") ==
        "t.yaml:2:10: expected no servers next to a generator that groups its hosts itself, got servers next to "
        "rail_fat_tree");
  CHECK(topology_error("generate: {kind: rail_fat_tree, nodes: 3, rails: 2, nodes_per_leaf: 2, spines: 1}\n") ==
        "t.yaml:1:11: expected nodes a multiple of nodes_per_leaf (every leaf of a rail full), got 3 nodes and 2 per "
        "leaf");
}
