#include "sim/subnet_manager/routing/ucast_lft_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <regex>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/hop_matrix.h"

namespace ibfsim {

namespace {

const char* node_type_str(const SubnetNode& n) {
  return n.is_switch() ? "Switch" : n.kind == SubnetNodeKind::kRouter ? "Router" : "Channel Adapter";
}

}  // namespace

std::vector<SubnetPortRef> lid_owners(const SubnetGraph& g, Lid top) {
  std::vector<SubnetPortRef> owner(static_cast<std::size_t>(top) + 1);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
      const LidRange r = g.nodes[n].ports[p].lids;
      if (!r.assigned()) continue;
      for (unsigned lid = r.first; lid <= r.last && lid <= top; ++lid) owner[lid] = {n, static_cast<PortNum>(p)};
    }
  }
  return owner;
}

std::string describe_lid_owner(const SubnetGraph& g, SubnetPortRef owner) {
  if (!owner.valid()) return "unknown node and type";
  const SubnetNode& o = g.nodes[owner.node];
  return fmt::format("{} portguid 0x{:016x}: '{}'", node_type_str(o), g.port_guid(owner), o.description);
}

void write_ucast_lft_dump(std::ostream& out, const SubnetGraph& g, const RoutingTables& t) {
  const std::vector<SubnetPortRef> owner = lid_owners(g, t.lft_top);
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
      fmt::format_to(std::back_inserter(buf), "0x{:04x} {:03} # {}\n", lid, port, describe_lid_owner(g, owner[lid]));
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
  // The regexes admit any number of digits: one too long for 64 bits is an error, not a wrap.
  auto number = [&](const std::string& digits, int base, const std::string& what) -> unsigned long long {
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(digits.c_str(), &end, base);
    if (errno == ERANGE || end == digits.c_str()) fail(what);
    return v;
  };
  std::vector<int> seen;  // [LID]: the line of its entry in the open block, 0 for none
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // std::regex matches recursively, a frame per character: a line of megabytes would overflow
    // the stack. No line of a dump comes near this (a node description is at most 64 bytes).
    if (line.size() > 4096) {
      line = line.substr(0, 40) + "...";
      fail("a line of at most 4096 characters");
    }
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      if (open) fail("'N lids dumped' closing the previous switch");
      DumpedLft d;
      const std::string top = m[1].str();
      const unsigned long long top_v = number(top, top.rfind("0x", 0) == 0 ? 16 : 10, "LIDs of at most 0xBFFF");
      const unsigned long long lid_v = number(m[2].str(), 10, "LIDs of at most 0xBFFF");
      if (top_v > kLidUnicastMax || lid_v > kLidUnicastMax) fail("LIDs of at most 0xBFFF");
      d.top = static_cast<Lid>(top_v);
      d.switch_lid = static_cast<Lid>(lid_v);
      d.switch_guid = number(m[3].str(), 16, "a 64-bit switch GUID");
      d.name = m[4].str();
      d.line = line_no;
      for (const DumpedLft& other : out)
        if (other.switch_guid == d.switch_guid)
          fail(fmt::format("each switch once (switch 0x{:016x} already has the block of line {})", d.switch_guid,
                           other.line));
      seen.assign(static_cast<std::size_t>(d.top) + 1, 0);
      out.push_back(std::move(d));
      open = true;
    } else if (std::regex_match(line, m, entry)) {
      if (!open) fail("a 'Unicast lids [0-N] of switch ...' header before the first entry");
      const unsigned long long lid = number(m[1].str(), 16, fmt::format("a LID of at most the switch's top 0x{:04x}", out.back().top));
      const unsigned long long port = number(m[2].str(), 10, "an egress port of 0..254");
      if (lid > out.back().top) fail(fmt::format("a LID of at most the switch's top 0x{:04x}", out.back().top));
      if (port > 254) fail("an egress port of 0..254");
      // A second route for the same LID would silently replace the first.
      if (seen[lid] != 0)
        fail(fmt::format("each LID once per switch (LID 0x{:04x} of switch 0x{:016x} already routed at line {})", lid,
                         out.back().switch_guid, seen[lid]));
      seen[lid] = line_no;
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
