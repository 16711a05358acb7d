// DCQCN's reaction point: the rate limiter of one sending QP (Zhu et al., SIGCOMM 2015, section 3,
// the QCN reaction point with DCTCP's alpha), as a pure state machine: events in, the new rate out.
// A QP runs unlimited at the line rate until its first CNP creates this state.
//
//   CNP:             RT = RC (without clamp_target_rate: only if t > 0); RC = max(min_rate, RC x (1 - alpha/2)); alpha = (1 - g) alpha + g;
//                    the timer and the byte counter restart with their stage counts at 0, and the
//                    alpha timer restarts. The first CNP sets RC = RT = the line rate (or
//                    rate_on_first_cnp) and alpha = initial_alpha before that cut.
//   alpha timer:     every K since the last CNP: alpha = (1 - g) alpha.
//   increase timer:  every T since the last CNP: the timer's stage count t += 1, then an increase.
//   bytes sent:      every B bytes since the last CNP: the byte counter's stage count b += 1, then
//                    an increase.
//   increase:        max(t, b) <= F: fast recovery, RC = (RT + RC) / 2 (so F stages of it);
//                    (with no byte counter, B = 0: t alone in place of max(t, b) and min(t, b))
//                    min(t, b) > F: hyper increase, RT += (min(t, b) - F) x R_HAI, RC = (RT + RC) / 2;
//                    otherwise:     additive increase, RT += R_AI, RC = (RT + RC) / 2;
//                    RT and RC never above the line rate. The halving rounds up, so RC reaches RT.
// Once RC is back at the line rate the QP is released (ConnectX takes it off its rate limiter):
// its timers stop, and its next CNP is a first CNP again.
//
// Rates are whole bits per second (the cut rounds down), alpha a double: the same events give the
// same rates on every machine.
#pragma once
#include <cstdint>

#include "sim/core/time.h"
#include "sim/transport/roce/dcqcn_config.h"

namespace ibfsim {

class DcqcnReactionPoint {
 public:
  // Keeps a reference to `config` (every QP of an HCA shares one): it must outlive the point, so a
  // temporary is refused.
  DcqcnReactionPoint(const DcqcnConfig& config, std::uint64_t line_rate_bps);
  DcqcnReactionPoint(DcqcnConfig&&, std::uint64_t) = delete;

  // --- events; each returns whether the current rate changed ---
  bool on_cnp(Time now);
  // The alpha timer or the increase timer fired at `now`: ignored (false) unless `now` is its
  // deadline (a timer restarted by a CNP leaves a stale event behind).
  bool on_alpha_timer(Time now);
  bool on_increase_timer(Time now);
  // The QP sent `bytes` (whole frames) at `now`.
  bool on_bytes_sent(std::uint64_t bytes, Time now);

  // --- state ---
  // Whether the QP is rate limited (after a CNP, until it is released).
  bool limited() const { return limited_; }
  std::uint64_t rate_bps() const { return limited_ ? rc_ : line_; }        // RC
  std::uint64_t target_bps() const { return limited_ ? rt_ : line_; }      // RT
  std::uint64_t line_rate_bps() const { return line_; }
  double alpha() const { return alpha_; }
  unsigned timer_stage() const { return t_; }
  unsigned byte_stage() const { return b_; }
  std::uint64_t bytes_toward_stage() const { return bytes_; }
  // The timers' deadlines; kTimeNever while stopped (not limited).
  Time alpha_deadline() const { return alpha_at_; }
  Time increase_deadline() const { return increase_at_; }

  struct Counters {
    std::uint64_t cnps = 0, cuts = 0, fast_recovery = 0, additive = 0, hyper = 0, releases = 0;
    std::uint64_t alpha_updates = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  void increase();
  void release();

  const DcqcnConfig& config_;
  std::uint64_t line_;
  bool limited_ = false;
  std::uint64_t rc_ = 0, rt_ = 0;
  double alpha_ = 1.0;
  unsigned t_ = 0, b_ = 0;
  std::uint64_t bytes_ = 0;
  Time alpha_at_ = kTimeNever, increase_at_ = kTimeNever;
  Counters counters_;
};

}  // namespace ibfsim
