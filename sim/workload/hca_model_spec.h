// Scenario `hca_model:`: the HCA model's settings (HcaConfig in sim/transport/hca.h) for every HCA,
// with per-HCA overrides: pipeline latencies, the host interface (PCIe) and the P_Key table.
// Every key is documented in docs/scenario.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/transport/hca.h"

namespace ibfsim {

class YamlMap;
struct Topology;

// What a scenario sets; anything unset keeps HcaConfig's default.
struct HcaModelSettings {
  std::optional<Time> doorbell_to_wire, wire_to_completion;
  std::optional<unsigned> pcie_gen, pcie_width, pcie_max_payload;
  std::optional<bool> pcie_unlimited;
  std::optional<std::vector<std::uint16_t>> p_keys;
  std::optional<MemoryKeyMode> memory_keys;
  std::optional<bool> rc_out_of_order;
  void apply(HcaConfig& c) const;
};

struct HcaModelSpec {
  HcaModelSettings all;                                        // every HCA
  std::vector<std::pair<std::string, HcaModelSettings>> per_hca;  // then these, by HCA name
  // HcaConfig's defaults, then `all`, then the HCA's own settings.
  void apply(const std::string& hca, HcaConfig& c) const;
};

// Reads `hca_model:` (an empty map when absent); HCA names are checked against `topo`.
HcaModelSpec parse_hca_model(const YamlMap& m, const Topology& topo);

}  // namespace ibfsim
