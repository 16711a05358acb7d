#include "sim/subnet_manager/routing/lft_file.h"

#include <fmt/format.h>

#include <sstream>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/core/input_file.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"

namespace ibfsim {

RoutingTables route_from_lft_file(const SubnetGraph& g, const std::string& path) {
  std::istringstream in(read_input_file(path, "an LFT dump (OpenSM's opensm-lfts.dump format)"));
  const std::vector<DumpedLft> dump = parse_ucast_lft_dump(in, path);
  RoutingTables t = empty_routing_tables(g);
  std::unordered_map<Guid, std::size_t> by_guid;
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].is_switch()) by_guid.emplace(g.nodes[n].node_guid, n);
  std::vector<bool> loaded(g.nodes.size(), false);
  for (const DumpedLft& d : dump) {
    const auto it = by_guid.find(d.switch_guid);
    if (it == by_guid.end()) {
      throw InputError(fmt::format("{}:{}: expected the GUID of a switch of the subnet, got 0x{:016x} ('{}')", path,
                                   d.line, d.switch_guid, d.name));
    }
    const std::size_t sw = it->second;
    loaded[sw] = true;
    for (const auto& [lid, port] : d.entries) {
      if (lid > t.lft_top) {
        throw InputError(fmt::format("{}: switch 0x{:016x} (line {}): expected LIDs up to the subnet's highest LID "
                                     "0x{:04x}, got 0x{:04x}", path, d.switch_guid, d.line, t.lft_top, lid));
      }
      if (port > g.nodes[sw].num_ports()) {
        throw InputError(fmt::format("{}: switch 0x{:016x} (line {}): expected egress ports 0..{} for LID 0x{:04x}, "
                                     "got {}", path, d.switch_guid, d.line, g.nodes[sw].num_ports(), lid, port));
      }
      t.lft[sw][lid] = port;
    }
  }
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].is_switch() && !loaded[n]) {
      throw InputError(fmt::format("{}: expected an LFT for every switch, got none for '{}' (GUID 0x{:016x})", path,
                                   g.nodes[n].description, g.nodes[n].node_guid));
    }
  }
  return t;
}

}  // namespace ibfsim
