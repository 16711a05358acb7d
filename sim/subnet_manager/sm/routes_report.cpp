#include "sim/subnet_manager/sm/routes_report.h"

#include "sim/subnet_manager/routing/deadlock_check.h"
#include "sim/subnet_manager/sm/guid2lid_file.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"

namespace ibfsim {

void write_routes_report(std::ostream& out, const SubnetGraph& g, const RoutingTables& t, const RoutesReportOptions& opts) {
  if (opts.lfts) write_ucast_lft_dump(out, g, t);
  if (opts.guid2lid) write_guid2lid(out, g);
  if (opts.deadlock_check) out << format_deadlock_report(g, check_deadlock(g, t));
}

}  // namespace ibfsim
