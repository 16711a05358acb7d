#include "sim/fabric/link_bring_up.h"

namespace ibfsim {

LinkBringUp::LinkBringUp(ScheduledModule& scheduler, bool training_delay, PortState up_state)
    : scheduler_(scheduler), training_delay_(training_delay), up_state_(up_state) {}

void LinkBringUp::add_cable(LinkPort& a, LinkPort& b, const TrainingResult& t) {
  cables_.push_back(Cable{&a, &b, t, false, 0, {}, {}});
}

void LinkBringUp::start() {
  for (std::size_t k = 0; k < cables_.size(); ++k) begin_training(k, 0);
}

void LinkBringUp::begin_training(std::size_t k, Time now) {
  Cable& c = cables_[k];
  if (!c.result.up) return;  // nothing both ends agree on: it stays down (a retry would fail alike)
  if (!training_delay_) return come_up(k, now);
  c.training = true;
  scheduler_.schedule_global<&LinkBringUp::training_done>(training_done_at(c.result, now), this, k, c.generation);
}

void LinkBringUp::come_up(std::size_t k, Time now) {
  Cable& c = cables_[k];
  c.training = false;
  c.a->link_up(up_state_);
  c.b->link_up(up_state_);
  c.up_times.push_back(now);
}

void LinkBringUp::schedule_fault(Time at, std::size_t cable, bool up) {
  if (up) scheduler_.schedule_global<&LinkBringUp::fault_up>(at, this, cable);
  else scheduler_.schedule_global<&LinkBringUp::fault_down>(at, this, cable);
}

void LinkBringUp::training_done(std::size_t k, std::uint32_t generation) {
  Cable& c = cables_.at(k);
  if (!c.training || generation != c.generation) return;  // a fault cut this training short
  come_up(k, ScheduledModule::now());
}

void LinkBringUp::fault_down(std::size_t k) {
  Cable& c = cables_.at(k);
  if (c.training) {
    c.training = false;
    ++c.generation;
  } else if (c.a->state() == PortState::kDown) {
    return;  // already down
  } else {
    c.a->link_down();
    c.b->link_down();
  }
  c.down_times.push_back(ScheduledModule::now());
}

void LinkBringUp::fault_up(std::size_t k) {
  Cable& c = cables_.at(k);
  if (c.training || c.a->state() != PortState::kDown) return;  // up, or on its way
  begin_training(k, ScheduledModule::now());
}

}  // namespace ibfsim
