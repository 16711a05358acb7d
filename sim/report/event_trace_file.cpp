#include "sim/report/event_trace_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ibfsim {

EventTraceFile::EventTraceFile(const std::string& path) : guard_(path) {
  f_ = std::fopen(guard_.temp_path().c_str(), "w");
  if (!f_) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
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
  const bool ok = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok) throw std::runtime_error(fmt::format("cannot write {}: {}", guard_.path(), std::strerror(errno)));
  guard_.commit();
}

}  // namespace ibfsim
