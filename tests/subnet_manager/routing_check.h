// Checks a routing for what every engine promises, independently of how it was computed:
// following the LFTs from every switch reaches every LID at the port that owns it, without a loop.
#pragma once
#include <string>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim::test {

struct ReachResult {
  std::size_t pairs = 0;        // (switch, LID) pairs followed
  std::size_t unreached = 0;    // pairs that hit no route, a dead port or a loop
  std::string first_failure;
};

inline ReachResult follow_every_route(const SubnetGraph& g, const RoutingTables& t) {
  ReachResult r;
  for (std::size_t s = 0; s < g.nodes.size(); ++s) {
    if (!g.nodes[s].is_switch()) continue;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
      for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
        const LidRange lids = g.nodes[n].ports[p].lids;
        for (unsigned lid = lids.first; lids.assigned() && lid <= lids.last; ++lid) {
          ++r.pairs;
          std::size_t at = s;
          bool ok = false;
          for (std::size_t hop = 0; hop <= g.nodes.size(); ++hop) {
            if (!g.nodes[at].is_switch()) {
              ok = at == n;
              break;
            }
            const PortNum out = t.port(at, static_cast<Lid>(lid));
            if (out == 0) {
              ok = at == n;
              break;
            }
            if (out == kNoRoute || out > g.nodes[at].num_ports() || !g.nodes[at].ports[out].peer) break;
            at = g.nodes[at].ports[out].peer->node;
          }
          if (!ok && r.unreached++ == 0)
            r.first_failure = g.nodes[s].description + " -> LID " + std::to_string(lid);
        }
      }
    }
  }
  return r;
}

}  // namespace ibfsim::test
