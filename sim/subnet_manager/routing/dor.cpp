#include "sim/subnet_manager/routing/dor.h"

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/ucast_lft_builder.h"

namespace ibfsim {

RoutingTables route_dor(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  return build_ucast_lfts(g, sw, minhop_hop_matrix(g, sw), /*dor=*/true);
}

}  // namespace ibfsim
