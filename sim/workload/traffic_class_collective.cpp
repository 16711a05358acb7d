// A traffic class running a collective (traffic_class.h): every host posts the first step of the
// schedule (collective_schedule.h) and each further step once the message it depends on has
// arrived (and the host has seen it); iterations run back to back.
#include "sim/workload/collective_schedule.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

void TrafficClass::start_collective() {
  const std::size_t n = hosts_.size();
  steps_ = spec_.pattern.kind == PatternKind::kRingAllreduce ? ring_allreduce_steps(n) : all_to_all_rounds(n);
  next_step_.assign(n, 0);
  hosts_.front()->hca->schedule<&TrafficClass::iteration_starts>(window_.start + spec_.start, this);
}

void TrafficClass::iteration_starts() { start_iteration(ScheduledModule::now()); }

void TrafficClass::steps_enabled(std::size_t i) {
  Host& h = *hosts_[i];
  while (next_step_[i] < steps_ && next_step_[i] <= h.got) collective_post(i, next_step_[i]++);
}

void TrafficClass::start_iteration(Time at) {
  iteration_start_ = at;
  received_this_iteration_ = 0;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = *hosts_[i];
    h.received.assign(steps_, 0);
    h.got = 0;
    next_step_[i] = 1;
    collective_post(i, 0);
  }
}

void TrafficClass::collective_post(std::size_t i, std::uint32_t step) {
  const std::size_t n = hosts_.size();
  const CollectiveSend s = spec_.pattern.kind == PatternKind::kRingAllreduce
                               ? ring_allreduce_send(i, step, n, spec_.sizes.largest())
                               : all_to_all_round_send(i, step, n, spec_.sizes.largest());
  offer(i, s.dest, s.bytes, true, step, ScheduledModule::now());
}

}  // namespace ibfsim
