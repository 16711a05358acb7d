// Multicast forwarding table (SubnSet MulticastForwardingTable, IBA Vol1 14.2.5.12): for each
// multicast LID (0xC000-0xFFFE) the set of ports a packet is replicated to. A switch sends a copy
// out of every port in the set except the one it arrived on.
#pragma once
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"

namespace ibfsim {

class Mft {
 public:
  // nullptr when the MLID has no entry.
  const std::vector<PortNum>* lookup(Lid mlid) const {
    auto it = entries_.find(mlid);
    return it == entries_.end() ? nullptr : &it->second;
  }
  void set(Lid mlid, std::vector<PortNum> ports) { entries_[mlid] = std::move(ports); }
  bool empty() const { return entries_.empty(); }
  const std::unordered_map<Lid, std::vector<PortNum>>& entries() const { return entries_; }

 private:
  std::unordered_map<Lid, std::vector<PortNum>> entries_;
};

}  // namespace ibfsim
