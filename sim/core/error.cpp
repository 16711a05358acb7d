#include "sim/core/error.h"

#include <fmt/format.h>

namespace ibfsim {

void fail_invariant(const char* cond, const char* file, int line, const std::string& what) {
  throw SimError(fmt::format("simulation invariant broken: {} ({}:{}){}{}", cond, file, line,
                             what.empty() ? "" : ": ", what));
}

}  // namespace ibfsim
