#include "sim/report/time_text.h"

namespace ibfsim {

std::string ns_text(Time t) {
  const Time whole = t / kNs;
  const Time frac = t % kNs;  // femtoseconds, 6 decimal digits of a ns
  if (frac == 0) return std::to_string(whole);
  std::string digits = std::to_string(frac + kNs).substr(1);
  digits.erase(digits.find_last_not_of('0') + 1);
  return std::to_string(whole) + "." + digits;
}

}  // namespace ibfsim
