#include "sim/fabric/topology_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/input_file.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/ibsim_format.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/fabric/yaml_input.h"

namespace ibfsim {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// "Switch", "Ca", "Hca" or "Rt", then blanks, then a digit: a node header.
bool is_header(std::string_view line, std::string_view* id = nullptr) {
  for (std::string_view kw : {"Switch", "Hca", "Ca", "Rt"}) {
    if (line.substr(0, kw.size()) != kw) continue;
    std::size_t i = kw.size();
    if (i >= line.size() || !is_blank(line[i])) continue;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size() || line[i] < '0' || line[i] > '9') continue;
    if (id) {
      const std::size_t open = line.find('"', i);
      const std::size_t close = open == std::string_view::npos ? open : line.find('"', open + 1);
      *id = close == std::string_view::npos ? std::string_view() : line.substr(open + 1, close - open - 1);
    }
    return true;
  }
  return false;
}

bool is_net_assignment(std::string_view line) {
  for (std::string_view key : {"vendid", "devid", "sysimgguid", "switchguid", "caguid", "hcaguids", "rtguid"}) {
    if (line.size() > key.size() && line.substr(0, key.size()) == key &&
        (line[key.size()] == '=' || line[key.size()] == '+')) {
      return true;
    }
  }
  return false;
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!f(line)) return;
    start = end + 1;
  }
}

}  // namespace

const char* topology_format_name(TopologyFormat f) {
  switch (f) {
    case TopologyFormat::kYaml: return "YAML";
    case TopologyFormat::kIbnetdiscover: return "ibnetdiscover";
    case TopologyFormat::kIbsim: return "ibsim";
  }
  return "?";
}

TopologyFormat detect_topology_format(std::string_view text) {
  bool net = false;
  for_each_line(text, [&](std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') return true;  // keep looking
    net = is_header(line) || is_net_assignment(line);
    return false;
  });
  if (!net) return TopologyFormat::kYaml;
  bool all_ibnetdiscover = true;
  for_each_line(text, [&](std::string_view line) {
    std::string_view id;
    if (is_header(line, &id) && !guid_from_ibnetdiscover_id(id)) all_ibnetdiscover = false;
    return all_ibnetdiscover;
  });
  return all_ibnetdiscover ? TopologyFormat::kIbnetdiscover : TopologyFormat::kIbsim;
}

Topology load_topology_file(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
                            TopologyFormat* format) {
  if (overrides.empty()) return load_topology_file(path, format);
  const TopologyFormat f =
      detect_topology_format(read_input_file(path, "a topology file (YAML, ibnetdiscover or ibsim)"));
  if (format) *format = f;
  YAML::Node root;
  // A net file becomes the YAML `ibfsim topo --yaml` writes, whose keys the overrides name.
  root = f == TopologyFormat::kYaml ? load_yaml_file(path) : YAML::Load(write_topology_yaml(load_topology_file(path)));
  for (const auto& [key, value] : overrides) apply_override(root, key, value);
  return parse_topology(root, path);
}

Topology load_topology_file(const std::string& path, TopologyFormat* format) {
  // A folder, a device or an endless pipe is refused here, before any format is guessed.
  const std::string text = read_input_file(path, "a topology file (YAML, ibnetdiscover or ibsim)");
  const TopologyFormat f = detect_topology_format(text);
  if (format) *format = f;
  switch (f) {
    case TopologyFormat::kIbnetdiscover: return parse_ibnetdiscover(text, path);
    case TopologyFormat::kIbsim: return parse_ibsim(text, path);
    case TopologyFormat::kYaml: break;
  }
  return parse_topology(parse_yaml_text(text, path), path);
}

}  // namespace ibfsim
