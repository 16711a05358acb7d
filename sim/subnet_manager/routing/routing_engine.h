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

enum class RoutingEngine { kMinhop, kUpdn, kDnup, kDor, kFtree, kLash, kSssp, kDfsssp, kNue, kFile, kArFtree, kArUpdn };

// ar_ftree and ar_updn: ftree's and updn's tables plus adaptive routing groups (ar_groups.h).
inline bool is_adaptive_engine(RoutingEngine e) { return e == RoutingEngine::kArFtree || e == RoutingEngine::kArUpdn; }
// The engine whose static tables an engine computes (ar_ftree: ftree; ar_updn: updn; others: itself).
inline RoutingEngine static_engine(RoutingEngine e) {
  return e == RoutingEngine::kArFtree ? RoutingEngine::kFtree : e == RoutingEngine::kArUpdn ? RoutingEngine::kUpdn : e;
}

// "minhop", "updn", "dnup", "dor", "ftree", "lash", "sssp", "dfsssp", "nue", "file", "ar_ftree", "ar_updn".
const char* routing_engine_name(RoutingEngine e);
std::optional<RoutingEngine> parse_routing_engine(std::string_view name);
// "minhop, updn, ..., ar_ftree, ar_updn" for error messages and help.
std::string routing_engine_names();

struct RoutingOptions {
  RoutingEngine engine = RoutingEngine::kMinhop;
  // updn, ftree (and ar_*): root switches' node GUIDs in order (OpenSM's root_guid_file; empty: none given,
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
