#include "sim/ethernet/route_table.h"

#include "sim/core/error.h"

namespace ibfsim {

namespace {
std::size_t version_index(const IpAddress& ip) { return ip.version == IpVersion::kV4 ? 0 : 1; }
}  // namespace

void RouteTable::add(const IpPrefix& prefix, NextHops next_hops) {
  IBFSIM_CHECK(!next_hops.empty(), "RouteTable::add: a route needs a next hop");
  routes_[{prefix.length, mask_ip(prefix.address, prefix.length)}] = std::move(next_hops);
  lengths_[version_index(prefix.address)].insert(prefix.length);
}

const NextHops* RouteTable::lookup(const IpAddress& dst) const {
  for (unsigned length : lengths_[version_index(dst)]) {
    const auto it = routes_.find({length, mask_ip(dst, length)});
    if (it != routes_.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace ibfsim
