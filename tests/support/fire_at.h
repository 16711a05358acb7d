// Tests schedule their own probes and stimuli as events (sim/core/event.h): a test object with a
// `void fire()` member runs it at a simulated time on a module's calendar.
#pragma once
#include "sim/core/scheduled_module.h"

namespace ibfsim::test {

template <class T>
void fire_at(ScheduledModule& module, Time at, T* probe) {
  module.schedule<&T::fire>(at, probe);
}

}  // namespace ibfsim::test
