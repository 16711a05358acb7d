#include "sim/workload/cm_spec.h"

#include "sim/fabric/yaml_input.h"

namespace ibfsim {

CmAgentConfig CmSpec::agent_config() const {
  CmAgentConfig c;
  c.processing = processing;
  c.max_connections = max_connections;
  c.mra = mra;
  c.sa.timeout = sa_timeout;
  c.sa.retries = sa_retries;
  return c;
}

CmSpec parse_cm(const YamlMap& m) {
  m.check_no_unknown_keys({"processing", "response_timeout", "max_retries", "max_connections", "mra", "sa_timeout",
                           "sa_retries", "disconnect"});
  CmSpec c;
  if (auto v = m.find("processing")) {
    c.processing = v->as_duration();
    if (c.processing == 0) v->fail("a processing time longer than 0");
  }
  c.response_timeout = m.optional_in_range<std::uint8_t>("response_timeout", c.response_timeout, 0, 31);
  c.max_retries = m.optional_in_range<std::uint8_t>("max_retries", c.max_retries, 0, 15);
  c.max_connections = m.optional_in_range<unsigned>("max_connections", c.max_connections, 0, 1u << 24);
  c.mra = m.optional<bool>("mra", c.mra);
  if (auto v = m.find("sa_timeout")) {
    c.sa_timeout = v->as_duration();
    if (c.sa_timeout == 0) v->fail("a timeout longer than 0");
  }
  c.sa_retries = m.optional_in_range<unsigned>("sa_retries", c.sa_retries, 0, 100);
  c.disconnect = m.optional<bool>("disconnect", c.disconnect);
  return c;
}

void check_cm_flows(const std::vector<YamlMap>& verbs_maps, const std::vector<VerbsFlowSpec>& flows, bool in_band) {
  for (std::size_t i = 0; i < verbs_maps.size() && i < flows.size(); ++i)
    if (flows[i].connect == VerbsConnect::kCm && !in_band)
      verbs_maps[i].get("connect").fail("static with subnet_manager: static (connect: cm resolves its path with the "
                                        "SA of the in-band subnet manager)",
                                        "cm");
}

}  // namespace ibfsim
