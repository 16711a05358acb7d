#include "sim/cli/topo_command.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/fabric/dot_format.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/ibsim_format.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_summary.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/report/atomic_file.h"

namespace ibfsim {

CLI::App* add_topo_subcommand(CLI::App& app, TopoOptions& opts) {
  CLI::App* topo = app.add_subcommand("topo", "Summarize a topology (YAML, ibnetdiscover or ibsim) and convert it");
  topo->add_option("FILE", opts.file, "Topology file: YAML, ibnetdiscover output or an ibsim net file")->required();
  topo->add_option("--dot", opts.dot_out, "Write the fabric as a Graphviz DOT graph to this file");
  topo->add_option("--ibnetdiscover", opts.ibnetdiscover_out, "Write the fabric as ibnetdiscover output to this file");
  topo->add_option("--ibsim", opts.ibsim_out, "Write the fabric as an OFED ibsim net file to this file");
  topo->add_option("--yaml", opts.yaml_out,
                   "Write the fabric as a YAML topology to this file (nodes and cables, every setting editable)");
  return topo;
}

namespace {

// ibnetdiscover output and ibsim net files describe InfiniBand fabrics: an Ethernet cable or switch
// (`fabric: roce` topologies) has no rate or node type there, and writing it as an InfiniBand one
// would be a different fabric.
void refuse_ethernet(const Topology& topo, const char* flag, const char* what) {
  for (const TopoNode& n : topo.nodes)
    if (n.type == NodeType::kSwitch && n.kind == SwitchKind::kEthernet)
      throw InputError(fmt::format("{}: {} writes {}, which describes InfiniBand fabrics only, but switch {} is of kind ethernet "
                                   "(write this topology with --yaml or --dot)",
                                   n.kind_mark.to_string(), flag, what, n.name));
  for (const TopoCable& c : topo.cables)
    if (c.ethernet_speed)
      throw InputError(fmt::format("{}: {} writes {}, which describes InfiniBand fabrics only, but this cable is {} "
                                   "(write this topology with --yaml or --dot)",
                                   c.mark.to_string(), flag, what, ethernet_speed_info(*c.ethernet_speed).name));
}

}  // namespace

int run_topo_command(const TopoOptions& opts, std::ostream& out) {
  TopologyFormat format = TopologyFormat::kYaml;
  const Topology topo = load_topology_file(opts.file, &format);
  out << fmt::format("topology: {} ({})\n", opts.file, topology_format_name(format))
      << format_topology_summary(topo, summarize_topology(topo));
  // Render everything first, so that a topology one format cannot hold writes no file at all.
  struct Output {
    const std::string& path;
    const char* what;
    const char* flag;
    std::string text;
  };
  std::vector<Output> outputs;
  if (!opts.dot_out.empty()) outputs.push_back({opts.dot_out, "Graphviz DOT", "--dot", write_dot(topo)});
  if (!opts.ibnetdiscover_out.empty()) {
    refuse_ethernet(topo, "--ibnetdiscover", "ibnetdiscover output");
    outputs.push_back({opts.ibnetdiscover_out, "ibnetdiscover", "--ibnetdiscover", write_ibnetdiscover(topo)});
  }
  if (!opts.ibsim_out.empty()) {
    refuse_ethernet(topo, "--ibsim", "an ibsim net file");
    outputs.push_back({opts.ibsim_out, "ibsim net file", "--ibsim", write_ibsim(topo)});
  }
  if (!opts.yaml_out.empty()) {
    const std::string comment = fmt::format(
        "Written by ibfsim topo {} --yaml {}\nfrom {} ({}): {} nodes, {} cables. Every key is in topologies/README.md.",
        opts.file, opts.yaml_out, opts.file, topology_format_name(format), topo.nodes.size(), topo.cables.size());
    outputs.push_back({opts.yaml_out, "YAML topology", "--yaml", write_topology_yaml(topo, comment)});
  }
  // A missing folder is the usual mistake: catch it before anything is written.
  for (const Output& o : outputs) {
    const std::filesystem::path dir = std::filesystem::path(o.path).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      throw InputError(fmt::format("cannot write the {} to '{}': there is no folder '{}'", o.what, o.path, dir.string()));
    }
    if (std::filesystem::is_directory(o.path, ec))
      throw InputError(fmt::format("{} {}: expected a file to write the {} to, got a folder", o.flag, o.path, o.what));
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK | X_OK) != 0)
      throw InputError(fmt::format("{} {}: expected a file in a folder ibfsim can write, got: {}", o.flag, o.path,
                                   std::strerror(errno)));
  }
  for (const Output& o : outputs) {
    try {
      write_file_atomically(o.path, o.text);
    } catch (const OutputError& e) {
      throw OutputError(fmt::format("{}: cannot write the {}: {}", o.flag, o.what, e.what()));
    }
    out << fmt::format("wrote {} ({})\n", o.path, o.what);
  }
  return 0;
}

}  // namespace ibfsim
