#include "sim/fabric/dot_format.h"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace ibfsim {

std::string dot_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string format_length_mm(std::uint32_t mm) {
  std::string s = fmt::format("{}.{:03}", mm / 1000, mm % 1000);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "m";
}

namespace {

std::string cable_text(const TopoCable& c) {
  const std::string rate = c.ethernet_speed ? ethernet_speed_info(*c.ethernet_speed).name : c.rate.name();
  return fmt::format("{}, {}", rate, format_length_mm(c.length_mm));
}

}  // namespace

std::string write_dot(const Topology& topo) {
  // The most common rate and length, stated once.
  std::map<std::string, std::size_t> counts;
  for (const TopoCable& c : topo.cables) ++counts[cable_text(c)];
  std::string common;
  std::size_t best = 0;
  for (const auto& [text, n] : counts) {
    if (n > best) {
      best = n;
      common = text;
    }
  }
  const std::size_t switches = topo.switches().size();
  std::string label = fmt::format("{} HCAs, {} switches, {} cables", topo.nodes.size() - switches, switches,
                                  topo.cables.size());
  if (!common.empty()) label += fmt::format(" ({}{})", common, counts.size() > 1 ? " unless marked" : "");

  std::string out = fmt::format("// Written by ibfsim {}. Render: dot -Tsvg FILE -o fabric.svg (sfdp for large fabrics)\n",
                                IBFSIM_VERSION_STRING);
  out += "graph fabric {\n";
  out += fmt::format("  graph [label={}, overlap=false];\n", dot_quote(label));
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (const TopoNode& n : topo.nodes) {
    const std::string tooltip = fmt::format("GUID {:#018x}", n.guid);
    if (n.type == NodeType::kSwitch) {
      out += fmt::format("  {} [shape=box, style=filled, fillcolor=\"#c6dbef\", label={}, tooltip={}];\n",
                         dot_quote(n.name), dot_quote(fmt::format("{}\n{} ports", n.name, n.num_ports)),
                         dot_quote(tooltip));
    } else if (n.type == NodeType::kRouter) {
      out += fmt::format("  {} [shape=hexagon, style=filled, fillcolor=\"#fdd0a2\", label={}, tooltip={}];\n",
                         dot_quote(n.name), dot_quote(fmt::format("{}\nrouter", n.name)), dot_quote(tooltip));
    } else {
      out += fmt::format("  {} [shape=ellipse, tooltip={}];\n", dot_quote(n.name), dot_quote(tooltip));
    }
  }
  for (const TopoCable& c : topo.cables) {
    out += fmt::format("  {} -- {} [taillabel=\"{}\", headlabel=\"{}\"", dot_quote(topo.nodes.at(c.node_a).name),
                       dot_quote(topo.nodes.at(c.node_b).name), c.port_a, c.port_b);
    const std::string text = cable_text(c);
    if (text != common) out += fmt::format(", label={}", dot_quote(text));
    out += "];\n";
  }
  out += "}\n";
  return out;
}

}  // namespace ibfsim
