#include "sim/workload/simulation_spec.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace ibfsim {

std::optional<unsigned> threads_from_text(const std::string& text) {
  if (text == "auto") return 0u;
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const unsigned long n = std::strtoul(text.c_str(), nullptr, 10);
  if (n < 1 || n > kMaxThreads) return std::nullopt;
  return static_cast<unsigned>(n);
}

unsigned resolve_threads(unsigned threads) {
  if (threads != 0) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : std::min(cores, kMaxThreads);
}

SimulationSpec parse_simulation(const YamlMap& m) {
  m.check_no_unknown_keys({"threads"});
  SimulationSpec s;
  if (auto v = m.find("threads")) {
    const std::string text = v->is_scalar() ? v->node().Scalar() : std::string();
    const auto t = threads_from_text(text);
    if (!t) v->fail("a number of threads from 1 to 1024, or auto");
    s.threads = *t;
  }
  return s;
}

}  // namespace ibfsim
