#include "sim/network/grh_forwarding.h"

#include "sim/core/big_endian.h"
#include "sim/link/lrh.h"
#include "sim/network/grh.h"

namespace ibfsim {

bool GrhForwarding::rebuild(Packet& p, PortNum out) const {
  std::uint8_t* lrh = p.header.data();
  std::uint8_t* grh = lrh + kLrhBytes;
  const auto hop = next_hop(grh_dgid_prefix(grh), grh_dgid_guid(grh));
  if (!hop) return false;
  store_be16(lrh + 2, hop->dlid);
  store_be16(lrh + 6, lid_[out]);
  set_grh_hop_limit(grh, static_cast<std::uint8_t>(grh_hop_limit(grh) - 1));
  return true;
}

}  // namespace ibfsim
