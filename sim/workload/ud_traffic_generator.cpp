#include "sim/workload/ud_traffic_generator.h"

#include <cmath>

#include "sim/core/error.h"

namespace ibfsim {

UdTrafficGenerator::UdTrafficGenerator(Hca& hca, Qpn src_qp, std::uint32_t q_key, const WorkloadSpec& spec,
                                       std::shared_ptr<const std::vector<UdDestination>> destinations,
                                       std::size_t skip, RngStream rng, Time stop, Time measure_begin,
                                       Time measure_end, std::uint16_t flow)
    : hca_(hca), src_qp_(src_qp), q_key_(q_key), spec_(spec), destinations_(std::move(destinations)), skip_(skip),
      choices_(destinations_->size() - (skip < destinations_->size() ? 1 : 0)), rng_(rng), stop_(stop),
      measure_begin_(measure_begin), measure_end_(measure_end), flow_(flow) {
  IBFSIM_CHECK(choices_ > 0, "a traffic generator needs a destination");
  const std::uint64_t pad = (4 - spec_.message_size % 4) % 4;
  const std::uint64_t wire = 8 + 12 + 8 + spec_.message_size + pad + 4 + 2;  // LRH BTH DETH payload pad ICRC VCRC
  const LinkPort& port = hca_.port(1);
  const std::uint64_t edges = port.symbols_for(wire);
  mean_gap_fs_ = static_cast<double>(edges) * port.clock().period_fs() / spec_.load;
}

Time UdTrafficGenerator::next_arrival() {
  if (spec_.arrival == Arrival::kConstant) {
    // Computed from the message index, never accumulated.
    return first_ + static_cast<Time>(std::floor(static_cast<double>(posted_) * mean_gap_fs_));
  }
  return last_ + static_cast<Time>(std::llround(rng_.exponential(mean_gap_fs_)));
}

void UdTrafficGenerator::start(Time begin) {
  // Sources start at a random phase within one mean gap so they are not synchronised.
  first_ = begin + static_cast<Time>(std::floor(rng_.uniform() * mean_gap_fs_));
  last_ = first_;
  if (first_ < stop_) hca_.schedule<&UdTrafficGenerator::message_due>(first_, this);
}

void UdTrafficGenerator::message_due() {
  const Time t = ScheduledModule::now();
  std::size_t k = choices_ == 1 ? 0 : static_cast<std::size_t>(rng_.below(choices_));
  if (k >= skip_) ++k;
  const UdDestination& d = (*destinations_)[k];
  const bool measured = t >= measure_begin_ && t < measure_end_;
  hca_.post_ud_send(src_qp_, d.lid, d.qpn, q_key_, spec_.message_size, measured, spec_.sl, flow_);
  ++posted_;
  if (measured) ++measured_posted_;
  last_ = t;
  const Time next = next_arrival();
  if (next < stop_) hca_.schedule<&UdTrafficGenerator::message_due>(next, this);
}

}  // namespace ibfsim
