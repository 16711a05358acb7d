// `ibfsim run --event-trace FILE`: every event the simulation runs, one line each, in the order
// they run: its time, its name (the member function it calls, e.g. LinkPort::head_arrives), its
// target and its arguments (packets by id). For following a packet through the model by name
// (grep for its id) and for checking what ran when; meant for small scenarios (a line per event).
#pragma once
#include <cstdio>
#include <string>

#include "sim/core/calendar_process.h"
#include "sim/report/atomic_file.h"

namespace ibfsim {

class EventTraceFile : public EventTrace {
 public:
  // Opens the file (written under a temporary name, renamed by close()). Throws
  // std::runtime_error naming the path if it cannot be opened.
  explicit EventTraceFile(const std::string& path);
  ~EventTraceFile() override;
  EventTraceFile(const EventTraceFile&) = delete;
  EventTraceFile& operator=(const EventTraceFile&) = delete;

  void on_event(const Event& e) override;
  // Flushes and renames the file into place.
  void close();

 private:
  AtomicFileGuard guard_;
  std::FILE* f_ = nullptr;
};

}  // namespace ibfsim
