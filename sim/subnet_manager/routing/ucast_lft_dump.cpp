#include "sim/subnet_manager/routing/ucast_lft_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/hop_matrix.h"

namespace ibfsim {

namespace {

const char* node_type_str(const SubnetNode& n) { return n.is_switch() ? "Switch" : "Channel Adapter"; }

}  // namespace

void write_ucast_lft_dump(std::ostream& out, const SubnetGraph& g, const RoutingTables& t) {
  // LID -> owning port.
  std::vector<SubnetPortRef> owner(static_cast<std::size_t>(t.lft_top) + 1);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
      const LidRange r = g.nodes[n].ports[p].lids;
      if (!r.assigned()) continue;
      for (unsigned lid = r.first; lid <= r.last && lid <= t.lft_top; ++lid) owner[lid] = {n, static_cast<PortNum>(p)};
    }
  }
  const SwitchIndex sw(g);
  fmt::memory_buffer buf;
  for (std::size_t node : sw.node) {
    const SubnetNode& S = g.nodes[node];
    fmt::format_to(std::back_inserter(buf), "Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", t.lft_top,
                   S.ports[0].lids.first, S.node_guid, S.description);
    const auto& lft = t.lft[node];
    for (std::size_t lid = 0; lid <= t.lft_top; ++lid) {
      const PortNum port = lid < lft.size() ? lft[lid] : kNoRoute;
      if (port > S.num_ports()) continue;
      fmt::format_to(std::back_inserter(buf), "0x{:04x} {:03} # ", lid, port);
      if (owner[lid].valid()) {
        const SubnetNode& o = g.nodes[owner[lid].node];
        fmt::format_to(std::back_inserter(buf), "{} portguid 0x{:016x}: '{}'\n", node_type_str(o),
                       g.port_guid(owner[lid]), o.description);
      } else {
        fmt::format_to(std::back_inserter(buf), "unknown node and type\n");
      }
    }
    fmt::format_to(std::back_inserter(buf), "{} lids dumped\n", t.lft_top);
    // One switch at a time: a large fabric's dump runs to gigabytes.
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
}

std::vector<DumpedLft> parse_ucast_lft_dump(std::istream& in, const std::string& file_name) {
  static const std::regex header(
      R"(Unicast lids \[(?:0x)?[0-9a-fA-F]+-(0x[0-9a-fA-F]+|[0-9]+)\] of switch Lid ([0-9]+) guid (0x[0-9a-fA-F]+) \('?(.*?)'?\):\s*)");
  static const std::regex entry(R"((0x[0-9a-fA-F]+)\s+([0-9]+)\s*(?:[#:].*)?)");
  static const std::regex closing(R"(([0-9]+) (?:valid )?lids dumped\s*)");
  std::vector<DumpedLft> out;
  bool open = false;
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}:{}: expected {}, got '{}'", file_name, line_no, what, line));
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      if (open) fail("'N lids dumped' closing the previous switch");
      DumpedLft d;
      const std::string top = m[1].str();
      const unsigned long top_v = std::stoul(top, nullptr, top.rfind("0x", 0) == 0 ? 16 : 10);
      const unsigned long lid_v = std::stoul(m[2].str());
      if (top_v > kLidUnicastMax || lid_v > kLidUnicastMax) fail("LIDs of at most 0xBFFF");
      d.top = static_cast<Lid>(top_v);
      d.switch_lid = static_cast<Lid>(lid_v);
      d.switch_guid = std::stoull(m[3].str(), nullptr, 16);
      d.name = m[4].str();
      d.line = line_no;
      out.push_back(std::move(d));
      open = true;
    } else if (std::regex_match(line, m, entry)) {
      if (!open) fail("a 'Unicast lids [0-N] of switch ...' header before the first entry");
      const unsigned long lid = std::stoul(m[1].str(), nullptr, 16);
      const unsigned long port = std::stoul(m[2].str());
      if (lid > out.back().top) fail(fmt::format("a LID of at most the switch's top 0x{:04x}", out.back().top));
      if (port > 254) fail("an egress port of 0..254");
      out.back().entries.emplace_back(static_cast<Lid>(lid), static_cast<PortNum>(port));
    } else if (std::regex_match(line, m, closing)) {
      if (!open) fail("a switch header before 'lids dumped'");
      open = false;
    } else {
      fail("a 'Unicast lids' header, a '0xLLLL PPP' entry or 'N lids dumped'");
    }
  }
  if (open) {
    throw InputError(fmt::format("{}:{}: expected 'N lids dumped' closing the switch block of line {}, got the end of "
                                 "the file", file_name, line_no, out.back().line));
  }
  return out;
}

}  // namespace ibfsim
