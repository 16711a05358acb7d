// When a source's messages arrive, as a pure function of a random stream. Offered load is the
// fraction of the source's injection link that its messages' packets occupy (wire bytes with
// delimiters, at the link's data rate): the mean gap after a message is its wire time / load.
//
//  * poisson: exponential gaps (memoryless arrivals);
//  * bernoulli: time is cut into slots of one message's wire time and a message arrives in each
//    slot with probability `load` (BookSim's injection process): gaps are whole slots, geometric;
//  * constant: every gap exactly wire time / load;
//  * on_off: bursts of a geometric number of messages (mean `burst_length`) sent at `peak_load`,
//    separated by exponential idle times sized so that the long-run load is `load`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/rng.h"
#include "sim/core/time.h"

namespace ibfsim {

enum class ArrivalKind : std::uint8_t { kPoisson, kBernoulli, kConstant, kOnOff };

const char* arrival_name(ArrivalKind k);  // poisson, bernoulli, constant, on_off
std::optional<ArrivalKind> arrival_from_name(const std::string& name);

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kPoisson;
  double burst_length = 8;  // on_off: mean messages per burst, >= 1
  double peak_load = 1.0;   // on_off: load while a burst is on, in [load, 1]
};

class ArrivalProcess {
 public:
  ArrivalProcess(const ArrivalSpec& spec, double load);

  // The gap (fs, >= 1) from the arrival of a message whose packets take `wire_fs` on the link to
  // the next arrival.
  Time next_gap(double wire_fs, RngStream& rng);

  // The mean gap after such a message: wire_fs / load.
  double mean_gap(double wire_fs) const { return wire_fs / load_; }

 private:
  ArrivalSpec spec_;
  double load_;
  std::uint64_t burst_left_ = 0;  // on_off: messages still to come in this burst
};

}  // namespace ibfsim
