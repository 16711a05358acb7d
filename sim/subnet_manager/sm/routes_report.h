// What `ibfsim routes` prints once the SM has assigned LIDs and computed routes, whichever way it
// got there (offline from a topology file, or in-band bring-up of a scenario): the printer both
// paths share. In this order, each part only when asked for:
//   1. the LFTs in OpenSM's dump_ucast_lfts format (ucast_lft_dump.h), byte for byte as
//      opensm-lfts.dump;
//   2. the LIDs in OpenSM's guid2lid format (guid2lid_file.h), byte for byte as OpenSM's cache;
//   3. with path_sls, every path's SL: "SLID DLID SL" (LIDs as 0x%04x), or "SLID DLID FIRST-LAST"
//      where the engine allows several (dfsssp), for every pair of LIDs of CA ports and switch
//      port 0s, source ascending then destination; the form of the golden runs' path-sls.txt;
//   4. the deadlock check (deadlock_check.h);
//   5. with ar_groups, the adaptive routing groups (ar_groups_dump.h).
#pragma once
#include <ostream>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct RoutesReportOptions {
  bool lfts = true;
  bool guid2lid = false;
  bool path_sls = false;
  bool deadlock_check = false;
  bool ar_groups = false;
};

void write_routes_report(std::ostream& out, const SubnetGraph& g, const RoutingTables& t, const RoutesReportOptions& opts);

}  // namespace ibfsim
