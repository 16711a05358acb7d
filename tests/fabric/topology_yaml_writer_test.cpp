// `ibfsim topo FILE --yaml OUT`: any topology written as YAML reads back as the same topology
// (every node, setting, enabled speed and width, cable, length and lane fault), with defaults
// holding the common values and GUIDs only where they are not the defaults; and scenarios override
// topology keys with `--set topology.KEY=VALUE`, net files included.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/core/error.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/fabric/yaml_input.h"
#include "tests/support/run_command.h"

using namespace ibfsim;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

// Equal as a fabric: every field a run depends on (not source positions or the file name).
void check_same(const Topology& a, const Topology& b) {
  REQUIRE(a.nodes.size() == b.nodes.size());
  REQUIRE(a.cables.size() == b.cables.size());
  CHECK(a.propagation_per_m == b.propagation_per_m);
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const TopoNode &x = a.nodes[i], &y = b.nodes[i];
    INFO("node " << i << " " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.type == y.type);
    CHECK(x.num_ports == y.num_ports);
    CHECK(x.guid == y.guid);
    if (x.type == NodeType::kSwitch) CHECK(x.switch_latency == y.switch_latency);
    CHECK(x.rx_buffer_credits == y.rx_buffer_credits);
    CHECK(x.op_vls == y.op_vls);
    CHECK(x.vl15_buffer_credits == y.vl15_buffer_credits);
    for (unsigned p = 0; p <= x.num_ports; ++p) {
      CHECK(x.enabled_speeds(p) == y.enabled_speeds(p));
      CHECK(x.enabled_widths(p) == y.enabled_widths(p));
    }
  }
  for (std::size_t i = 0; i < a.cables.size(); ++i) {
    const TopoCable &x = a.cables[i], &y = b.cables[i];
    INFO("cable " << i);
    CHECK(x.node_a == y.node_a);
    CHECK(x.port_a == y.port_a);
    CHECK(x.node_b == y.node_b);
    CHECK(x.port_b == y.port_b);
    CHECK(x.rate.speed == y.rate.speed);
    CHECK(x.rate.lanes == y.rate.lanes);
    CHECK(x.length_mm == y.length_mm);
    CHECK(x.failed_lanes == y.failed_lanes);
    CHECK(x.lanes_reversed == y.lanes_reversed);
  }
  REQUIRE(a.servers.size() == b.servers.size());
  for (std::size_t i = 0; i < a.servers.size(); ++i) {
    CHECK(a.servers[i].name == b.servers[i].name);
    CHECK(a.servers[i].hosts == b.servers[i].hosts);
  }
}

Topology round_trip(const Topology& t) {
  const std::string yaml = write_topology_yaml(t, "a comment\nof two lines");
  INFO(yaml.substr(0, 3000));
  return parse_topology(YAML::Load(yaml), "written.yaml");
}

}  // namespace

TEST_CASE("topology YAML writer: every ready-made topology and example reads back the same", "[fabric][topology][yaml]") {
  for (const char* name : {"quickstart.yaml", "two_switches.yaml", "mixed_speeds.yaml", "leaf_spine_128.yaml",
                           "fat_tree_16.yaml", "torus_4x4x4.yaml", "mesh_8x8.yaml", "dragonfly_72.yaml",
                           "hypercube_4d.yaml", "ring_6.yaml", "cc_victim.yaml", "two_hosts.yaml", "rail_4x8.yaml",
                           "examples/small_cluster.ibnetdiscover", "examples/leaf_spine.ibsim"}) {
    INFO(name);
    const Topology t = load_topology_file(kTopologies + name);
    check_same(t, round_trip(t));
  }
}

TEST_CASE("topology YAML writer: per-node settings, port overrides, odd lengths and lane faults survive",
          "[fabric][topology][yaml]") {
  const Topology t = parse_topology(YAML::Load(R"(
defaults:
  link: {speed: HDR, width: 4x, length: 3m}
  switch: {ports: 8, latency: 90ns, buffer_credits: 200, vls: 4}
  hca: {buffer_credits: 300, speeds: [EDR, HDR]}
  propagation: 4800ps/m
nodes:
  - {name: sw1, type: switch, latency: 1500ps, speeds: [QDR, EDR, HDR], port_overrides: {5-7: {speeds: [EDR]}, 8: {widths: [1x, 4x]}}}
  - {name: sw2, type: switch, guid: 0x1234, vls: 15, vl15_buffer_credits: 7}
  - {name: h1, type: hca, ports: 2}
  - {name: h2, type: hca, buffer_credits: 33}
  - {name: "odd-name_3", type: hca, widths: [4x]}
cables:
  - {from: h1/1, to: sw1/1}
  - {from: h1/2, to: sw2/1, length: 75cm}
  - {from: h2/1, to: sw1/5, speed: EDR, length: 1234mm}
  - {from: odd-name_3/1, to: sw2/2, failed_lanes: [2], lanes_reversed: true}
  - {from: sw1/8, to: sw2/8, speed: HDR, width: 1x}
)"), "t.yaml");
  const std::string yaml = write_topology_yaml(t);
  INFO(yaml);
  check_same(t, round_trip(t));
  // Defaults hold the common values; a node names what differs; a default GUID is not written.
  CHECK(yaml.find("guid: 0x0000000000001234") != std::string::npos);
  CHECK(yaml.find("guid: 0x0002c9") == std::string::npos);
  CHECK(yaml.find("length: 1234mm") != std::string::npos);
  CHECK(yaml.find("length: 75cm") != std::string::npos);
  CHECK(yaml.find("propagation: 4800ps/m") != std::string::npos);
  CHECK(yaml.find("latency: 1500ps") != std::string::npos);
  CHECK(yaml.find("5-7: {speeds: [EDR]}") != std::string::npos);
  CHECK(topology_duration_text(100 * kNs) == "100ns");
  CHECK(topology_duration_text(7) == "7fs");
  CHECK(topology_length_text(2000) == "2m");
}

TEST_CASE("ibfsim topo --yaml: an ibnetdiscover dump becomes an editable YAML file with the same summary",
          "[fabric][topology][yaml]") {
  using namespace ibfsim::test;
  const std::string dir = scratch_dir("topo_yaml");
  const std::string in = kTopologies + "examples/small_cluster.ibnetdiscover";
  const CommandResult r = run_ibfsim("topo " + in + " --yaml " + dir + "/cluster.yaml");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("wrote " + dir + "/cluster.yaml (YAML topology)") != std::string::npos);
  const std::string yaml = read_file(dir + "/cluster.yaml");
  CHECK(yaml.rfind("# Written by ibfsim topo", 0) == 0);
  CHECK(yaml.find("buffer_credits") != std::string::npos);  // the settings a dump lacks, to edit
  const CommandResult back = run_ibfsim("topo " + dir + "/cluster.yaml");
  REQUIRE(back.exit_code == 0);
  // The same summary, but for its first line (the file and its format).
  auto tail = [](const std::string& s) { return s.substr(s.find('\n')); };
  CHECK(tail(back.output) == tail(r.output.substr(0, r.output.find("wrote "))));
}

TEST_CASE("a scenario overrides its topology's keys with --set topology.KEY, YAML or net file", "[fabric][topology][yaml]") {
  // A YAML topology: the switches' buffers.
  const Topology y = load_topology_file(kTopologies + "quickstart.yaml", {{"defaults.switch.buffer_credits", "512"},
                                                                          {"nodes.1.buffer_credits", "64"}});
  CHECK(y.nodes[*y.find_node("sw1")].rx_buffer_credits == 512);
  CHECK(y.nodes[*y.find_node("h1")].rx_buffer_credits == 64);
  // An ibnetdiscover dump: through its YAML form, whose defaults hold the common settings.
  const Topology n = load_topology_file(kTopologies + "examples/small_cluster.ibnetdiscover",
                                        {{"defaults.switch.latency", "250ns"}, {"defaults.link.length", "7m"}});
  for (std::size_t s : n.switches()) CHECK(n.nodes[s].switch_latency == 250 * kNs);
  for (const TopoCable& c : n.cables) CHECK(c.length_mm == 7000);
  // End to end: a scenario run with the override has the switch buffers it names.
  {
    using namespace ibfsim::test;
    const std::string dir = scratch_dir("topo_set");
    const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) +
                                       "/scenarios/quickstart.yaml --set topology.defaults.switch.buffer_credits=512"
                                       " --set phases.measure=5us --set phases.warmup=1us -o " + dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto j = results_and_tables(dir);
    std::size_t checked = 0;
    for (const auto& port : j["ports"])
      if (port["node"] == "sw1")
        for (const auto& vl : port["vls"]) {
          CHECK(vl["rx_buffer_blocks"] == 512);
          ++checked;
        }
    CHECK(checked > 0);
  }
  // A bad value names the command line.
  try {
    load_topology_file(kTopologies + "quickstart.yaml", {{"defaults.switch.buffer_credits", "lots"}});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("--set on the command line") != std::string::npos);
  }
}
