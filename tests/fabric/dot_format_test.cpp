#include <catch2/catch.hpp>

#include <string>

#include "sim/fabric/dot_format.h"
#include "sim/fabric/topology_yaml.h"

using namespace ibfsim;

TEST_CASE("DOT export: switches as boxes, HCAs as ellipses, port numbers at cable ends", "[fabric][dot]") {
  Topology t = parse_topology(YAML::Load(R"(
nodes:
  - {name: sw1, type: switch, ports: 8}
  - {name: h1, type: hca}
  - {name: 'h"2', type: hca}
cables:
  - {from: h1/1, to: sw1/1}
  - {from: h"2/1, to: sw1/2, speed: HDR, length: 30cm}
)"),
                              "t.yaml");
  const std::string expected = std::string("// Written by ibfsim ") + IBFSIM_VERSION_STRING +
                               ". Render: dot -Tsvg FILE -o fabric.svg (sfdp for large fabrics)\n"
                               "graph fabric {\n"
                               "  graph [label=\"2 HCAs, 1 switches, 2 cables (4x EDR, 2m unless marked)\", "
                               "overlap=false];\n"
                               "  node [fontname=\"Helvetica\", fontsize=10];\n"
                               "  edge [fontname=\"Helvetica\", fontsize=8];\n"
                               "  \"sw1\" [shape=box, style=filled, fillcolor=\"#c6dbef\", label=\"sw1\\n8 ports\", "
                               "tooltip=\"GUID 0x0002c90300000001\"];\n"
                               "  \"h1\" [shape=ellipse, tooltip=\"GUID 0x0002c90301000002\"];\n"
                               "  \"h\\\"2\" [shape=ellipse, tooltip=\"GUID 0x0002c90301000003\"];\n"
                               "  \"h1\" -- \"sw1\" [taillabel=\"1\", headlabel=\"1\"];\n"
                               "  \"h\\\"2\" -- \"sw1\" [taillabel=\"1\", headlabel=\"2\", label=\"4x HDR, 0.3m\"];\n"
                               "}\n";
  CHECK(write_dot(t) == expected);
}

TEST_CASE("DOT export: lengths as topology files write them", "[fabric][dot]") {
  CHECK(format_length_mm(2000) == "2m");
  CHECK(format_length_mm(500) == "0.5m");
  CHECK(format_length_mm(1) == "0.001m");
  CHECK(format_length_mm(12345) == "12.345m");
  CHECK(format_length_mm(0) == "0m");
  CHECK(dot_quote("a\\b\"c\nd") == "\"a\\\\b\\\"c\\nd\"");
}
