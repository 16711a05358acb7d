#include "sim/report/progress_meter.h"

#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <algorithm>
#include <cmath>

namespace ibfsim {

std::string progress_wall_text(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:.0f} min", std::floor(s / 3600), std::floor(std::fmod(s, 3600) / 60));
}
// A duration to four significant digits at most: "388.8 us", "5.12 ms", "50 us".
std::string progress_duration(Time t) {
  struct U {
    Time scale;
    const char* name;
  };
  static const U units[] = {{kSec, "s"}, {kMs, "ms"}, {kUs, "us"}, {kNs, "ns"}, {kPs, "ps"}, {1, "fs"}};
  for (const U& u : units) {
    if (t >= u.scale || u.scale == 1) {
      const double v = static_cast<double>(t) / static_cast<double>(u.scale);
      std::string s = fmt::format("{:.{}f}", v, v >= 100 ? 1 : v >= 10 ? 2 : 3);
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s + " " + u.name;
    }
  }
  return "0 fs";
}

std::string progress_estimate(double f, double wall) {
  if (!(f > 0.001)) return "";
  return fmt::format(", about {} left", progress_wall_text(wall * (1 - std::min(f, 1.0)) / std::min(f, 1.0)));
}

namespace {
std::string wall_text(double s) { return progress_wall_text(s); }
std::string short_duration(Time t) { return progress_duration(t); }
std::string thousands(std::uint64_t n) { return progress_count(n); }
}  // namespace

std::string progress_count(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string results_progress_line(const std::string& file, unsigned index, unsigned of, std::uint64_t rows,
                                  std::uint64_t rows_of, double wall) {
  std::string s = fmt::format("results: writing {} ({} of {})", file, index, of);
  if (rows_of > 0)
    s += fmt::format(", {} of {} rows, wall {}", thousands(std::min(rows, rows_of)), thousands(rows_of), wall_text(wall));
  else
    s += fmt::format(", wall {}", wall_text(wall));
  return s;
}

std::string bring_up_progress_line(const BringUpProgress& p, double wall) {
  std::string s = "bring-up: " + (p.phase.empty() ? std::string("starting") : p.phase);
  if (p.nodes_expected > 0)
    s += fmt::format(", {} of {} nodes found", thousands(p.nodes_found), thousands(p.nodes_expected));
  else
    s += fmt::format(", {} nodes found", thousands(p.nodes_found));
  s += fmt::format(", {} SMPs asked for, simulated {}, wall {}", thousands(p.requests), short_duration(p.simulated),
                   wall_text(wall));
  if (p.requests_expected > 0) {
    // Never "0 s left" before the end: the estimate is of SMPs, and the last phases may take longer.
    const double f = std::min(0.99, static_cast<double>(p.requests) / static_cast<double>(p.requests_expected));
    s += progress_estimate(f, wall);
  }
  return s;
}

std::string progress_line(Time begin, Time now, Time end, double wall) {
  const Time done = now > begin ? now - begin : 0;
  if (end == kTimeNever) return fmt::format("bring-up: simulated {}, wall {}", short_duration(done), wall_text(wall));
  const Time total = end > begin ? end - begin : 0;
  std::string s = fmt::format("simulated {} of {}", short_duration(done), short_duration(total));
  if (total > 0) {
    const double f = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    s += fmt::format(" ({:.1f}%), wall {}", 100 * f, wall_text(wall));
    s += progress_estimate(f, wall);
  }
  return s;
}

ProgressMeter::ProgressMeter(Time begin, Time end, Time (*now)(), std::FILE* out, bool force)
    : ProgressMeter([begin, end, now](double wall) { return progress_line(begin, now(), end, wall); }, out, force) {}

ProgressMeter::ProgressMeter(std::function<std::string(double)> line, std::FILE* out, bool force)
    : line_(std::move(line)), out_(out) {
  if (force || isatty(fileno(out))) thread_ = std::thread([this] { loop(); });
}

ProgressMeter::~ProgressMeter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ProgressMeter::loop() {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  // Nothing during the first second; then a redraw every 250 ms.
  if (cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) return;
  do {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fputs(("\r\033[K" + line_(wall)).c_str(), out_);
    std::fflush(out_);
    drawn_ = true;
  } while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; }));
  if (drawn_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

}  // namespace ibfsim
