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
                                       std::uint32_t vl_buffer_blocks)
    : params_(num_ports + 1), queue_level_(num_ports + 1, ~0u), vls_((num_ports + 1) * kVls), stats_(num_ports + 1) {
  for (unsigned p = 1; p <= num_ports; ++p) {
    params_[p] = config.port(static_cast<PortNum>(p));
    queue_level_[p] = queue_level_blocks(params_[p].threshold, vl_buffer_blocks);
  }
}

bool CongestionDetector::depart(PortNum out, std::uint8_t vl, std::uint32_t blocks, std::uint32_t credits_left,
                                std::uint32_t peer_buffer_blocks) {
  VlState& s = at(out, vl);
  const PortCongestionParams& p = params_[out];
  PortStats& st = stats_[out];
  const bool victim = s.starved;
  s.starved = false;
  // The packet itself is still in its input buffer: the queue behind it is the rest.
  const std::uint32_t behind = s.queued >= blocks ? s.queued - blocks : 0;
  const bool queue_congested = behind >= queue_level_[out];
  const bool starved = p.credit && p.cs_threshold != 0 &&
                       credits_left < starvation_level_blocks(p.cs_threshold, peer_buffer_blocks);
  if (queue_congested) ++(victim ? st.congested_victim : st.congested_root);
  if (starved) ++st.credit_starved;
  const bool eligible = (queue_congested && (!victim || p.victim)) || starved;
  if (!eligible) return false;
  if (blocks < p.packet_size) {
    ++st.too_small;
    return false;
  }
  ++st.eligible;
  if (s.countdown != 0) {
    --s.countdown;
    return false;
  }
  s.countdown = p.marking_rate;
  ++st.fecn_marked;
  return true;
}

}  // namespace ibfsim
