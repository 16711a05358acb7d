#include "sim/cli/cli_values.h"

#include <fmt/format.h>

#include <limits>

#include "sim/core/error.h"

namespace ibfsim {

std::uint64_t parse_seed_flag(const std::string& text) {
  const auto fail = [&]() -> std::uint64_t {
    throw InputError(fmt::format("--seed: expected an integer in 0..{}, got '{}'",
                                 std::numeric_limits<std::uint64_t>::max(), text));
  };
  std::string_view s = text;
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.size() > 20) return fail();
  std::uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return fail();
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) return fail();
    v = v * base + d;
  }
  return v;
}

}  // namespace ibfsim
