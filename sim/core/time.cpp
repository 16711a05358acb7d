#include "sim/core/time.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>
#include <systemc>

namespace ibfsim {

void init_time_resolution() {
  static bool done = false;
  if (done) return;
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  done = true;
}

sc_core::sc_time to_sc_time(Time t) { return sc_core::sc_time::from_value(t); }

Time from_sc_time(const sc_core::sc_time& t) { return t.value(); }

Time parse_duration(std::string_view text) {
  const std::string original(text);
  auto fail = [&]() -> Time {
    throw std::invalid_argument(fmt::format(
        "'{}' is not a duration: expected a number and a unit (fs, ps, ns, us, ms, s), e.g. 100ns",
        original));
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  unsigned __int128 whole = 0;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
    ++i, ++digits;
    if (whole > (static_cast<unsigned __int128>(1) << 64)) fail();
  }
  std::string frac;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) frac += text[i++];
  }
  if (digits == 0 && frac.empty()) fail();
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string_view unit = text.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.remove_suffix(1);
  Time scale = 0;
  if (unit == "fs") scale = kFs;
  else if (unit == "ps") scale = kPs;
  else if (unit == "ns") scale = kNs;
  else if (unit == "us") scale = kUs;
  else if (unit == "ms") scale = kMs;
  else if (unit == "s") scale = kSec;
  else fail();
  unsigned __int128 value = whole * scale;
  Time frac_scale = scale;
  for (char c : frac) {
    if (frac_scale == 1) {
      if (c != '0') {
        throw std::invalid_argument(
            fmt::format("'{}' is finer than the 1 fs resolution of simulated time", original));
      }
      continue;
    }
    frac_scale /= 10;
    value += static_cast<unsigned>(c - '0') * frac_scale;
  }
  if (value > ~Time{0} - 1) fail();
  return static_cast<Time>(value);
}

std::string format_duration(Time t) {
  if (t == kTimeNever) return "never";
  struct U { Time scale; const char* name; };
  static const U units[] = {{kSec, "s"}, {kMs, "ms"}, {kUs, "us"}, {kNs, "ns"}, {kPs, "ps"}};
  for (const U& u : units) {
    if (t >= u.scale) {
      Time whole = t / u.scale, rest = t % u.scale;
      if (rest == 0) return fmt::format("{} {}", whole, u.name);
      std::string frac = fmt::format("{}", rest + u.scale).substr(1);  // zero-padded
      while (!frac.empty() && frac.back() == '0') frac.pop_back();
      return fmt::format("{}.{} {}", whole, frac, u.name);
    }
  }
  return fmt::format("{} fs", t);
}

}  // namespace ibfsim
