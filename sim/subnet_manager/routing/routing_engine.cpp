#include "sim/subnet_manager/routing/routing_engine.h"

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/ar_groups.h"
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/dfsssp.h"
#include "sim/subnet_manager/routing/dnup.h"
#include "sim/subnet_manager/routing/dor.h"
#include "sim/subnet_manager/routing/ftree.h"
#include "sim/subnet_manager/routing/lash.h"
#include "sim/subnet_manager/routing/lft_file.h"
#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/nue.h"
#include "sim/subnet_manager/routing/sssp.h"
#include "sim/subnet_manager/routing/updn.h"

namespace ibfsim {

namespace {

constexpr RoutingEngine kAll[] = {RoutingEngine::kMinhop, RoutingEngine::kUpdn, RoutingEngine::kDnup,
                                  RoutingEngine::kDor,    RoutingEngine::kFtree, RoutingEngine::kLash,
                                  RoutingEngine::kSssp,   RoutingEngine::kDfsssp, RoutingEngine::kNue,
                                  RoutingEngine::kFile,   RoutingEngine::kArFtree, RoutingEngine::kArUpdn};

// ftree's tables, and groups over ftree's ranks (links between equal ranks unused, as ftree has them).
RoutingTables route_ar_ftree(const SubnetGraph& g, const RoutingOptions& opts) {
  std::vector<std::uint32_t> ranks;
  RoutingTables t = route_ftree(g, FtreeOptions{opts.roots, opts.compute_nodes}, nullptr, &ranks);
  if (ranks.empty()) {
    t.notes.push_back("ar_ftree: no fat tree, no adaptive routing groups: every route is static");
    return t;
  }
  t.ar = compute_ar_groups(g, t, ranks, false);
  return t;
}

// updn's tables, and groups over updn's ranks and directions.
RoutingTables route_ar_updn(const SubnetGraph& g, const RoutingOptions& opts) {
  const std::vector<std::size_t> roots = updn_roots(g, opts.roots);
  RoutingTables t = route_updn(g, opts.roots);
  if (roots.empty()) {
    t.notes.push_back("ar_updn: no root switches, no adaptive routing groups: every route is static");
    return t;
  }
  const SwitchIndex sw(g);
  const std::vector<unsigned> by_switch = updn_ranks(g, sw, roots);
  std::vector<std::uint32_t> ranks(g.nodes.size(), kArUnranked);
  for (std::size_t s = 0; s < sw.size(); ++s) ranks[sw.node[s]] = by_switch[s];
  t.ar = compute_ar_groups(g, t, ranks, true);
  return t;
}

}  // namespace

const char* routing_engine_name(RoutingEngine e) {
  switch (e) {
    case RoutingEngine::kMinhop: return "minhop";
    case RoutingEngine::kUpdn: return "updn";
    case RoutingEngine::kDnup: return "dnup";
    case RoutingEngine::kDor: return "dor";
    case RoutingEngine::kFtree: return "ftree";
    case RoutingEngine::kLash: return "lash";
    case RoutingEngine::kSssp: return "sssp";
    case RoutingEngine::kDfsssp: return "dfsssp";
    case RoutingEngine::kNue: return "nue";
    case RoutingEngine::kFile: return "file";
    case RoutingEngine::kArFtree: return "ar_ftree";
    case RoutingEngine::kArUpdn: return "ar_updn";
  }
  return "?";
}

std::optional<RoutingEngine> parse_routing_engine(std::string_view name) {
  for (RoutingEngine e : kAll)
    if (name == routing_engine_name(e)) return e;
  return std::nullopt;
}

std::string routing_engine_names() {
  std::string out;
  for (RoutingEngine e : kAll) out += (out.empty() ? "" : ", ") + std::string(routing_engine_name(e));
  return out;
}

RoutingTables compute_routes(const SubnetGraph& g, const RoutingOptions& opts) {
  switch (opts.engine) {
    case RoutingEngine::kMinhop: return route_minhop(g);
    case RoutingEngine::kUpdn: return route_updn(g, opts.roots);
    case RoutingEngine::kDnup: return route_dnup(g);
    case RoutingEngine::kDor: return route_dor(g);
    case RoutingEngine::kFtree: return route_ftree(g, FtreeOptions{opts.roots, opts.compute_nodes});
    case RoutingEngine::kLash: return route_lash(g);
    case RoutingEngine::kSssp: return route_sssp(g);
    case RoutingEngine::kDfsssp: return route_dfsssp(g);
    case RoutingEngine::kNue: return route_nue(g, NueOptions{opts.nue_max_vls});
    case RoutingEngine::kFile: return route_from_lft_file(g, opts.lft_file);
    case RoutingEngine::kArFtree: return route_ar_ftree(g, opts);
    case RoutingEngine::kArUpdn: return route_ar_updn(g, opts);
  }
  throw SimError("unknown routing engine");
}

}  // namespace ibfsim
