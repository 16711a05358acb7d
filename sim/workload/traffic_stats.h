// Collects what the destinations deliver: end-to-end latency (message posted -> tail delivered)
// and network latency (first symbol injected -> tail delivered) of measured packets, and the
// payload delivered inside the measurement window (accepted throughput).
#pragma once
#include <cstdint>

#include "sim/report/latency_stats.h"
#include "sim/transport/hca.h"

namespace ibfsim {

class ByteWriter;
class ByteReader;

class TrafficStats : public DeliveryObserver {
 public:
  TrafficStats(Time measure_begin, Time measure_end) : begin_(measure_begin), end_(measure_end) {}

  void on_delivered(Hca&, const Packet& p, Time tail) override { count(p, tail); }
  // A packet delivered (its tail) at `tail`.
  void count(const Packet& p, Time tail);

  const LatencyStats& latency() const { return latency_; }
  const LatencyStats& network_latency() const { return network_latency_; }
  std::uint64_t window_payload_bytes() const { return window_bytes_; }
  std::uint64_t window_packets() const { return window_packets_; }
  std::uint64_t total_payload_bytes() const { return total_bytes_; }  // every delivery so far
  Time last_delivery() const { return last_delivery_; }

  // A run across MPI ranks (sim/core/rank_exchange.h): each rank saw its own destinations'
  // deliveries; the run's figures are those of every rank's taken in (samples, sums, the latest).
  void merge(const TrafficStats& other);
  void encode(ByteWriter& w) const;
  // The tallies of `w`'s bytes, over this one's window.
  TrafficStats decoded(ByteReader& r) const;

 private:
  Time begin_, end_;
  LatencyStats latency_;
  LatencyStats network_latency_;
  std::uint64_t window_bytes_ = 0;
  std::uint64_t window_packets_ = 0;
  std::uint64_t total_bytes_ = 0;
  Time last_delivery_ = 0;
};

}  // namespace ibfsim
