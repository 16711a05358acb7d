#include "sim/report/event_trace_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sim/core/error.h"

namespace ibfsim {

EventTraceFile::EventTraceFile(const std::string& path) : guard_(path) {
  f_ = std::fopen(guard_.temp_path().c_str(), "w");
  if (!f_) throw OutputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  fmt::print(f_, "time_ns\tevent\ttarget\targuments\n");
}

EventTraceFile::~EventTraceFile() {
  if (f_) std::fclose(f_);
}

void EventTraceFile::on_event(const Event& e) {
  // Nanoseconds with every femtosecond: times are exact integers of fs.
  fmt::print(f_, "{}.{:06}\t{}\t{}\t{}\n", e.at / 1'000'000, e.at % 1'000'000, e.name(), e.target_name(), e.args_text());
}

void EventTraceFile::close() {
  if (!f_) return;
  // A failed buffered write sets the stream's error flag; fclose reports only the last flush.
  const bool write_failed = std::ferror(f_) != 0;
  const int write_errno = errno;
  const bool ok = std::fclose(f_) == 0 && !write_failed;
  f_ = nullptr;
  if (!ok)
    throw OutputError(fmt::format("cannot write '{}': {}", guard_.path(), std::strerror(write_failed ? write_errno : errno)));
  guard_.commit();
}

}  // namespace ibfsim
