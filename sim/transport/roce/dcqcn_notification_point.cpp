#include "sim/transport/roce/dcqcn_notification_point.h"

namespace ibfsim {

bool DcqcnNotificationPoint::on_ce_marked(Qpn qp, Time now) {
  ++counters_.ce_marked;
  auto [it, first] = last_cnp_.try_emplace(qp, now);
  if (!first && now - it->second < interval_) {
    ++counters_.suppressed;
    return false;
  }
  it->second = now;
  ++counters_.cnps;
  return true;
}

}  // namespace ibfsim
