// DCQCN's notification point (Zhu et al., SIGCOMM 2015, section 3): the receiving NIC answers a
// CE-marked RoCE packet with a CNP to the QP that sent it, at most one CNP per receiving QP every
// min_cnp_interval (N): a packet marked sooner after the last CNP of its QP sends none. Pure: the
// HCA asks, and builds and sends the CNP.
#pragma once
#include <cstdint>
#include <map>

#include "sim/core/ids.h"
#include "sim/core/time.h"

namespace ibfsim {

class DcqcnNotificationPoint {
 public:
  explicit DcqcnNotificationPoint(Time min_cnp_interval) : interval_(min_cnp_interval) {}

  // A CE-marked packet for local QP `qp` arrived at `now`: whether to send a CNP for it (and if so
  // the QP's interval starts again now).
  bool on_ce_marked(Qpn qp, Time now);

  struct Counters {
    std::uint64_t ce_marked = 0;   // CE-marked packets received
    std::uint64_t cnps = 0;        // CNPs asked for
    std::uint64_t suppressed = 0;  // CE-marked packets within the interval: no CNP
  };
  const Counters& counters() const { return counters_; }

 private:
  Time interval_;
  std::map<Qpn, Time> last_cnp_;
  Counters counters_;
};

}  // namespace ibfsim
