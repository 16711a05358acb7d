// Choosing a routing engine by name (OpenSM's routing_engine option) and running it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

enum class RoutingEngine { kMinhop, kUpdn, kDnup, kDor, kFtree, kLash, kSssp, kDfsssp, kNue, kFile };

// "minhop", "updn", "dnup", "dor", "ftree", "lash", "sssp", "dfsssp", "nue", "file".
const char* routing_engine_name(RoutingEngine e);
std::optional<RoutingEngine> parse_routing_engine(std::string_view name);
// "minhop, updn, dnup, dor, ftree, lash, sssp, dfsssp, nue, file" for error messages and help.
std::string routing_engine_names();

struct RoutingOptions {
  RoutingEngine engine = RoutingEngine::kMinhop;
  // updn, ftree: root switches' node GUIDs in order (OpenSM's root_guid_file; empty: none given,
  // updn finds them, ftree ranks from the CAs).
  std::vector<Guid> roots;
  // ftree: the compute nodes' port GUIDs (OpenSM's cn_guid_file; empty: every CA port).
  std::vector<Guid> compute_nodes;
  std::string lft_file;     // file: the dump to load
  // nue: OpenSM's nue_max_num_vls (1: one layer, no SLs; 0: as many as the fabric's data VLs).
  unsigned nue_max_vls = 1;
};

// Requires LIDs assigned. Engine errors are InputErrors.
RoutingTables compute_routes(const SubnetGraph& g, const RoutingOptions& opts);

}  // namespace ibfsim
