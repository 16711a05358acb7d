#include "sim/core/scheduled_module.h"

namespace ibfsim {

ScheduledModule::ScheduledModule(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  if (calendar_mode() == CalendarMode::kPerModule) {
    own_calendar_ = std::make_unique<CalendarProcess>("calendar");
    calendar_ = own_calendar_.get();
  } else {
    calendar_ = &CalendarProcess::shared();
  }
}

}  // namespace ibfsim
