// OpenSM's unicast LFT dump (opensm-lfts.dump, written by dump_ucast_lfts; also what the file
// routing engine reads), byte for byte:
//   Unicast lids [0-TOP] of switch Lid L guid 0xGGGGGGGGGGGGGGGG ('NAME'):
//   0xLLLL PPP # Channel Adapter portguid 0xGGGGGGGGGGGGGGGG: 'NAME'
//   ...
//   TOP lids dumped
// One block per switch in switch GUID table order (guid_table_order); within it one line per LID
// 0..TOP that has a route (PPP the egress port, 000 the switch itself; LIDs without a route are
// left out), naming the port that owns the LID ("Switch" or "Channel Adapter", its port GUID and
// node description) or "unknown node and type" for a LID nobody owns. TOP is LinearFDBTop, and the
// closing count prints TOP whatever the number of lines.
#pragma once
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

void write_ucast_lft_dump(std::ostream& out, const SubnetGraph& g, const RoutingTables& t);

// [LID 0..top]: the port that owns the LID (invalid for none).
std::vector<SubnetPortRef> lid_owners(const SubnetGraph& g, Lid top);
// What a dump line says after "# " about a LID's owner: "Switch portguid 0x...: 'NAME'" (or
// "Channel Adapter", "Router"), or "unknown node and type".
std::string describe_lid_owner(const SubnetGraph& g, SubnetPortRef owner);

// One switch block of a dump as read back.
struct DumpedLft {
  Guid switch_guid = 0;
  Lid switch_lid = 0;
  Lid top = 0;
  std::string name;
  int line = 0;  // 1-based line of the header
  std::vector<std::pair<Lid, PortNum>> entries;  // in file order
};

// Reads a dump in the format above (comments after '#' are ignored, so OpenSM's and ibroute's
// "0xLLLL PPP : (...)" variant both parse). Throws InputError "FILE:LINE: expected ..., got ..."
// for a line it cannot read, a LID above the block's top, a LID given twice in one block, a switch
// given twice, an entry before any header, or a block whose "N lids dumped" line is missing.
std::vector<DumpedLft> parse_ucast_lft_dump(std::istream& in, const std::string& file_name);

}  // namespace ibfsim
