#include "sim/workload/intra_node_spec.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "sim/fabric/topology.h"
#include "sim/fabric/yaml_input.h"

namespace ibfsim {

namespace {

// "450GB/s", "112.5 GB/s" (10^9 bytes/s, as nccl-tests' GB/s) or "400Gb/s" (10^9 bits/s).
std::uint64_t read_bandwidth(const YamlValue& v) {
  static constexpr std::string_view kWhat = "a bandwidth in 0.001..100000 GB/s, e.g. 450GB/s or 400Gb/s";
  if (!v.is_scalar()) v.fail(kWhat);
  const std::string text = v.node().Scalar();
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  std::string unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(text.substr(0, end), &used);
    if (used != end) v.fail(kWhat);
  } catch (const std::exception&) {
    v.fail(kWhat);
  }
  if (unit == "Gb/s") value /= 8;
  else if (unit != "GB/s") v.fail(kWhat);
  if (!(value >= 0.001 && value <= 100000)) v.fail(kWhat);
  return static_cast<std::uint64_t>(std::llround(value * 1e9));
}

}  // namespace

Time IntraNodeSpec::serialization(std::uint64_t bytes) const {
  const unsigned __int128 fs = static_cast<unsigned __int128>(bytes) * 1'000'000'000'000'000ull;
  return static_cast<Time>((fs + bytes_per_second - 1) / bytes_per_second);
}

IntraNodeSpec parse_intra_node(const YamlValue& v, const Topology& topo) {
  const YamlMap m = v.as_map();
  m.check_no_unknown_keys({"bandwidth", "latency"});
  if (topo.servers.empty())
    v.fail("a topology that groups its HCAs into servers (topology `servers:`, or generate: rail_fat_tree) for "
           "intra_node",
           fmt::format("{}, which has none", topo.source_file));
  IntraNodeSpec s;
  if (auto b = m.find("bandwidth")) s.bytes_per_second = read_bandwidth(*b);
  s.latency = m.duration("latency", s.latency);
  return s;
}

}  // namespace ibfsim
