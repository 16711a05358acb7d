#include "sim/fabric/net_file_reader.h"

namespace ibfsim {

std::optional<Guid> guid_from_ibnetdiscover_id(std::string_view id) {
  if (id.size() != 18 || (id[0] != 'S' && id[0] != 'H' && id[0] != 'R') || id[1] != '-') return std::nullopt;
  Guid g = 0;
  for (std::size_t i = 2; i < id.size(); ++i) {
    const int v = net_file::hex_value(id[i]);
    if (v < 0) return std::nullopt;
    g = (g << 4) | static_cast<unsigned>(v);
  }
  return g;
}

namespace net_file {

std::string shown(std::string_view s) {
  if (s.empty()) return "the end of the line";
  std::string out = "'";
  std::size_t n = 0;
  for (char c : s) {
    if (++n > 40) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out + "'";
}

namespace {

// "# "desc" enhanced port 0 lid 1 lmc 0": the description, as ibsim's parse_node_desc finds it.
std::string read_description(std::string_view comment) {
  std::size_t i = 1;  // past '#'
  while (i < comment.size() && is_space(comment[i])) ++i;
  comment.remove_prefix(std::min(i, comment.size()));
  if (!comment.empty() && comment[0] == '"') {
    const std::size_t close = comment.find('"', 1);
    return std::string(comment.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  std::size_t end = comment.size();
  for (std::string_view marker : {" enhanced port ", " base port ", " lid ", " lmc "}) {
    end = std::min(end, comment.find(marker));
  }
  std::string_view desc = comment.substr(0, end);
  while (!desc.empty() && is_space(desc.back())) desc.remove_suffix(1);
  return std::string(desc);
}

// The last WIDTHxSPEED token of a port line's comment after its last quoted string.
void read_comment_rate(const LineCursor& cur, std::string_view line_text, std::size_t comment_pos, PortLine& pl) {
  std::size_t start = comment_pos;
  const std::size_t last_quote = line_text.rfind('"');
  if (last_quote != std::string_view::npos && last_quote > comment_pos) start = last_quote + 1;
  std::size_t i = start;
  while (i < line_text.size()) {
    while (i < line_text.size() && is_space(line_text[i])) ++i;
    const std::size_t tok_start = i;
    while (i < line_text.size() && !is_space(line_text[i])) ++i;
    const std::string_view tok = line_text.substr(tok_start, i - tok_start);
    std::size_t d = 0;
    while (d < tok.size() && is_digit(tok[d])) ++d;
    if (d == 0 || d >= tok.size() || (tok[d] != 'x' && tok[d] != 'X')) continue;
    const auto width = parse_link_width(tok.substr(0, d));
    const auto speed = parse_link_speed(tok.substr(d + 1));
    const int col = static_cast<int>(tok_start) + 1;
    if (!width || !speed) cur.fail_at(col, kRateExpected, shown(tok));
    pl.rate = LinkRate{*speed, *width};
    pl.rate_col = col;
    pl.rate_text = std::string(tok);
  }
}

// ibsim's port options, PortInfo's encodings: w= LinkWidthEnabled (1 1x, 2 4x, 4 8x, 8 12x, 16 2x),
// s= LinkSpeedEnabled (1 SDR, 2 DDR, 4 QDR; ibsim reads 0 as QDR), e= LinkSpeedExtEnabled (1 FDR,
// 2 EDR, 4 HDR, 8 NDR). topology.h's WidthSet is w='s mask; its SpeedSet holds s= in bits 0-2 and
// e= in bits 4-7.
void read_option(LineCursor& cur, PortLine& pl) {
  const int col = cur.column();
  const char opt = cur.peek();
  static constexpr std::string_view kWhat = "a port option w=, s= or e= with a number, or a comment starting with '#'";
  if ((opt != 'w' && opt != 's' && opt != 'e') || cur.peek(1) != '=') cur.fail(kWhat);
  const std::string tok = cur.token();
  cur.seek(cur.pos() + 2);
  std::optional<std::uint64_t> v;
  if (cur.peek() == '0' && (cur.peek(1) == 'x' || cur.peek(1) == 'X')) {
    cur.seek(cur.pos() + 2);
    v = cur.read_hex();
  } else {
    v = cur.read_decimal();
  }
  if (!v || !(cur.at_end() || is_space(cur.peek()))) cur.fail_at(col, kWhat, tok);
  if (pl.options_col == 0) pl.options_col = col;
  auto mask = [&](std::uint64_t value, std::uint64_t max, std::string_view what) {
    if (value < 1 || value > max) cur.fail_at(col, fmt::format("{} in 1..{}", what, max), tok);
    return static_cast<std::uint8_t>(value);
  };
  if (opt == 'w') {
    pl.widths = mask(*v, 31, "an enabled-width mask w=");
  } else if (opt == 's') {
    pl.speeds = static_cast<SpeedSet>(pl.speeds.value_or(0) | mask(*v == 0 ? 4 : *v, 7, "an enabled-speed mask s="));
  } else {
    pl.speeds = static_cast<SpeedSet>(pl.speeds.value_or(0) | mask(*v, 15, "an extended-speed mask e=") << 4);
  }
}

// "[ext 3]" after a port number in `ibnetdiscover -g` output: skipped.
void skip_ext_port(LineCursor& cur) {
  if (!cur.rest_starts_with("[ext")) return;
  const std::size_t close = cur.rest().find(']');
  if (close == std::string_view::npos) cur.fail("']' closing '[ext N'");
  cur.seek(cur.pos() + close + 1);
}

// "(0002c903000a1b2d)": a port GUID, skipped.
void skip_port_guid(LineCursor& cur) {
  cur.skip_spaces();
  if (cur.peek() != '(') return;
  const std::size_t start = cur.pos();
  cur.consume('(');
  if (!cur.read_hex() || !cur.consume(')')) {
    cur.seek(start);
    cur.fail("a port GUID in parentheses, e.g. (2c903000a1b2d)");
  }
}

PortLine read_port_line(LineCursor& cur, const NodeRecord& node) {
  PortLine pl;
  pl.line = cur.line();
  cur.consume('[');
  const int port_col = cur.column();
  std::string_view digits;
  const auto port = cur.read_decimal(&digits);
  const std::string range = fmt::format("a port number of \"{}\" in 1..{}", node.id, node.num_ports);
  if (!port) cur.fail(range);
  if (*port < 1 || *port > node.num_ports) cur.fail_at(port_col, range, shown(digits));
  if (!cur.consume(']')) cur.fail("']' after the port number");
  pl.port = static_cast<unsigned>(*port);
  skip_ext_port(cur);
  skip_port_guid(cur);
  cur.skip_spaces();
  if (cur.peek() != '"') cur.fail("the quoted id of the node at the other end of the link");
  pl.remote_col = cur.column() + 1;
  pl.remote_id = std::string(cur.read_quoted("the remote node id"));
  if (pl.remote_id.empty()) cur.fail_at(pl.remote_col - 1, "the id of the node at the other end", "\"\"");
  if (cur.consume('[')) {
    pl.remote_port_col = cur.column();
    const auto rp = cur.read_decimal(&digits);
    if (!rp) cur.fail("the port number at the other end");
    if (*rp < 1 || *rp > kMaxPorts) {
      cur.fail_at(pl.remote_port_col, fmt::format("a port number at the other end in 1..{}", kMaxPorts), shown(digits));
    }
    if (!cur.consume(']')) cur.fail("']' after the port number at the other end");
    pl.remote_port = static_cast<unsigned>(*rp);
    skip_ext_port(cur);
  } else {
    pl.remote_port_col = cur.column();
  }
  skip_port_guid(cur);
  for (;;) {
    cur.skip_spaces();
    if (cur.at_end()) break;
    if (cur.peek() == '#') {  // the comment: its rate is read by the caller
      pl.comment_pos = cur.pos();
      break;
    }
    read_option(cur, pl);
  }
  return pl;
}

// The keyword a node header starts with, followed by a blank: "Switch", "Ca", "Hca" or "Rt" (a router).
std::optional<std::string_view> header_keyword(std::string_view line) {
  for (std::string_view kw : {"Switch", "Hca", "Ca", "Rt"}) {
    if (line.substr(0, kw.size()) == kw && line.size() > kw.size() && is_space(line[kw.size()])) return kw;
  }
  return std::nullopt;
}

// "switchguid=0x...", "caguid=0x...", "vendid=0x2c9", ...: the key, if the line is such an assignment.
std::optional<std::string_view> assignment_key(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] >= 'a' && line[i] <= 'z') ++i;
  if (i == 0 || i >= line.size() || (line[i] != '=' && line[i] != '+')) return std::nullopt;
  return line.substr(0, i);
}

struct GuidCounters {
  Guid hca_base = kIbsimFirstHcaGuid, hca_next = kIbsimFirstHcaGuid;
  Guid switch_base = kIbsimFirstSwitchGuid, switch_next = kIbsimFirstSwitchGuid;
  Guid router_base = kIbsimFirstRouterGuid, router_next = kIbsimFirstRouterGuid;
};

void read_guid_line(LineCursor& cur, std::string_view key, GuidCounters& g) {
  cur.seek(key.size());
  const bool relative = cur.peek() == '+';
  cur.seek(key.size() + 1);
  const int col = cur.column();
  std::optional<std::uint64_t> v;
  if (cur.peek() == '0' && (cur.peek(1) == 'x' || cur.peek(1) == 'X')) {
    cur.seek(cur.pos() + 2);
    v = cur.read_hex();
  } else {
    std::string_view digits;
    v = cur.read_decimal(&digits);
    if (v && digits.size() > 19) v.reset();
  }
  if (!v) {
    cur.seek(static_cast<std::size_t>(col - 1));
    cur.fail("a GUID, e.g. 0x0002c90300000001");
  }
  // The rest ("(port guid)", a -g chassis comment) is read over, as ibsim does.
  const bool is_switch = key == "switchguid", is_router = key == "rtguid";
  Guid& base = is_switch ? g.switch_base : is_router ? g.router_base : g.hca_base;
  Guid& next = is_switch ? g.switch_next : is_router ? g.router_next : g.hca_next;
  if (relative) {
    next = base + *v;
  } else {
    base = *v;
    next = *v;
  }
}

NodeRecord read_header(LineCursor& cur, std::string_view keyword, std::string_view line_text) {
  NodeRecord r;
  r.line = cur.line();
  r.type = keyword == "Switch" ? NodeType::kSwitch : keyword == "Rt" ? NodeType::kRouter : NodeType::kHca;
  cur.seek(keyword.size());
  cur.skip_spaces();
  const int count_col = cur.column();
  std::string_view digits;
  const auto count = cur.read_decimal(&digits);
  const std::string range = fmt::format("a port count in 1..{} after '{}'", kMaxPorts, keyword);
  if (!count) cur.fail(range);
  if (*count < 1 || *count > kMaxPorts) cur.fail_at(count_col, range, shown(digits));
  r.num_ports = static_cast<unsigned>(*count);
  cur.skip_spaces();
  if (cur.peek() != '"') cur.fail("a quoted node id, e.g. \"S-0002c90300000001\"");
  r.id_col = cur.column();
  r.id = std::string(cur.read_quoted("the node id"));
  if (r.id.empty()) cur.fail_at(r.id_col, "a node id", "\"\"");
  cur.skip_spaces();
  if (cur.at_end()) return r;
  if (cur.peek() != '#') cur.fail("a comment starting with '#' or the end of the line");
  r.description = read_description(line_text.substr(cur.pos()));
  return r;
}

}  // namespace

Records read_records(std::string_view text, const std::string& file_name, NetFileDialect dialect) {
  Records out;
  std::vector<NodeRecord>& records = out.nodes;
  std::unordered_map<std::string, std::size_t>& by_id = out.by_id;
  GuidCounters guids;
  NodeRecord* current = nullptr;  // the record whose port lines may follow

  int line_no = 0;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineCursor cur(line, file_name, line_no);

    if (!line.empty() && line[0] == '#') continue;  // comment; does not end a record
    std::size_t first = 0;
    while (first < line.size() && is_space(line[first])) ++first;
    if (first == line.size()) {  // blank: ends the record, as in ibsim
      current = nullptr;
      continue;
    }
    if (line[0] == '[') {
      if (!current) {
        cur.fail_at(1, "a port line right after its Switch or Ca header or its other port lines",
                    "one outside any node record");
      }
      PortLine pl = read_port_line(cur, *current);
      for (const PortLine& other : current->ports) {
        if (other.port == pl.port) {
          cur.fail_at(2, fmt::format("each port of \"{}\" listed once", current->id),
                      fmt::format("port {} again (first at line {})", pl.port, other.line));
        }
      }
      if (pl.comment_pos != std::string_view::npos) read_comment_rate(cur, line, pl.comment_pos, pl);
      if (dialect == NetFileDialect::kIbnetdiscover && !pl.rate) {
        cur.fail_at(static_cast<int>(line.size()) + 1,
                    "the link's width and speed (e.g. 4xEDR) at the end of the port line's comment", "none");
      }
      current->ports.push_back(std::move(pl));
      continue;
    }
    current = nullptr;
    if (line[0] == '@') cur.fail_at(1, "a port line starting with '['", "an ibsim alias line starting with '@' (not supported)");
    if (auto kw = header_keyword(line)) {
      NodeRecord r = read_header(cur, *kw, line);
      if (auto [it, fresh] = by_id.emplace(r.id, records.size()); !fresh) {
        cur.fail_at(r.id_col, "a node id that no earlier record uses",
                    fmt::format("\"{}\" again (first at line {})", r.id, records[it->second].line));
      }
      if (dialect == NetFileDialect::kIbnetdiscover) {
        const char letter = r.type == NodeType::kSwitch ? 'S' : r.type == NodeType::kRouter ? 'R' : 'H';
        if (!guid_from_ibnetdiscover_id(r.id) || r.id[0] != letter) {
          cur.fail_at(r.id_col,
                      fmt::format("an ibnetdiscover node id \"{}-\" followed by 16 hex digits", letter),
                      fmt::format("\"{}\"", r.id));
        }
      }
      if (r.type == NodeType::kSwitch) {
        r.counter_guid = guids.switch_next++;
      } else if (r.type == NodeType::kRouter) {
        r.counter_guid = guids.router_next;
        guids.router_next += r.num_ports + 1;
      } else {
        r.counter_guid = guids.hca_next;
        guids.hca_next += r.num_ports + 1;
      }
      records.push_back(std::move(r));
      current = &records.back();
      continue;
    }
    if (auto key = assignment_key(line)) {
      if (*key == "switchguid" || *key == "caguid" || *key == "hcaguids" || *key == "rtguid") {
        read_guid_line(cur, *key, guids);
        continue;
      }
      if (*key == "vendid" || *key == "devid" || *key == "sysimgguid") continue;  // not modelled
    }
    // `ibnetdiscover -g` grouping lines.
    if (line.substr(0, 8) == "Chassis " || line.substr(0, 17) == "Non-Chassis Nodes" || line.substr(0, 9) == "Hostname:") {
      continue;
    }
    cur.fail_at(1, "a Switch or Ca record, a port line, a GUID line (switchguid=, caguid=) or a comment",
                shown(line.substr(0, line.find_first_of(" \t"))));
  }
  if (records.empty()) {
    throw InputError(fmt::format("{}: expected at least one Switch or Ca record, got none", file_name));
  }
  return out;
}

LinkRate resolve_rate(const PortLine& a, const PortLine& b, const LineCursor& at_b, LinkRate fallback) {
  if (a.rate && b.rate) {
    if (a.rate->speed != b.rate->speed || a.rate->lanes != b.rate->lanes) {
      at_b.fail_at(b.rate_col, fmt::format("the rate the other end of the link gives ({} at line {})", a.rate_text, a.line),
                   shown(b.rate_text));
    }
    return *a.rate;
  }
  if (a.rate) return *a.rate;
  if (b.rate) return *b.rate;
  LinkRate r = fallback;
  if (a.widths || b.widths) {
    const auto best = best_width(static_cast<WidthSet>(a.widths.value_or(kAllWidths) & b.widths.value_or(kAllWidths)));
    if (!best) {
      at_b.fail_at(b.options_col, fmt::format("an enabled width in common with the other end (line {})", a.line),
                   "none in common");
    }
    r.lanes = *best;
  }
  if (a.speeds || b.speeds) {
    const auto best = best_speed(static_cast<SpeedSet>(a.speeds.value_or(kAllSpeeds) & b.speeds.value_or(kAllSpeeds)));
    if (!best) {
      at_b.fail_at(b.options_col, fmt::format("an enabled speed in common with the other end (line {})", a.line),
                   "none in common");
    }
    r.speed = *best;
  }
  return r;
}


}  // namespace net_file
}  // namespace ibfsim
