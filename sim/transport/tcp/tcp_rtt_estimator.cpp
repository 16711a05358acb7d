#include "sim/transport/tcp/tcp_rtt_estimator.h"

#include <algorithm>

namespace ibfsim {

void TcpRttEstimator::sample(Time r) {
  if (!have_) {  // (2.2)
    srtt_ = r;
    rttvar_ = r / 2;
    have_ = true;
  } else {  // (2.3): beta 1/4, alpha 1/8
    const Time diff = srtt_ > r ? srtt_ - r : r - srtt_;
    rttvar_ = (3 * rttvar_ + diff) / 4;
    srtt_ = (7 * srtt_ + r) / 8;
  }
  rto_ = std::clamp(srtt_ + std::max(g_, 4 * rttvar_), min_, max_);
}

}  // namespace ibfsim
