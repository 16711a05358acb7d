#include "sim/fabric/ibsim_format.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/static_routing.h"

namespace ibfsim {

namespace {

// "w=2 s=4 e=2\t" for a port whose enabled sets are not everything; "" otherwise.
std::string port_options(const TopoNode& n, unsigned port) {
  std::string out;
  const WidthSet widths = n.enabled_widths(port);
  const SpeedSet speeds = n.enabled_speeds(port);
  if (widths != kAllWidths) out += fmt::format("w={} ", widths);
  if (speeds != kAllSpeeds) {
    if (const unsigned sdr_qdr = portinfo_link_speed_enabled(speeds)) out += fmt::format("s={} ", sdr_qdr);
    if (const unsigned ext = portinfo_link_speed_ext_enabled(speeds)) out += fmt::format("e={} ", ext);
  }
  if (!out.empty()) out.back() = '\t';
  return out;
}

}  // namespace

Topology parse_ibsim(std::string_view text, const std::string& file_name) {
  return parse_net_file(text, file_name, NetFileDialect::kIbsim);
}

std::string write_ibsim(const Topology& topo) {
  const std::vector<std::string> names = export_node_names(topo);
  for (std::size_t n = 0; n < names.size(); ++n) {
    if (names[n].size() > kIbsimMaxNodeIdLength) {
      throw InputError(fmt::format("{}: expected node names of at most {} characters for ibsim, got '{}' ({})",
                                   topo.nodes[n].mark.to_string(), kIbsimMaxNodeIdLength, names[n],
                                   names[n].size()));
    }
  }
  const StaticRouting routing = compute_static_routing(topo);
  const auto cables_at = topo.port_cables();
  auto is_switch = [&](std::size_t n) { return topo.nodes[n].type == NodeType::kSwitch; };
  auto is_router = [&](std::size_t n) { return topo.nodes[n].type == NodeType::kRouter; };
  auto lid = [&](std::size_t n, unsigned p) { return routing.port_lid[n][is_switch(n) ? 0 : p]; };

  const std::size_t num_switches = topo.switches().size();
  std::size_t num_ports = 0;  // as ibsim counts them: a switch's port 0 included
  for (const TopoNode& n : topo.nodes) num_ports += n.num_ports + (n.type == NodeType::kSwitch ? 1 : 0);
  std::string limits;
  if (topo.nodes.size() > kIbsimDefaultMaxNodes) limits += fmt::format(" -N {}", topo.nodes.size());
  if (num_switches > kIbsimDefaultMaxSwitches) limits += fmt::format(" -S {}", num_switches);
  if (num_ports > kIbsimDefaultMaxPorts) limits += fmt::format(" -P {}", num_ports);

  std::string out = fmt::format(
      "# ibsim net file written by ibfsim {}: {} switches, {} HCAs, {} cables.\n"
      "# Run: ibsim -s{} FILE\n"
      "# switchguid=/caguid= set the next node's GUID; w=, s=, e= a port's enabled widths and speeds;\n"
      "# each port line's comment gives the link's rate (lid N WIDTHxSPEED, as ibnetdiscover writes it).\n",
      IBFSIM_VERSION_STRING, num_switches, topo.nodes.size() - num_switches, topo.cables.size(), limits);
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const TopoNode& node = topo.nodes[n];
    if (is_switch(n)) {
      out += fmt::format("\nswitchguid={:#x}\nSwitch\t{} \"{}\"\t# \"{}\" enhanced port 0 lid {} lmc 0\n", node.guid,
                         node.num_ports, names[n], names[n], lid(n, 0));
    } else if (is_router(n)) {
      out += fmt::format("\nrtguid={:#x}\nRt\t{} \"{}\"\t# \"{}\"\n", node.guid, node.num_ports, names[n], names[n]);
    } else {
      out += fmt::format("\ncaguid={:#x}\nHca\t{} \"{}\"\t# \"{}\"\n", node.guid, node.num_ports, names[n], names[n]);
    }
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cables_at[n][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[n][p]];
      const PortRef peer = c.far_end(n);
      const std::string rate = fmt::format("{}x{}", c.rate.lanes, c.rate.info().name);
      out += fmt::format("[{}]\t\"{}\"[{}]\t{}# ", p, names[peer.node], peer.port, port_options(node, p));
      if (is_switch(n)) {
        out += fmt::format("\"{}\" lid {} {}\n", names[peer.node], lid(peer.node, peer.port), rate);
      } else {
        out += fmt::format("lid {} lmc 0 \"{}\" lid {} {}\n", lid(n, p), names[peer.node], lid(peer.node, peer.port), rate);
      }
    }
  }
  return out;
}

}  // namespace ibfsim
