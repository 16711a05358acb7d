#include "sim/transport/roce/dcqcn_reaction_point.h"

#include <algorithm>
#include <cmath>

namespace ibfsim {

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnConfig& config, std::uint64_t line_rate_bps)
    : config_(config), line_(line_rate_bps) {}

bool DcqcnReactionPoint::on_cnp(Time now) {
  const std::uint64_t before = rate_bps();
  ++counters_.cnps;
  if (!limited_) {
    limited_ = true;
    rc_ = rt_ = config_.rate_on_first_cnp_bps ? std::min(config_.rate_on_first_cnp_bps, line_) : line_;
    alpha_ = config_.initial_alpha;
  }
  // The first CNP's RT is already RC. Without the clamp, a cut with no timer increase since the
  // last one keeps RT where it is.
  if (config_.clamp_target_rate || t_ > 0) rt_ = rc_;
  const double cut = std::floor(static_cast<double>(rc_) * (1.0 - alpha_ / 2));
  rc_ = std::max<std::uint64_t>(config_.min_rate_bps, static_cast<std::uint64_t>(cut));
  rc_ = std::min(rc_, line_);
  ++counters_.cuts;
  alpha_ = (1 - config_.g) * alpha_ + config_.g;
  t_ = b_ = 0;
  bytes_ = 0;
  alpha_at_ = now + config_.alpha_period;
  increase_at_ = now + config_.increase_period;
  return rate_bps() != before;
}

bool DcqcnReactionPoint::on_alpha_timer(Time now) {
  if (!limited_ || now != alpha_at_) return false;
  alpha_ = (1 - config_.g) * alpha_;
  ++counters_.alpha_updates;
  alpha_at_ = now + config_.alpha_period;
  return false;
}

bool DcqcnReactionPoint::on_increase_timer(Time now) {
  if (!limited_ || now != increase_at_) return false;
  const std::uint64_t before = rc_;
  ++t_;
  increase_at_ = now + config_.increase_period;
  increase();
  return rate_bps() != before;
}

bool DcqcnReactionPoint::on_bytes_sent(std::uint64_t bytes, Time) {
  if (!limited_ || config_.increase_bytes == 0) return false;
  const std::uint64_t before = rc_;
  bytes_ += bytes;
  while (limited_ && bytes_ >= config_.increase_bytes) {
    bytes_ -= config_.increase_bytes;
    ++b_;
    increase();
  }
  return rate_bps() != before;
}

void DcqcnReactionPoint::increase() {
  const unsigned f = config_.fast_recovery_steps;
  // Without a byte counter the timer's stage count alone decides.
  const bool bytes_off = config_.increase_bytes == 0;
  const unsigned hi = bytes_off ? t_ : std::max(t_, b_), lo = bytes_off ? t_ : std::min(t_, b_);
  if (hi <= f) {
    ++counters_.fast_recovery;
  } else if (lo > f) {
    ++counters_.hyper;
    rt_ += std::uint64_t{lo - f} * config_.hyper_increase_bps;
  } else {
    ++counters_.additive;
    rt_ += config_.additive_increase_bps;
  }
  rt_ = std::min(rt_, line_);
  rc_ = std::min((rt_ + rc_ + 1) / 2, line_);
  if (rc_ >= line_) release();
}

void DcqcnReactionPoint::release() {
  limited_ = false;
  ++counters_.releases;
  rc_ = rt_ = line_;
  t_ = b_ = 0;
  bytes_ = 0;
  alpha_at_ = increase_at_ = kTimeNever;
}

}  // namespace ibfsim
