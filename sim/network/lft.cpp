#include "sim/network/lft.h"

namespace ibfsim {

void Lft::set(Lid dlid, PortNum port) {
  if (dlid >= ports_.size()) ports_.resize(static_cast<std::size_t>(dlid) + 1, kNoRoute);
  ports_[dlid] = port;
  if (dlid > top_) top_ = dlid;
}

}  // namespace ibfsim
