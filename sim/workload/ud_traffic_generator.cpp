#include "sim/workload/ud_traffic_generator.h"

#include <cmath>

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/transport/roce/roce_hca_port.h"
#include "sim/transport/send_engine.h"

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
  if (hca_.ethernet()) {  // RoCE v2: the frame, its preamble, SFD and inter-frame gap on the byte clock
    const std::uint64_t edges = ethernet_wire_edges(roce_frame_bytes(hca_.roce_port(1), wire));
    mean_gap_fs_ = static_cast<double>(edges) * hca_.ethernet_port(1).clock().period_fs() / spec_.load;
    return;
  }
  const LinkPort& port = hca_.port(1);
  const std::uint64_t edges = port.symbols_for(wire);
  mean_gap_fs_ = static_cast<double>(edges) * port.clock().period_fs() / spec_.load;
}

Time UdTrafficGenerator::next_arrival() {
  if (spec_.arrival == Arrival::kConstant) {
    // Computed from the message index, never accumulated.
    return first_ + static_cast<Time>(std::floor(static_cast<double>(drawn_) * mean_gap_fs_));
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
  pending_ = ScheduledModule::now();
  offer();
}

void UdTrafficGenerator::offer() {
  SendEngine& engine = hca_.send_engine(1);
  const std::uint8_t vl = hca_.sl_to_vl(1, spec_.sl);
  if (engine.has_room(vl)) {
    post_pending();
  } else {
    waiting_for_room_ = true;
    engine.wait_for_room(vl, this, pending_);
  }
}

void UdTrafficGenerator::feed() {
  waiting_for_room_ = false;
  post_pending();
}

void UdTrafficGenerator::post_pending() {
  const Time now = ScheduledModule::now();
  std::size_t k = choices_ == 1 ? 0 : static_cast<std::size_t>(rng_.below(choices_));
  if (k >= skip_) ++k;
  const UdDestination& d = (*destinations_)[k];
  const Time t = pending_;
  const bool measured = t >= measure_begin_ && t < measure_end_;
  hca_.post_ud_send(src_qp_, d.lid, d.qpn, q_key_, spec_.message_size, measured, spec_.sl, flow_, t);
  ++posted_;
  ++drawn_;
  if (measured) ++measured_posted_;
  last_ = t;
  const Time next = next_arrival();
  if (next >= stop_) return;
  pending_ = next;
  // A message that arrived while this one waited is due already: it waits in turn (the queue has
  // just been filled) or is built at once.
  if (next <= now) offer();
  else hca_.schedule<&UdTrafficGenerator::message_due>(next, this);
}

void UdTrafficGenerator::settle(Time end) {
  if (!waiting_for_room_) return;
  waiting_for_room_ = false;
  // pending_ is the waiting message's arrival; those after it are drawn as post_pending would
  // have (a destination, then the next gap), without building anything.
  for (Time t = pending_; t < stop_ && t < end;) {
    if (choices_ != 1) rng_.below(choices_);
    ++waiting_;
    if (t >= measure_begin_ && t < measure_end_) ++measured_waiting_;
    last_ = t;
    ++drawn_;
    t = next_arrival();
  }
}

}  // namespace ibfsim
