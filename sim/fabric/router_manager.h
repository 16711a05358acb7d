// The static router manager: what a router manager (and the SA's path records) would tell routers
// and hosts when subnets are joined by routers (topology_subnets.h), computed from the topology and
// the LIDs the subnets' SMs assigned, once they have.
//
// Routes between subnets take the fewest routers: in the graph whose vertices are the subnets and
// whose edges are the routers (a router joins every pair of its ports' subnets), a router sends a
// packet for subnet T out of its port whose subnet is nearest T (ties: the lowest port); if T is not
// that port's subnet, to the next router there (the lowest-numbered router of that subnet one step
// nearer T, at its port in that subnet). A host reaches a port of another subnet through the
// router of its own subnet nearest the destination's (ties: the lowest node index).
#pragma once
#include <cstddef>
#include <optional>

#include "sim/fabric/fabric.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

// Fills every router's tables (grh_forwarding.h) from the fabric's live LIDs. Call once every
// subnet manager has configured its subnet.
void program_routers(Fabric& fabric);

// The address vector from port 1 of HCA `src` to port 1 of HCA `dst` with service level `sl`: the
// destination's LID in the same subnet; in another, the GRH (DGID = the destination subnet's prefix
// and the port's GUID, HopLmt `hop_limit`) and the LID of the router port that leads there. nullopt
// when no router path joins the two subnets.
std::optional<verbs::ibv_ah_attr> address_vector(Fabric& fabric, std::size_t src, std::size_t dst, std::uint8_t sl,
                                          std::uint8_t hop_limit = 64);

}  // namespace ibfsim
