#include "sim/workload/trace_replay_spec.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "sim/core/error.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/otf2_trace_reader.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

TraceReplaySpec parse_trace_replay(const YamlMap& m, const Scenario& s) {
  m.check_no_unknown_keys({"file", "ranks", "placement", "sl", "mtu"});
  TraceReplaySpec t;
  const YamlValue file = m.get("file");
  std::filesystem::path p = file.as<std::string>();
  if (p.is_relative()) p = std::filesystem::path(s.file).parent_path() / p;
  t.file = p.lexically_normal().string();
  if (!otf2_supported())
    file.fail("no trace (this ibfsim was built without OTF2: install libotf2-trace-dev and configure again)",
              "'" + t.file + "'");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(t.file, ec))
    file.fail("the path of an OTF2 archive's anchor file (NAME.otf2)", "'" + t.file + "' (no such file)");
  t.sl = m.optional_in_range<std::uint8_t>("sl", 0, 0, 15);
  if (auto v = m.find("mtu")) {
    t.mtu = v->as<std::uint32_t>();
    if (t.mtu != 256 && t.mtu != 512 && t.mtu != 1024 && t.mtu != 2048 && t.mtu != 4096)
      v->fail("256, 512, 1024, 2048 or 4096", std::to_string(t.mtu));
  }
  // Read and plan now: a bad trace is a located error of this key.
  MpiTrace trace;
  ReplayPlan plan;
  try {
    trace = read_otf2_trace(t.file);
    plan = plan_replay(trace);
    replay_timeline(plan, 0, t.file);  // a trace that deadlocks would never end
  } catch (const InputError& e) {
    file.fail("an MPI trace that can be replayed", e.what());
  }
  for (const ReplayMessage& msg : plan.messages)
    if (msg.bytes > 0x80000000ull)
      file.fail("messages of at most 2 GiB (an RC message's limit)",
                fmt::format("{} bytes from rank {} to rank {}", msg.bytes, msg.src, msg.dst));
  const std::size_t ranks = trace.ranks.size();
  if (m.has("ranks") && m.has("placement")) m.get("placement").fail("ranks or placement, not both", "both");
  if (auto v = m.find("ranks")) {
    std::set<std::string> seen;
    for (const YamlValue& h : v->as_list()) {
      const std::string name = h.as<std::string>();
      const auto n = s.topology.find_node(name);
      if (!n || s.topology.nodes[*n].type != NodeType::kHca) h.fail("the name of an HCA in " + s.topology_file, "'" + name + "'");
      if (!seen.insert(name).second) h.fail("each rank's HCA once", "'" + name + "' again");
      t.hosts.push_back(name);
    }
    if (t.hosts.size() != ranks)
      v->fail("one HCA per rank of the trace (" + std::to_string(ranks) + ")", std::to_string(t.hosts.size()));
  } else {
    // placement: linear (the default): rank i on the i-th HCA in declaration order.
    if (auto v = m.find("placement"); v && v->as<std::string>() != "linear") v->fail("linear", "'" + v->as<std::string>() + "'");
    const auto hcas = s.topology.hcas();
    if (hcas.size() < ranks)
      m.fail("a topology with an HCA per rank of the trace (" + std::to_string(ranks) + ")",
             std::to_string(hcas.size()) + " HCAs");
    for (std::size_t r = 0; r < ranks; ++r) t.hosts.push_back(s.topology.nodes[hcas[r]].name);
  }
  t.trace = std::make_shared<const MpiTrace>(std::move(trace));
  t.plan = std::make_shared<const ReplayPlan>(std::move(plan));
  return t;
}

}  // namespace ibfsim
