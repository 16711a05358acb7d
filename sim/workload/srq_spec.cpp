#include "sim/workload/srq_spec.h"

#include "sim/fabric/yaml_input.h"

namespace ibfsim {

SrqSpec parse_srq(const YamlMap& m) {
  m.check_no_unknown_keys({"max_wr", "limit"});
  SrqSpec s;
  s.max_wr = m.optional_in_range<std::uint32_t>("max_wr", s.max_wr, 1, 32768);
  s.limit = m.optional_in_range<std::uint32_t>("limit", s.limit, 0, s.max_wr - 1);
  return s;
}

}  // namespace ibfsim
