#include "sim/subnet_manager/routing/minhop.h"

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/ucast_lft_builder.h"

namespace ibfsim {

RoutingTables route_minhop(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  return build_ucast_lfts(g, sw, minhop_hop_matrix(g, sw), /*dor=*/false);
}

}  // namespace ibfsim
