#include "sim/network/congestion_detector.h"

namespace ibfsim {

PortCongestionParams SwitchCongestionConfig::port(PortNum p) const {
  PortCongestionParams r;
  r.threshold = threshold;
  r.packet_size = packet_size;
  r.marking_rate = marking_rate;
  r.cs_threshold = cs_threshold;
  r.victim = victim_mask.test(p);
  r.credit = credit_mask.test(p);
  if (p < marking_override.size() && marking_override[p].valid) {
    r.threshold = marking_override[p].threshold;
    r.packet_size = marking_override[p].packet_size;
    r.marking_rate = marking_override[p].marking_rate;
  }
  if (p < cs_override.size() && cs_override[p]) r.cs_threshold = *cs_override[p];
  return r;
}

bool SwitchCongestionConfig::marks(unsigned num_ports) const {
  for (unsigned p = 1; p <= num_ports; ++p) {
    const PortCongestionParams q = port(static_cast<PortNum>(p));
    if (q.threshold != 0 || (q.credit && q.cs_threshold != 0)) return true;
  }
  return false;
}

std::uint32_t CongestionDetector::queue_level_blocks(std::uint8_t threshold, std::uint32_t buffer_blocks) {
  if (threshold == 0) return ~0u;
  const std::uint64_t n = std::uint64_t{16u - (threshold & 15u)} * buffer_blocks;
  return static_cast<std::uint32_t>((n + 15) / 16);
}

std::uint32_t CongestionDetector::starvation_level_blocks(std::uint8_t cs_threshold, std::uint32_t buffer_blocks) {
  const std::uint64_t n = std::uint64_t{cs_threshold & 15u} * buffer_blocks;
  return static_cast<std::uint32_t>((n + 15) / 16);
}

CongestionDetector::CongestionDetector(const SwitchCongestionConfig& config, unsigned num_ports,
                                       std::uint32_t vl_buffer_blocks, RngStream rng)
    : params_(num_ports + 1), queue_level_(num_ports + 1, ~0u), vls_((num_ports + 1) * kVls), stats_(num_ports + 1),
      rng_(rng) {
  for (unsigned p = 1; p <= num_ports; ++p) {
    params_[p] = config.port(static_cast<PortNum>(p));
    queue_level_[p] = queue_level_blocks(params_[p].threshold, vl_buffer_blocks);
  }
}

// Whether an eligible packet is marked: one in Marking_Rate + 1 on average.
bool CongestionDetector::pick(const PortCongestionParams& p, PortStats& st, std::uint32_t blocks) {
  if (blocks < p.packet_size) {
    ++st.too_small;
    return false;
  }
  ++st.eligible;
  return p.marking_rate == 0 || rng_.below(std::uint64_t{p.marking_rate} + 1) == 0;
}

void CongestionDetector::dequeued(PortNum out, std::uint8_t vl, std::uint32_t blocks) {
  VlState& s = at(out, vl);
  s.queued -= blocks;
  if (s.queued == 0) s.starved = false;  // the queue that built while out of credits is gone
}

void CongestionDetector::credit_wait(PortNum out, std::uint8_t vl) { at(out, vl).starved = true; }

bool CongestionDetector::arrive(PortNum out, std::uint8_t vl, std::uint32_t blocks) {
  VlState& s = at(out, vl);
  const PortCongestionParams& p = params_[out];
  PortStats& st = stats_[out];
  const bool congested = s.queued >= queue_level_[out];
  s.queued += blocks;
  if (!congested) return false;
  ++(s.starved ? st.congested_victim : st.congested_root);
  if (s.starved && !p.victim) return false;
  return pick(p, st, blocks);
}

bool CongestionDetector::depart(PortNum out, std::uint8_t /*vl: starvation is judged per port*/, std::uint32_t blocks, bool marked,
                                std::uint32_t credits_left, std::uint32_t peer_buffer_blocks) {
  const PortCongestionParams& p = params_[out];
  PortStats& st = stats_[out];
  if (!marked && p.credit && p.cs_threshold != 0 &&
      credits_left < starvation_level_blocks(p.cs_threshold, peer_buffer_blocks)) {
    ++st.credit_starved;
    marked = pick(p, st, blocks);
  }
  if (marked) ++st.fecn_marked;
  return marked;
}

}  // namespace ibfsim
