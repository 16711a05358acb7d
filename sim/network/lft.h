// Linear forwarding table (SubnSet LinearForwardingTable, IBA Vol1 14.2.5.10): egress port per
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
  explicit Lft(std::vector<PortNum> ports)
      : ports_(std::move(ports)), top_(ports_.empty() ? 0 : static_cast<Lid>(ports_.size() - 1)) {}

  // Egress port for `dlid`, or kNoRoute when the DLID is above LinearFDBTop or unset.
  PortNum lookup(Lid dlid) const { return dlid <= top_ && dlid < ports_.size() ? ports_[dlid] : kNoRoute; }
  // Sets one entry; LinearFDBTop rises to it if it was lower (set_top lowers it again).
  void set(Lid dlid, PortNum port);
  // SwitchInfo.LinearFDBTop: entries above it are not used, whatever they hold.
  void set_top(Lid top) { top_ = top; }
  Lid top() const { return top_; }

 private:
  std::vector<PortNum> ports_;
  Lid top_ = 0;
};

}  // namespace ibfsim
