// Simulated time: an unsigned count of femtoseconds since the start of the run.
// SystemC runs at 1 fs resolution so that every Time maps onto an sc_time exactly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace sc_core { class sc_time; }

namespace ibfsim {

using Time = std::uint64_t;  // femtoseconds

constexpr Time kFs = 1;
constexpr Time kPs = 1000 * kFs;
constexpr Time kNs = 1000 * kPs;
constexpr Time kUs = 1000 * kNs;
constexpr Time kMs = 1000 * kUs;
constexpr Time kSec = 1000 * kMs;
constexpr Time kTimeNever = ~Time{0};

// Sets the SystemC time resolution to 1 fs. Must run before any sc_time is created; safe to call
// more than once.
void init_time_resolution();

sc_core::sc_time to_sc_time(Time t);
Time from_sc_time(const sc_core::sc_time& t);

// Parses "100ns", "2.5us", "1 ms", "750fs" (units fs, ps, ns, us, ms, s) exactly, without floating
// point. Throws std::invalid_argument with a message naming what was expected.
Time parse_duration(std::string_view text);

// "1.234567 us"-style text for humans; exact to the femtosecond.
std::string format_duration(Time t);

// Time in nanoseconds as a double, for reports only (never for further time arithmetic).
inline double to_ns(Time t) { return static_cast<double>(t) / static_cast<double>(kNs); }

}  // namespace ibfsim
