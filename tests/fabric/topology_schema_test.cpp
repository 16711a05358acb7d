// The per-port link settings of a topology (enabled speeds and widths, port_overrides), data VLs and
// the VL15 buffer: parsing, defaults, errors with FILE:LINE:COL, and the warnings and connectivity
// checks of sim/fabric/topology.h.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/fabric/topology.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/yaml_input.h"

using namespace ibfsim;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

std::string topology_error(const std::string& text) {
  try {
    parse_topology(YAML::Load(text), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string validate_error(const Topology& t) {
  try {
    validate_topology(t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string connected_error(const Topology& t) {
  try {
    require_connected(t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

SpeedSet speeds(std::initializer_list<LinkSpeed> list) {
  SpeedSet s = 0;
  for (LinkSpeed x : list) s |= speed_bit(x);
  return s;
}

WidthSet widths(std::initializer_list<unsigned> list) {
  WidthSet w = 0;
  for (unsigned x : list) w |= width_bit(x);
  return w;
}

// One switch and two HCAs, sw1 and h1 with the given extra node keys, and a cable h1/1 - sw1/1
// with the given extra cable keys.
std::string pair_yaml(const std::string& switch_keys, const std::string& hca_keys, const std::string& cable_keys) {
  return "nodes:\n"
         "  - {name: sw1, type: switch" + switch_keys + "}\n"
         "  - {name: h1, type: hca" + hca_keys + "}\n"
         "cables:\n"
         "  - {from: h1/1, to: sw1/1" + cable_keys + "}\n";
}

}  // namespace

TEST_CASE("speed and width sets use the PortInfo encodings", "[fabric][schema]") {
  CHECK(kAllSpeeds == 0x1FF);
  CHECK(kAllWidths == 0x1F);
  CHECK(width_bit(1) == 1);
  CHECK(width_bit(4) == 2);
  CHECK(width_bit(8) == 4);
  CHECK(width_bit(12) == 8);
  CHECK(width_bit(2) == 16);
  CHECK(width_bit(3) == 0);
  // LinkSpeedEnabled: 1 = SDR, 2 = DDR, 4 = QDR; LinkSpeedExtEnabled: 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR.
  const SpeedSet s = speeds({LinkSpeed::kSdr, LinkSpeed::kQdr, LinkSpeed::kFdr10, LinkSpeed::kEdr, LinkSpeed::kNdr});
  CHECK(portinfo_link_speed_enabled(s) == 5);
  CHECK(portinfo_link_speed_ext_enabled(s) == 10);
  CHECK(portinfo_link_speed_ext_enabled(speeds({LinkSpeed::kFdr, LinkSpeed::kHdr})) == 5);
  CHECK(portinfo_vl_code(1) == 1);
  CHECK(portinfo_vl_code(2) == 2);
  CHECK(portinfo_vl_code(4) == 3);
  CHECK(portinfo_vl_code(8) == 4);
  CHECK(portinfo_vl_code(15) == 5);
  CHECK(portinfo_vl_code(3) == 0);
  CHECK(best_speed(s) == LinkSpeed::kNdr);
  CHECK(best_speed(speeds({LinkSpeed::kFdr10, LinkSpeed::kQdr})) == LinkSpeed::kFdr10);
  CHECK_FALSE(best_speed(0));
  CHECK(best_width(widths({1, 2, 4})) == 4u);
  CHECK(best_width(widths({12, 1})) == 12u);
  CHECK_FALSE(best_width(0));
  CHECK(speed_set_names(s) == "SDR, QDR, FDR10, EDR, NDR");
  CHECK(speed_set_names(0) == "none");
  CHECK(width_set_names(widths({12, 2, 4})) == "2x, 4x, 12x");
}

TEST_CASE("a topology without the new keys enables everything, 8 data VLs, 10 VL15 credits", "[fabric][schema]") {
  const Topology t = load_topology(kTopologies + "quickstart.yaml");
  for (const TopoNode& n : t.nodes) {
    CHECK(n.op_vls == 8);
    CHECK(n.vl15_buffer_credits == 10);
    CHECK(n.port_speeds == std::vector<SpeedSet>(n.num_ports + 1, kAllSpeeds));
    CHECK(n.port_widths == std::vector<WidthSet>(n.num_ports + 1, kAllWidths));
    for (unsigned p = 0; p <= n.num_ports; ++p) {
      CHECK(n.enabled_speeds(p) == kAllSpeeds);
      CHECK(n.enabled_widths(p) == kAllWidths);
    }
  }
  // A node built in code with empty sets enables everything too.
  TopoNode n;
  n.num_ports = 3;
  CHECK(n.enabled_speeds(2) == kAllSpeeds);
  CHECK(n.enabled_widths(3) == kAllWidths);
  CHECK(n.op_vls == kDefaultDataVls);
  CHECK(n.vl15_buffer_credits == kDefaultVl15Credits);
}

TEST_CASE("speeds, widths, vls, vl15_buffer_credits and port_overrides parse", "[fabric][schema]") {
  const Topology t = parse_topology(YAML::Load(R"(
defaults:
  link: {speed: EDR, width: 4x}
  switch: {vls: 4, vl15_buffer_credits: 16, speeds: [EDR, HDR], widths: [4x]}
  hca: {vls: 2, vl15_buffer_credits: 5, speeds: [edr], widths: [1x, 4]}
nodes:
  - name: sw1
    type: switch
    ports: 8
    port_overrides:
      3: {speeds: [SDR, EDR]}
      5-6: {widths: [4x, 12x], speeds: [EDR, NDR]}
  - {name: sw2, type: switch, vls: 15, speeds: [EDR], widths: [4x, 12x]}
  - {name: h1, type: hca}
  - {name: h2, type: hca, ports: 2, vls: 1, vl15_buffer_credits: 64, speeds: [QDR, EDR], port_overrides: {2: {widths: [12x]}}}
cables:
  - {from: h1/1, to: sw1/1}
  - {from: h2/1, to: sw1/3}
  - {from: sw1/5, to: sw2/1}
  - {from: sw1/6, to: sw2/2, width: 12x}
)"), "t.yaml");
  const TopoNode& sw1 = t.nodes[0];
  CHECK(sw1.op_vls == 4);
  CHECK(sw1.vl15_buffer_credits == 16);
  REQUIRE(sw1.port_speeds.size() == 9);
  REQUIRE(sw1.port_widths.size() == 9);
  const SpeedSet edr_hdr = speeds({LinkSpeed::kEdr, LinkSpeed::kHdr});
  const SpeedSet edr_ndr = speeds({LinkSpeed::kEdr, LinkSpeed::kNdr});
  CHECK(sw1.port_speeds == std::vector<SpeedSet>{edr_hdr, edr_hdr, edr_hdr, speeds({LinkSpeed::kSdr, LinkSpeed::kEdr}),
                                                  edr_hdr, edr_ndr, edr_ndr, edr_hdr, edr_hdr});
  const WidthSet w4 = widths({4}), w4_12 = widths({4, 12});
  CHECK(sw1.port_widths == std::vector<WidthSet>{w4, w4, w4, w4, w4, w4_12, w4_12, w4, w4});
  const TopoNode& sw2 = t.nodes[1];
  CHECK(sw2.op_vls == 15);
  CHECK(sw2.vl15_buffer_credits == 16);
  CHECK(sw2.port_speeds == std::vector<SpeedSet>(37, speed_bit(LinkSpeed::kEdr)));
  CHECK(sw2.port_widths == std::vector<WidthSet>(37, w4_12));
  const TopoNode& h1 = t.nodes[2];
  CHECK(h1.op_vls == 2);
  CHECK(h1.vl15_buffer_credits == 5);
  CHECK(h1.port_speeds == std::vector<SpeedSet>(2, speed_bit(LinkSpeed::kEdr)));
  CHECK(h1.port_widths == std::vector<WidthSet>(2, widths({1, 4})));
  const TopoNode& h2 = t.nodes[3];
  CHECK(h2.op_vls == 1);
  CHECK(h2.vl15_buffer_credits == 64);
  CHECK(h2.port_speeds == std::vector<SpeedSet>(3, speeds({LinkSpeed::kQdr, LinkSpeed::kEdr})));
  CHECK(h2.port_widths == std::vector<WidthSet>{widths({1, 4}), widths({1, 4}), widths({12})});
  CHECK(t.cables[3].rate.name() == "12x EDR");
  CHECK(topology_warnings(t).empty());
}

TEST_CASE("mixed_speeds.yaml: EDR hosts on ports limited by port_overrides", "[fabric][schema]") {
  const Topology t = load_topology(kTopologies + "mixed_speeds.yaml");
  const TopoNode& sw = t.nodes[0];
  const SpeedSet up_to_hdr = speeds({LinkSpeed::kSdr, LinkSpeed::kDdr, LinkSpeed::kQdr, LinkSpeed::kFdr,
                                     LinkSpeed::kEdr, LinkSpeed::kHdr});
  const SpeedSet up_to_edr = up_to_hdr & ~speed_bit(LinkSpeed::kHdr);
  for (unsigned p = 0; p <= 40; ++p) CHECK(sw.enabled_speeds(p) == (p >= 5 && p <= 8 ? up_to_edr : up_to_hdr));
  CHECK(t.nodes[1].enabled_speeds(1) == up_to_hdr);
  CHECK(t.nodes[5].enabled_speeds(1) == up_to_edr);
  CHECK(t.cables[0].rate.name() == "4x HDR");
  CHECK(t.cables[4].rate.name() == "4x EDR");
  CHECK(topology_warnings(t).empty());
}

TEST_CASE("the new keys can be changed with --set", "[fabric][schema]") {
  YAML::Node root = load_yaml_file(kTopologies + "quickstart.yaml");
  apply_override(root, "defaults.switch.vls", "15");
  apply_override(root, "defaults.hca.speeds", "[EDR, HDR]");
  apply_override(root, "nodes.0.port_overrides", "{8: {speeds: [EDR]}}");
  const Topology t = parse_topology(root, "quickstart.yaml");
  CHECK(t.nodes[0].op_vls == 15);
  CHECK(t.nodes[1].op_vls == 8);
  CHECK(t.nodes[1].enabled_speeds(1) == speeds({LinkSpeed::kEdr, LinkSpeed::kHdr}));
  CHECK(t.nodes[0].enabled_speeds(8) == speed_bit(LinkSpeed::kEdr));
  CHECK(t.nodes[0].enabled_speeds(7) == kAllSpeeds);
  apply_override(root, "defaults.switch.vls", "3");
  try {
    parse_topology(root, "quickstart.yaml");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "quickstart.yaml (--set on the command line): expected a number of data VLs (1, 2, 4, 8 or 15), got '3'");
  }
}

TEST_CASE("schema error: a bad speed or width in a set", "[fabric][schema]") {
  CHECK(topology_error("defaults:\n  switch: {speeds: [EDR, GDR]}\nnodes: []\n") ==
        "t.yaml:2:26: expected a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR), got 'GDR'");
  CHECK(topology_error(pair_yaml("", ", speeds: [edr, 25G]", "")) ==
        "t.yaml:3:41: expected a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR), got '25G'");
  CHECK(topology_error(pair_yaml(", port_overrides: {1: {widths: [4x, 3x]}}", "", "")) ==
        "t.yaml:2:65: expected a link width (1x, 2x, 4x, 8x, 12x), got '3x'");
  CHECK(topology_error("defaults:\n  hca: {speeds: EDR}\nnodes: []\n") ==
        "t.yaml:2:17: expected a list of link speeds, e.g. [EDR, HDR], got 'EDR'");
  CHECK(topology_error("defaults:\n  hca: {widths: []}\nnodes: []\n") ==
        "t.yaml:2:17: expected a list of at least one link width, e.g. [4x, 12x], got an empty list");
  CHECK(topology_error("defaults:\n  link: {speed: EDR}\n  hca: {speedz: [EDR]}\nnodes: []\n") ==
        "t.yaml:3:9: expected one of the keys ports, buffer_credits, vls, vl15_buffer_credits, speeds, widths, got "
        "unknown key 'speedz'");
}

TEST_CASE("schema error: vls 3 and too small a VL15 buffer", "[fabric][schema]") {
  CHECK(topology_error("defaults:\n  switch: {vls: 3}\nnodes: []\n") ==
        "t.yaml:2:17: expected a number of data VLs (1, 2, 4, 8 or 15), got '3'");
  CHECK(topology_error(pair_yaml(", vls: 16", "", "")) ==
        "t.yaml:2:36: expected a number of data VLs (1, 2, 4, 8 or 15), got '16'");
  CHECK(topology_error(pair_yaml("", ", vls: '4'", "")) ==
        "t.yaml:3:32: expected a number of data VLs (1, 2, 4, 8 or 15), got the string '4'");
  CHECK(topology_error(pair_yaml("", ", vl15_buffer_credits: 4", "")) ==
        "t.yaml:3:48: expected an integer in 5..65535, got '4'");
}

TEST_CASE("schema error: a cable speed or width not enabled at one end", "[fabric][schema]") {
  CHECK(topology_error(pair_yaml(", speeds: [EDR, HDR]", ", speeds: [EDR]", ", speed: HDR")) ==
        "t.yaml:5:5: expected a cable speed enabled at both ends, got HDR, not enabled at h1/1 (enabled: EDR)");
  CHECK(topology_error(pair_yaml(", port_overrides: {1: {speeds: [QDR, FDR]}}", "", "")) ==
        "t.yaml:5:5: expected a cable speed enabled at both ends, got EDR, not enabled at sw1/1 (enabled: QDR, FDR)");
  CHECK(topology_error(pair_yaml(", widths: [1x, 4x]", "", ", width: 12x")) ==
        "t.yaml:5:5: expected a cable width enabled at both ends, got 12x, not enabled at sw1/1 (enabled: 1x, 4x)");
  // The rate of a generated cable comes from defaults.link.
  CHECK(topology_error("defaults:\n  link: {speed: HDR}\n  hca: {speeds: [EDR]}\n"
                       "generate: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 2}\n") ==
        "t.yaml:4:11: expected a cable speed enabled at both ends, got HDR, not enabled at h1/1 (enabled: EDR)");
}

TEST_CASE("schema error: port_overrides naming bad ports", "[fabric][schema]") {
  CHECK(topology_error(pair_yaml(", ports: 8, port_overrides: {9: {speeds: [EDR]}}", "", "")) ==
        "t.yaml:2:58: expected a port of sw1 or a range of them in 1..8, e.g. 3 or 1-18, got '9'");
  CHECK(topology_error(pair_yaml(", port_overrides: {0: {speeds: [EDR]}}", "", "")) ==
        "t.yaml:2:48: expected a port of sw1 or a range of them in 1..36, e.g. 3 or 1-18, got '0'");
  CHECK(topology_error(pair_yaml(", port_overrides: {6-2: {speeds: [EDR]}}", "", "")) ==
        "t.yaml:2:48: expected a port of sw1 or a range of them in 1..36, e.g. 3 or 1-18, got '6-2'");
  CHECK(topology_error(pair_yaml(", port_overrides: {all: {speeds: [EDR]}}", "", "")) ==
        "t.yaml:2:48: expected a port of sw1 or a range of them in 1..36, e.g. 3 or 1-18, got 'all'");
  CHECK(topology_error("nodes:\n"
                       "  - name: sw1\n"
                       "    type: switch\n"
                       "    port_overrides:\n"
                       "      1-4: {speeds: [EDR]}\n"
                       "      4: {widths: [4x]}\n") ==
        "t.yaml:6:7: expected each port at most once in port_overrides, got port 4 again (already at line 5)");
  CHECK(topology_error(pair_yaml(", port_overrides: {2: {}}", "", "")) ==
        "t.yaml:2:51: expected key 'speeds' or 'widths', got a map with neither");
  CHECK(topology_error(pair_yaml(", port_overrides: {2: {vls: 4}}", "", "")) ==
        "t.yaml:2:52: expected one of the keys speeds, widths, got unknown key 'vls'");
  CHECK(topology_error(pair_yaml(", port_overrides: [1, 2]", "", "")) == "t.yaml:2:47: expected a map, got a list");
  // A quoted key is a port or range too; a duplicate given on the command line has no line to name.
  const Topology t = parse_topology(YAML::Load(pair_yaml(", port_overrides: {'2-3': {speeds: [EDR]}}", "", "")), "t.yaml");
  CHECK(t.nodes[0].enabled_speeds(3) == speed_bit(LinkSpeed::kEdr));
  YAML::Node root = YAML::Load(pair_yaml("", "", ""));
  apply_override(root, "nodes.0.port_overrides", "{1-2: {speeds: [EDR]}, 2: {speeds: [HDR]}}");
  try {
    parse_topology(root, "t.yaml");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "t.yaml (--set on the command line): expected each port at most once in port_overrides, got port 2 again");
  }
}

TEST_CASE("validate_topology checks data VLs, the VL15 buffer and the per-port sets", "[fabric][schema]") {
  Topology t = generate_leaf_spine(1, 1, 2, TopologyDefaults{});  // h1, h2, leaf1, spine1
  CHECK(validate_error(t).empty());
  t.nodes[2].op_vls = 3;
  CHECK(validate_error(t) == "topology: expected 1, 2, 4, 8 or 15 data VLs on leaf1, got 3");
  t.nodes[2].op_vls = 8;
  t.nodes[0].vl15_buffer_credits = 4;
  CHECK(validate_error(t) == "topology: expected at least 5 VL15 buffer credits on h1 (one 290-byte SMP), got 4");
  t.nodes[0].vl15_buffer_credits = 5;
  t.nodes[3].port_speeds.pop_back();
  CHECK(validate_error(t) == "topology: expected 2 speed sets on spine1 (ports 0..1), got 1");
  t.nodes[3].port_speeds.clear();  // empty: everything enabled
  CHECK(validate_error(t).empty());
  t.nodes[3].port_widths[1] = 0;
  CHECK(validate_error(t) == "topology: expected a nonempty width set on spine1/1, got 0x00");
  t.nodes[3].port_widths[1] = 0x20;
  CHECK(validate_error(t) == "topology: expected a nonempty width set on spine1/1, got 0x20");
}

TEST_CASE("warning: a disconnected fabric names the nodes cut off", "[fabric][schema]") {
  const Topology t = parse_topology(YAML::Load(R"(nodes:
  - {name: sw1, type: switch}
  - {name: sw2, type: switch}
  - {name: h1, type: hca}
  - {name: h2, type: hca}
  - {name: h3, type: hca}
  - {name: h4, type: hca}
cables:
  - {from: h1/1, to: sw1/1}
  - {from: h2/1, to: sw1/2}
  - {from: h3/1, to: sw2/1}
)"), "t.yaml");
  CHECK(unreachable_nodes(t) == std::vector<std::size_t>{1, 4, 5});
  CHECK(topology_warnings(t) ==
        std::vector<std::string>{"t.yaml:3:5: the fabric is not connected: 3 of 6 nodes cannot reach the rest: sw2, h3, h4"});
  CHECK(connected_error(t) ==
        "t.yaml:3:5: expected a connected fabric (every node reachable through switches), got 3 nodes cut off from "
        "the rest: sw2, h3, h4");
}

TEST_CASE("connectivity: routes never pass through an HCA, ties go to the first part", "[fabric][schema]") {
  // h2 has a port on each switch, but that does not join them.
  const Topology t = parse_topology(YAML::Load(R"(nodes:
  - {name: h1, type: hca}
  - {name: h2, type: hca, ports: 2}
  - {name: sw1, type: switch}
  - {name: sw2, type: switch}
cables:
  - {from: h2/1, to: sw1/1}
  - {from: h2/2, to: sw2/1}
  - {from: h1/1, to: sw2/2}
)"), "t.yaml");
  // The part of h1 (sw2, h1, h2) has 3 nodes, the part of sw1 2 (sw1, h2).
  CHECK(unreachable_nodes(t) == std::vector<std::size_t>{2});
  // HCAs cabled back to back form a fabric of their own; a lone HCA is connected to itself.
  const Topology pair = parse_topology(YAML::Load("nodes:\n  - {name: a, type: hca}\n  - {name: b, type: hca}\n"
                                                  "cables:\n  - {from: a/1, to: b/1}\n"),
                                       "t.yaml");
  CHECK(unreachable_nodes(pair).empty());
  CHECK(unreachable_nodes(parse_topology(YAML::Load("nodes:\n  - {name: a, type: hca}\n"), "t.yaml")).empty());
  CHECK(unreachable_nodes(Topology{}).empty());
  // Two lone HCAs: the first one's part wins the tie.
  const Topology lone =
      parse_topology(YAML::Load("nodes:\n  - {name: a, type: hca}\n  - {name: b, type: hca}\n"), "t.yaml");
  CHECK(unreachable_nodes(lone) == std::vector<std::size_t>{1});
  // More than 10 nodes cut off: the list ends with "and N more".
  Topology many = generate_leaf_spine(1, 1, 2, TopologyDefaults{});
  for (int i = 0; i < 12; ++i) {
    TopoNode n;
    n.name = "x" + std::to_string(i);
    n.guid = 1000 + i;
    n.rx_buffer_credits = 1;
    many.nodes.push_back(n);
  }
  CHECK(connected_error(many) ==
        "topology: expected a connected fabric (every node reachable through switches), got 12 nodes cut off from the "
        "rest: x0, x1, x2, x3, x4, x5, x6, x7, x8, x9 and 2 more");
}

TEST_CASE("warning: a link that will negotiate down below both ends' best", "[fabric][schema]") {
  const Topology t = parse_topology(YAML::Load(R"(nodes:
  - name: sw1
    type: switch
    speeds: [QDR, FDR]
    widths: [1x, 4x, 12x]
    port_overrides: {3: {speeds: [QDR, EDR, HDR]}}
  - {name: h1, type: hca, speeds: [QDR, EDR], widths: [1x, 8x]}
  - {name: h2, type: hca, speeds: [QDR, EDR]}
  - {name: h3, type: hca, speeds: [QDR, EDR]}
cables:
  - {from: h1/1, to: sw1/1, speed: QDR, width: 1x}
  - {from: h2/1, to: sw1/2, speed: QDR}
  - {from: h3/1, to: sw1/3}
)"), "t.yaml");
  CHECK(topology_warnings(t) ==
        std::vector<std::string>{
            "t.yaml:11:5: the link h1/1 - sw1/1 will negotiate down to QDR, the best speed both ends enable (h1/1 "
            "enables up to EDR, sw1/1 up to FDR)",
            "t.yaml:11:5: the link h1/1 - sw1/1 will negotiate down to 1x, the best width both ends enable (h1/1 "
            "enables up to 8x, sw1/1 up to 12x)",
            "t.yaml:12:5: the link h2/1 - sw1/2 will negotiate down to QDR, the best speed both ends enable (h2/1 "
            "enables up to EDR, sw1/2 up to FDR)",
        });
  // h3 - sw1/3: EDR is h3's best, so running below sw1/3's HDR is no surprise.
  CHECK(unreachable_nodes(t).empty());
}
