// The parameters of DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015) at an RDMA NIC: the reaction point (the sending QP's rate limiter) and the
// notification point (the receiver, which answers CE-marked packets with CNPs). Each field names
// the ConnectX (mlx5) congestion parameter it corresponds to; the defaults are the paper's where
// it gives one (its section 5), NVIDIA's documented firmware defaults otherwise. Rates in bit/s.
#pragma once
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

struct DcqcnConfig {
  // --- reaction point ---
  // g, the gain of alpha's moving average (dce_tcp_g): 1/256 [paper].
  double g = 1.0 / 256;
  // Alpha on a QP's first CNP (initial_alpha_value, 1023/1024 on ConnectX): 1 [paper].
  double initial_alpha = 1.0;
  // K, alpha's update period: alpha decays by (1 - g) every K without a CNP (dce_tcp_rtt): 55 us
  // [paper].
  Time alpha_period = 55 * kUs;
  // T, the rate-increase timer (rpg_time_reset): 55 us [paper].
  Time increase_period = 55 * kUs;
  // B, the byte counter: a rate increase every B bytes sent (rpg_byte_reset): 10 MB [paper]. 0: no
  // byte counter (ConnectX's "disabled"); the timer's stage count alone then picks the increase, so
  // hyper increase follows F timer stages (as in ns-3's model of ConnectX, which has no byte counter).
  std::uint64_t increase_bytes = 10'000'000;
  // F, the fast-recovery steps: increases while both the timer's and the byte counter's stage
  // counts are below F only halve the gap to the target (rpg_threshold): 5 [paper].
  unsigned fast_recovery_steps = 5;
  // R_AI, additive increase of the target rate (rpg_ai_rate): 40 Mb/s [paper].
  std::uint64_t additive_increase_bps = 40'000'000;
  // R_HAI, hyper increase (rpg_hai_rate): 400 Mb/s, ten times R_AI as ConnectX's defaults are
  // (rpg_ai_rate 5, rpg_hai_rate 50 Mb/s; the paper names no value).
  std::uint64_t hyper_increase_bps = 400'000'000;
  // Whether every cut sets the target rate to the current rate (clamp_tgt_rate 1) [paper]. false:
  // only a cut after a timer increase since the last cut does (ConnectX's defaults, clamp_tgt_rate 0
  // with clamp_tgt_rate_after_time_inc 1; ns-3's CLAMP_TARGET_RATE 0); cuts closer together than T
  // leave the target where the first of them found the rate.
  bool clamp_target_rate = true;
  // The lowest rate a cut leaves (rpg_min_rate): 1 Mb/s [ConnectX].
  std::uint64_t min_rate_bps = 1'000'000;
  // The rate a QP's first CNP sets current and target rate to, before its cut (rate_to_set_on_
  // first_cnp); 0: the line rate [ConnectX: 0].
  std::uint64_t rate_on_first_cnp_bps = 0;

  // --- notification point ---
  // N: at most one CNP per QP in this interval (min_time_between_cnps): 50 us [paper].
  Time min_cnp_interval = 50 * kUs;
  // The DSCP CNPs carry (cnp_dscp): 48 [ConnectX], so that a switch queues them ahead of data
  // (class selector 6).
  std::uint8_t cnp_dscp = 48;
};

}  // namespace ibfsim
