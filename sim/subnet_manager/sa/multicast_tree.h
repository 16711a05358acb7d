// The forwarding tree of a multicast group (what the SA's MCMemberRecord joins and leaves make the
// SM program into the switches' MFTs): a tree over the switches joining every member's switch,
// pure, no SystemC. The tree is the breadth-first tree from the first member's switch (switches
// and their ports in graph order) pruned to the switches on the way to members; so a packet
// entering the tree anywhere reaches every receiving member once and never loops. Send-only
// members (JoinState SendOnlyNonMember alone) put their switch on the tree but their own port in
// no mask: they send to the group and receive nothing.
#pragma once
#include <cstddef>
#include <map>
#include <vector>

#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct MulticastMember {
  SubnetPortRef port;   // an HCA port (a switch's port 0 for the switch itself)
  bool receives = true;  // false for a send-only member
};

// Per switch (graph node) on the tree: the ports the group's packets leave by (sorted).
// Members not connected to the first member's switch are left out.
std::map<std::size_t, std::vector<PortNum>> multicast_tree(const SubnetGraph& g,
                                                           const std::vector<MulticastMember>& members);

}  // namespace ibfsim
