// Linear forwarding table (SubnSet LinearForwardingTable, fact sheet 6.3): egress port per
// unicast DLID, up to LinearFDBTop; 255 means no route (R15).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"

namespace ibfsim {

constexpr PortNum kNoRoute = 255;

class Lft {
 public:
  Lft() = default;
  explicit Lft(std::vector<PortNum> ports) : ports_(std::move(ports)) {}

  // Egress port for `dlid`, or kNoRoute when the DLID is above LinearFDBTop or unset.
  PortNum lookup(Lid dlid) const { return dlid < ports_.size() ? ports_[dlid] : kNoRoute; }
  void set(Lid dlid, PortNum port);
  Lid top() const { return ports_.empty() ? 0 : static_cast<Lid>(ports_.size() - 1); }

 private:
  std::vector<PortNum> ports_;
};

}  // namespace ibfsim
