#include "sim/workload/traffic_stats.h"

#include <algorithm>

#include "sim/core/rank_event_codec.h"

namespace ibfsim {

void TrafficStats::count(const Packet& p, Time tail) {
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

void TrafficStats::merge(const TrafficStats& o) {
  latency_.merge(o.latency_);
  network_latency_.merge(o.network_latency_);
  window_bytes_ += o.window_bytes_;
  window_packets_ += o.window_packets_;
  total_bytes_ += o.total_bytes_;
  last_delivery_ = std::max(last_delivery_, o.last_delivery_);
}

void TrafficStats::encode(ByteWriter& w) const {
  latency_.encode(w);
  network_latency_.encode(w);
  w.put(window_bytes_);
  w.put(window_packets_);
  w.put(total_bytes_);
  w.put(last_delivery_);
}

TrafficStats TrafficStats::decoded(ByteReader& r) const {
  TrafficStats t(begin_, end_);
  t.latency_ = LatencyStats::decode(r);
  t.network_latency_ = LatencyStats::decode(r);
  t.window_bytes_ = r.get<std::uint64_t>();
  t.window_packets_ = r.get<std::uint64_t>();
  t.total_bytes_ = r.get<std::uint64_t>();
  t.last_delivery_ = r.get<Time>();
  return t;
}

}  // namespace ibfsim
