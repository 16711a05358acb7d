// The retransmission timeout of RFC 6298: SRTT and RTTVAR from round-trip samples, RTO = SRTT +
// max(G, 4 RTTVAR) clamped to [rto_min, rto_max], doubled on each timeout (backoff) until the next
// valid sample. Pure arithmetic over femtoseconds.
#pragma once
#include "sim/core/time.h"

namespace ibfsim {

class TcpRttEstimator {
 public:
  TcpRttEstimator(Time rto_initial, Time rto_min, Time rto_max, Time granularity)
      : rto_(rto_initial), min_(rto_min), max_(rto_max), g_(granularity) {}
  void sample(Time r);
  void back_off() { rto_ = rto_ > max_ / 2 ? max_ : rto_ * 2; }
  Time rto() const { return rto_; }
  Time srtt() const { return srtt_; }
  Time rttvar() const { return rttvar_; }
  bool has_sample() const { return have_; }

 private:
  Time rto_, min_, max_, g_;
  Time srtt_ = 0, rttvar_ = 0;
  bool have_ = false;
};

}  // namespace ibfsim
