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
  const std::uint64_t arg = k | (std::uint64_t{c.generation} << 32);
  scheduler_.schedule(training_done_at(c.result, now), this, kTrained, arg);
}

void LinkBringUp::come_up(std::size_t k, Time now) {
  Cable& c = cables_[k];
  c.training = false;
  c.a->link_up(up_state_);
  c.b->link_up(up_state_);
  c.up_times.push_back(now);
}

void LinkBringUp::schedule_fault(Time at, std::size_t cable, bool up) {
  scheduler_.schedule(at, this, up ? kFaultUp : kFaultDown, cable);
}

void LinkBringUp::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  const Time now = ScheduledModule::now();
  switch (kind) {
    case kTrained: {
      Cable& c = cables_.at(arg & 0xFFFFFFFF);
      if (!c.training || (arg >> 32) != c.generation) break;  // a fault cut this training short
      come_up(arg & 0xFFFFFFFF, now);
      break;
    }
    case kFaultDown: {
      Cable& c = cables_.at(arg);
      if (c.training) {
        c.training = false;
        ++c.generation;
      } else if (c.a->state() == PortState::kDown) {
        break;  // already down
      } else {
        c.a->link_down();
        c.b->link_down();
      }
      c.down_times.push_back(now);
      break;
    }
    case kFaultUp: {
      Cable& c = cables_.at(arg);
      if (c.training || c.a->state() != PortState::kDown) break;  // up, or on its way
      begin_training(arg, now);
      break;
    }
    default:
      break;
  }
}

}  // namespace ibfsim
