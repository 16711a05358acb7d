#include "sim/workload/traffic_stats.h"

#include <algorithm>

namespace ibfsim {

void TrafficStats::on_delivered(Hca&, const Packet& p, Time tail) {
  if (p.measured) {
    latency_.add(tail - p.created);
    network_latency_.add(tail - p.injected);
  }
  if (tail >= begin_ && tail < end_) {
    window_bytes_ += p.payload_len;
    ++window_packets_;
  }
  total_bytes_ += p.payload_len;
  last_delivery_ = std::max(last_delivery_, tail);  // deliveries may come partition by partition
}

}  // namespace ibfsim
