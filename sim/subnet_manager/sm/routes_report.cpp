#include "sim/subnet_manager/sm/routes_report.h"

#include <fmt/format.h>

#include <map>
#include <string>

#include "sim/subnet_manager/routing/ar_groups_dump.h"
#include "sim/subnet_manager/routing/deadlock_check.h"
#include "sim/subnet_manager/sm/guid2lid_file.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"

namespace ibfsim {

void write_routes_report(std::ostream& out, const SubnetGraph& g, const RoutingTables& t, const RoutesReportOptions& opts) {
  if (opts.lfts) write_ucast_lft_dump(out, g, t);
  if (opts.guid2lid) write_guid2lid(out, g);
  if (opts.path_sls) {
    std::map<unsigned, SubnetPortRef> by_lid;
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
      for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
        const LidRange r = g.nodes[n].ports[p].lids;
        if (r.assigned())
          for (unsigned lid = r.first; lid <= r.last; ++lid) by_lid[lid] = {n, static_cast<PortNum>(p)};
      }
    for (const auto& [slid, src] : by_lid)
      for (const auto& [dlid, dst] : by_lid) {
        if (slid == dlid) continue;
        const auto [first, last] = path_sl_range(g, t, src, static_cast<Lid>(dlid), static_cast<Lid>(slid));
        out << fmt::format("0x{:04x} 0x{:04x} {}\n", slid, dlid,
                           first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
      }
  }
  if (opts.deadlock_check) out << format_deadlock_report(g, check_deadlock(g, t));
  if (opts.ar_groups) write_ar_groups_dump(out, g, t);
}

}  // namespace ibfsim
