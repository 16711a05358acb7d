#include "sim/workload/hca_model_spec.h"

#include "sim/fabric/topology.h"
#include "sim/fabric/yaml_input.h"

namespace ibfsim {

namespace {

HcaModelSettings parse_settings(const YamlMap& m, bool top) {
  std::vector<std::string_view> keys = {"doorbell_to_wire", "wire_to_completion", "pcie_gen",      "pcie_width",
                                        "pcie_max_payload", "pcie_unlimited",     "p_keys", "memory_keys",
                                        "rc_out_of_order"};
  if (top) keys.push_back("per_hca");
  m.check_no_unknown_keys(keys);
  HcaModelSettings s;
  if (auto v = m.find("doorbell_to_wire")) s.doorbell_to_wire = v->as_duration();
  if (auto v = m.find("wire_to_completion")) s.wire_to_completion = v->as_duration();
  if (auto v = m.find("pcie_gen")) s.pcie_gen = v->as_in_range<unsigned>(1, 5);
  if (auto v = m.find("pcie_width")) {
    s.pcie_width = v->as<unsigned>();
    if (*s.pcie_width != 1 && *s.pcie_width != 2 && *s.pcie_width != 4 && *s.pcie_width != 8 && *s.pcie_width != 16)
      v->fail("a PCIe link width: 1, 2, 4, 8 or 16");
  }
  if (auto v = m.find("pcie_max_payload")) {
    s.pcie_max_payload = v->as<unsigned>();
    const unsigned p = *s.pcie_max_payload;
    if (p < 128 || p > 4096 || (p & (p - 1)) != 0) v->fail("a PCIe Max_Payload_Size: 128, 256, 512, 1024, 2048 or 4096");
  }
  if (auto v = m.find("pcie_unlimited")) s.pcie_unlimited = v->as<bool>();
  if (auto v = m.find("rc_out_of_order")) s.rc_out_of_order = v->as<bool>();
  if (auto v = m.find("p_keys")) {
    const auto list = v->as_list();
    if (list.empty() || list.size() > 32) v->fail("a P_Key table of 1 to 32 entries", std::to_string(list.size()) + " entries");
    std::vector<std::uint16_t> keys;
    for (const YamlValue& k : list) keys.push_back(k.as_in_range<std::uint16_t>(0, 0xFFFF));
    s.p_keys = keys;
  }
  if (auto v = m.find("memory_keys")) {
    const std::string k = v->as<std::string>();
    if (k == "sequential") s.memory_keys = MemoryKeyMode::kSequential;
    else if (k == "key_byte") s.memory_keys = MemoryKeyMode::kKeyByte;
    else if (k == "random") s.memory_keys = MemoryKeyMode::kRandom;
    else v->fail("sequential, key_byte or random", "'" + k + "'");
  }
  return s;
}

}  // namespace

void HcaModelSettings::apply(HcaConfig& c) const {
  if (doorbell_to_wire) c.doorbell_to_wire = *doorbell_to_wire;
  if (wire_to_completion) c.wire_to_completion = *wire_to_completion;
  if (pcie_gen) c.host.pcie_gen = *pcie_gen;
  if (pcie_width) c.host.pcie_width = *pcie_width;
  if (pcie_max_payload) c.host.max_payload = *pcie_max_payload;
  if (pcie_unlimited) c.host.unlimited = *pcie_unlimited;
  if (p_keys) c.p_keys = *p_keys;
  if (memory_keys) c.memory_keys = *memory_keys;
  if (rc_out_of_order) c.rc_out_of_order = *rc_out_of_order;
}

void HcaModelSpec::apply(const std::string& hca, HcaConfig& c) const {
  all.apply(c);
  for (const auto& [name, s] : per_hca)
    if (name == hca) s.apply(c);
}

HcaModelSpec parse_hca_model(const YamlMap& m, const Topology& topo) {
  HcaModelSpec spec;
  spec.all = parse_settings(m, true);
  if (auto v = m.find("per_hca")) {
    YamlMap per = v->as_map();
    for (const auto& kv : per.node()) {
      const std::string name = kv.first.as<std::string>();
      const YamlValue where(kv.first, m.file());
      const auto n = topo.find_node(name);
      if (!n || topo.nodes[*n].type != NodeType::kHca) where.fail("the name of an HCA of the topology", "'" + name + "'");
      spec.per_hca.emplace_back(name, parse_settings(per.map(name), false));
    }
  }
  return spec;
}

}  // namespace ibfsim
