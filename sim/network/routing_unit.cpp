#include "sim/network/routing_unit.h"

namespace ibfsim {

RoutingUnit::RoutingUnit(unsigned num_ports, unsigned op_vls, std::uint32_t mtu)
    : mtu_(mtu), out_mtu_(num_ports, mtu), default_sl_to_vl_(SlToVlTable::identity_modulo(op_vls)) {}

void RoutingUnit::set_sl_to_vl(PortNum in, PortNum out, const SlToVlTable& table) {
  if (sl_to_vl_.empty()) {
    const std::size_t n = out_mtu_.size() + 1;
    sl_to_vl_.assign(n, std::vector<SlToVlTable>(n, default_sl_to_vl_));
  }
  sl_to_vl_.at(in).at(out) = table;
}

}  // namespace ibfsim
