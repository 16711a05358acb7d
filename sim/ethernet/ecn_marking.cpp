#include "sim/ethernet/ecn_marking.h"

#include <algorithm>

#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ip_traffic_class.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"

namespace ibfsim {

double ecn_mark_probability(const EcnMarkingConfig& c, std::uint64_t queue_bytes) {
  if (queue_bytes < c.kmin_bytes) return 0.0;
  if (queue_bytes > c.kmax_bytes) return 1.0;
  if (c.kmax_bytes == c.kmin_bytes) return c.pmax;
  return c.pmax * static_cast<double>(queue_bytes - c.kmin_bytes) / static_cast<double>(c.kmax_bytes - c.kmin_bytes);
}

bool ecn_should_mark(const EcnMarkingConfig& c, std::uint64_t queue_bytes, double draw) {
  const double p = ecn_mark_probability(c, queue_bytes);
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return draw < p;
}

namespace {
// Offset of the IP header and whether it is IPv4; 0 when the frame is not IP.
std::size_t ip_at(const std::uint8_t* frame, std::size_t len, bool& v4) {
  const auto eth = decode_ethernet_header(frame, len);
  if (!eth) return 0;
  const std::size_t at = eth->bytes();
  if (eth->ether_type == kEtherTypeIpv4 && len >= at + kIpv4HeaderBytes && frame[at] == 0x45) {
    v4 = true;
    return at;
  }
  if (eth->ether_type == kEtherTypeIpv6 && len >= at + kIpv6HeaderBytes && frame[at] >> 4 == kIpv6Version) {
    v4 = false;
    return at;
  }
  return 0;
}
}  // namespace

int frame_ecn(const std::uint8_t* frame, std::size_t len) {
  bool v4 = false;
  const std::size_t at = ip_at(frame, len, v4);
  if (at == 0) return -1;
  return v4 ? ipv4_ecn(frame + at) : ipv6_ecn(frame + at);
}

bool mark_frame_ce(std::uint8_t* frame, std::size_t len) {
  bool v4 = false;
  const std::size_t at = ip_at(frame, len, v4);
  if (at == 0) return false;
  const std::uint8_t e = v4 ? ipv4_ecn(frame + at) : ipv6_ecn(frame + at);
  if (e != ecn::kEct0 && e != ecn::kEct1) return false;
  if (v4) set_ipv4_ecn(frame + at, ecn::kCe);
  else set_ipv6_ecn(frame + at, ecn::kCe);
  return true;
}

EcnMarker::EcnMarker(const EcnMarkingConfig& c, unsigned num_ports, std::uint64_t seed, std::uint64_t stream)
    : config_(c), rng_(seed, stream), bytes_(num_ports), peak_(num_ports, 0), marked_(num_ports, 0) {
  for (auto& q : bytes_) q.fill(0);
}

bool EcnMarker::enqueue(std::uint8_t* frame, std::size_t len, PortNum out, std::uint8_t priority,
                        std::uint64_t bytes) {
  std::uint64_t& q = bytes_[out - 1][priority & 7];
  bool marked = false;
  if (config_.enabled) {
    const double p = ecn_mark_probability(config_, q);
    // Only an ECN-capable frame draws: Not-ECT traffic leaves the stream untouched.
    const int e = frame_ecn(frame, len);
    if (p > 0.0 && (e == ecn::kEct0 || e == ecn::kEct1)) {
      const bool mark = p >= 1.0 || rng_.uniform() < p;
      if (mark) marked = mark_frame_ce(frame, len);
    }
  }
  if (marked) ++marked_[out - 1];
  q += bytes;
  peak_[out - 1] = std::max(peak_[out - 1], q);
  return marked;
}

void EcnMarker::dequeue(PortNum out, std::uint8_t priority, std::uint64_t bytes) {
  bytes_[out - 1][priority & 7] -= bytes;
}

std::uint64_t EcnMarker::marked_total() const {
  std::uint64_t n = 0;
  for (auto m : marked_) n += m;
  return n;
}

}  // namespace ibfsim
