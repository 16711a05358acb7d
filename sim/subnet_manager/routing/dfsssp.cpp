#include "sim/subnet_manager/routing/dfsssp.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/subnet_manager/routing/dfsssp_layers.h"
#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/sssp.h"

namespace ibfsim {

RoutingTables route_dfsssp(const SubnetGraph& g) {
  // OpenSM's dfsssp routes exactly as its sssp, then spreads the paths over VLs.
  RoutingTables t = route_sssp(g);
  if (!t.notes.empty()) return t;  // sssp fell back to minhop
  unsigned needed = 0;
  std::optional<DfssspLayers> layers = dfsssp_layers(g, t, &needed);
  if (!layers) {
    RoutingTables fallback = route_minhop(g);
    fallback.notes.push_back(fmt::format("dfsssp: the paths need {} VLs, more than every switch link has; routed with "
                                         "minhop instead, as OpenSM does",
                                         needed));
    return fallback;
  }
  unsigned least_vls = 15;
  for (const SubnetNode& nd : g.nodes)
    for (unsigned p = 1; p <= nd.num_ports(); ++p)
      if (nd.ports[p].peer) least_vls = std::min(least_vls, nd.ports[p].data_vls);
  PathServiceLevels sl;
  sl.by_lid_pair = std::move(layers->first_sl);
  sl.spread = layers->spread;
  sl.sl_to_vl = opensm_default_sl_to_vl(least_vls);
  sl.vls_needed = layers->vls_needed;
  t.sl = std::move(sl);
  t.notes.push_back(fmt::format("dfsssp: {} layer{} over {} VLs (SL i -> VL i)", layers->vls_needed,
                                layers->vls_needed == 1 ? "" : "s", layers->vls_available));
  return t;
}

}  // namespace ibfsim
