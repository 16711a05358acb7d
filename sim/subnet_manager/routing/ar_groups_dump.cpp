#include "sim/subnet_manager/routing/ar_groups_dump.h"

#include <fmt/format.h>

#include <iterator>

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"

namespace ibfsim {

void write_ar_groups_dump(std::ostream& out, const SubnetGraph& g, const RoutingTables& t) {
  if (!t.ar) {
    out << "no adaptive routing groups (only the ar_ftree and ar_updn engines compute them)\n";
    return;
  }
  const std::vector<SubnetPortRef> owner = lid_owners(g, t.lft_top);
  const SwitchIndex sw(g);
  fmt::memory_buffer buf;
  for (std::size_t node : sw.node) {
    const SubnetNode& S = g.nodes[node];
    static const ArSwitchTables kNone;
    const ArSwitchTables& ar = node < t.ar->by_node.size() ? t.ar->by_node[node] : kNone;
    std::size_t entries = 0;
    for (std::uint16_t grp : ar.group_of_lid) entries += grp != 0;
    fmt::format_to(std::back_inserter(buf), "Adaptive routing groups of switch Lid {} guid 0x{:016x} ('{}'): {} groups, {} LIDs\n",
                   S.ports[0].lids.first, S.node_guid, S.description, ar.groups.size(), entries);
    for (std::size_t k = 0; k < ar.groups.size(); ++k) {
      fmt::format_to(std::back_inserter(buf), "group {}: ports", k + 1);
      for (PortNum p : ar.groups[k]) fmt::format_to(std::back_inserter(buf), " {}", static_cast<unsigned>(p));
      buf.push_back('\n');
    }
    for (std::size_t lid = 0; lid < ar.group_of_lid.size() && lid <= t.lft_top; ++lid)
      if (ar.group_of_lid[lid] != 0)
        fmt::format_to(std::back_inserter(buf), "0x{:04x} group {} # {}\n", lid, ar.group_of_lid[lid],
                       describe_lid_owner(g, owner[lid]));
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
}

}  // namespace ibfsim
