#include "sim/workload/arrival_process.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace ibfsim {

const char* arrival_name(ArrivalKind k) {
  switch (k) {
    case ArrivalKind::kPoisson: return "poisson";
    case ArrivalKind::kBernoulli: return "bernoulli";
    case ArrivalKind::kConstant: return "constant";
    case ArrivalKind::kOnOff: return "on_off";
  }
  return "?";
}

std::optional<ArrivalKind> arrival_from_name(const std::string& name) {
  for (ArrivalKind k : {ArrivalKind::kPoisson, ArrivalKind::kBernoulli, ArrivalKind::kConstant, ArrivalKind::kOnOff})
    if (name == arrival_name(k)) return k;
  return std::nullopt;
}

ArrivalProcess::ArrivalProcess(const ArrivalSpec& spec, double load) : spec_(spec), load_(load) {
  IBFSIM_CHECK(load > 0 && load <= 1, "load must be in (0, 1]");
  if (spec_.kind == ArrivalKind::kOnOff)
    IBFSIM_CHECK(spec_.burst_length >= 1 && spec_.peak_load >= load && spec_.peak_load <= 1, "bad on/off settings");
}

namespace {
// Geometric on {1, 2, ...} with success probability p: the number of trials to the first success.
std::uint64_t geometric(double p, RngStream& rng) {
  if (p >= 1) return 1;
  const double u = rng.uniform();  // [0, 1)
  return 1 + static_cast<std::uint64_t>(std::floor(std::log1p(-u) / std::log1p(-p)));
}
Time at_least_one(double fs) { return std::max<Time>(1, static_cast<Time>(std::llround(fs))); }
}  // namespace

Time ArrivalProcess::next_gap(double wire_fs, RngStream& rng) {
  switch (spec_.kind) {
    case ArrivalKind::kPoisson: return at_least_one(rng.exponential(wire_fs / load_));
    case ArrivalKind::kConstant: return at_least_one(wire_fs / load_);
    case ArrivalKind::kBernoulli:
      return at_least_one(static_cast<double>(geometric(load_, rng)) * wire_fs);
    case ArrivalKind::kOnOff: {
      if (burst_left_ == 0) burst_left_ = geometric(1.0 / spec_.burst_length, rng);
      --burst_left_;
      double gap = wire_fs / spec_.peak_load;
      // The burst's last message: an idle time follows, mean B * wire * (1/load - 1/peak), so a
      // cycle (B messages on, then off) lasts B * wire / load on average.
      if (burst_left_ == 0 && spec_.peak_load > load_)
        gap += rng.exponential(spec_.burst_length * wire_fs * (1.0 / load_ - 1.0 / spec_.peak_load));
      return at_least_one(gap);
    }
  }
  return at_least_one(wire_fs / load_);
}

}  // namespace ibfsim
