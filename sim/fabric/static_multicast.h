// Multicast trees until the subnet manager exists. A group's MLID is 0xC000 + its index. Its tree
// is a breadth-first tree over the switches rooted at the switch of the group's first member,
// pruned to the switches that lead to a member or a sender; each switch's MFT entry lists its
// tree links plus the ports of attached members. Packets follow the tree, so every member
// receives each packet exactly once.
#pragma once
#include <string>
#include <vector>

#include "sim/fabric/topology.h"
#include "sim/network/mft.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"  // kMulticastLidBase

namespace ibfsim {
constexpr Qpn kMulticastQpn = 0xFFFFFF;

struct MulticastGroup {
  std::string name;
  std::vector<std::size_t> members;  // HCA node indices that receive
  std::vector<std::size_t> senders;  // HCA node indices that send (send-only if not members)
};

// One Mft per node (empty for HCAs).
std::vector<Mft> compute_static_multicast(const Topology& topo, const std::vector<MulticastGroup>& groups);

}  // namespace ibfsim
