#include "sim/fabric/ibnetdiscover_format.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "sim/core/error.h"
#include "sim/fabric/static_routing.h"

namespace ibfsim {

namespace {

constexpr std::string_view kRateExpected =
    "a link rate WIDTHxSPEED, width 1, 2, 4, 8 or 12 and speed SDR, DDR, QDR, FDR10, FDR, EDR, HDR or NDR, "
    "e.g. 4xEDR";

// ibsim's GUID counters before any switchguid=/caguid= line (sim_net.c: absguids).
constexpr Guid kIbsimFirstHcaGuid = 0x100000;
constexpr Guid kIbsimFirstSwitchGuid = 0x200000;

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// How a piece of the input looks in the "got" part of a message: quoted, shortened, printable.
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

// One line of the file and a read position in it. Columns are 1-based byte offsets.
class LineCursor {
 public:
  LineCursor(std::string_view text, const std::string& file, int line) : text_(text), file_(file), line_(line) {}

  int line() const { return line_; }
  int column() const { return static_cast<int>(pos_) + 1; }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  std::string_view rest() const { return at_end() ? std::string_view() : text_.substr(pos_); }
  bool rest_starts_with(std::string_view s) const { return rest().substr(0, s.size()) == s; }
  void skip_spaces() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }
  bool consume(char c) {
    if (peek() != c || at_end()) return false;
    ++pos_;
    return true;
  }
  // The token at the read position (blanks skipped, up to the next blank), as a message shows it.
  std::string token() const {
    std::size_t start = pos_;
    while (start < text_.size() && is_space(text_[start])) ++start;
    std::size_t end = start;
    while (end < text_.size() && !is_space(text_[end])) ++end;
    return shown(start >= text_.size() ? std::string_view() : text_.substr(start, end - start));
  }

  [[noreturn]] void fail_at(int column, std::string_view expected, std::string_view got) const {
    throw InputError(fmt::format("{}:{}:{}: expected {}, got {}", file_, line_, column, expected, got));
  }
  [[noreturn]] void fail(std::string_view expected) const { fail_at(column(), expected, token()); }

  // Decimal digits; nullopt (nothing consumed) if there are none. Saturates far above any valid
  // value, so callers' range checks reject huge numbers; `digits` receives the text read.
  std::optional<std::uint64_t> read_decimal(std::string_view* digits = nullptr) {
    const std::size_t start = pos_;
    std::uint64_t v = 0;
    while (!at_end() && is_digit(text_[pos_])) {
      v = v > 1'000'000'000'000ull ? v : v * 10 + static_cast<unsigned>(text_[pos_] - '0');
      ++pos_;
    }
    if (digits) *digits = text_.substr(start, pos_ - start);
    if (pos_ == start) return std::nullopt;
    return v;
  }
  // Hex digits (no prefix), at most 16; nullopt (nothing consumed) if there are none or too many.
  std::optional<std::uint64_t> read_hex() {
    const std::size_t start = pos_;
    std::uint64_t v = 0;
    while (!at_end() && hex_value(text_[pos_]) >= 0) {
      v = (v << 4) | static_cast<unsigned>(hex_value(text_[pos_]));
      ++pos_;
    }
    if (pos_ == start || pos_ - start > 16) {
      pos_ = start;
      return std::nullopt;
    }
    return v;
  }
  // A '"'-delimited string (no escapes); the read position must be at the opening quote.
  std::string_view read_quoted(std::string_view what) {
    const int open_col = column();
    ++pos_;
    const std::size_t close = text_.find('"', pos_);
    if (close == std::string_view::npos) {
      fail_at(open_col, fmt::format("a closing '\"' after {}", what), "the end of the line");
    }
    const std::string_view s = text_.substr(pos_, close - pos_);
    pos_ = close + 1;
    return s;
  }

 private:
  std::string_view text_;
  const std::string& file_;
  int line_;
  std::size_t pos_ = 0;
};

// One port line: "[p] "remote-id"[rp] ... # ... 4xEDR".
struct PortLine {
  unsigned port = 0;
  int line = 0;
  std::string remote_id;
  int remote_col = 0;
  unsigned remote_port = 1;  // ibsim's default when "[rp]" is left out
  int remote_port_col = 0;
  std::optional<LinkRate> rate;  // from the comment's WIDTHxSPEED
  int rate_col = 0;
  std::string rate_text;
  // ibsim's w=, s=, e= options as the port's enabled sets (topology.h); nullopt when absent.
  std::optional<WidthSet> widths;
  std::optional<SpeedSet> speeds;
  int options_col = 0;
  std::size_t comment_pos = std::string_view::npos;  // where its '#' comment starts
};

struct NodeRecord {
  NodeType type = NodeType::kHca;
  unsigned num_ports = 0;
  std::string id;
  int id_col = 0;
  std::string description;
  int line = 0;
  Guid counter_guid = 0;  // what ibsim's GUID counters give this node
  std::vector<PortLine> ports;
};

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

// The keyword a node header starts with, followed by a blank: "Switch", "Ca", "Hca" or "Rt".
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
  if (key == "rtguid") return;
  const bool is_switch = key == "switchguid";
  Guid& base = is_switch ? g.switch_base : g.hca_base;
  Guid& next = is_switch ? g.switch_next : g.hca_next;
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
  if (keyword == "Rt") cur.fail_at(1, "a Switch or Ca record", "a router record 'Rt' (routers are not modelled)");
  r.type = keyword == "Switch" ? NodeType::kSwitch : NodeType::kHca;
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

// Cable rate from the two port lines of a link. Exact rates (from comments) must agree; ibsim's
// enabled sets give the highest width and speed both ends enable; unknown parts get `fallback`.
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

}  // namespace

std::optional<Guid> guid_from_ibnetdiscover_id(std::string_view id) {
  if (id.size() != 18 || (id[0] != 'S' && id[0] != 'H' && id[0] != 'R') || id[1] != '-') return std::nullopt;
  Guid g = 0;
  for (std::size_t i = 2; i < id.size(); ++i) {
    const int v = hex_value(id[i]);
    if (v < 0) return std::nullopt;
    g = (g << 4) | static_cast<unsigned>(v);
  }
  return g;
}

std::string node_name_from_description(std::string_view description) {
  while (!description.empty() && std::isspace(static_cast<unsigned char>(description.front()))) description.remove_prefix(1);
  while (!description.empty() && std::isspace(static_cast<unsigned char>(description.back()))) description.remove_suffix(1);
  std::string out;
  bool in_bad_run = false;
  for (char c : description) {
    const auto u = static_cast<unsigned char>(c);
    const bool ok = u > 0x20 && u < 0x7f && c != '/' && c != '"' && c != '#' && c != '@' && c != '=' && c != '\\';
    if (ok) {
      out += c;
      in_bad_run = false;
    } else if (!in_bad_run) {
      out += '_';
      in_bad_run = true;
    }
  }
  if (out.find_first_not_of('_') == std::string::npos) return "";
  return out;
}

std::vector<std::string> make_unique_names(std::vector<std::string> names) {
  std::unordered_set<std::string> used;
  used.reserve(names.size() * 2);
  for (std::string& n : names) {
    if (used.insert(n).second) continue;
    for (unsigned k = 2;; ++k) {
      std::string candidate = fmt::format("{}_{}", n, k);
      if (used.insert(candidate).second) {
        n = std::move(candidate);
        break;
      }
    }
  }
  return names;
}

std::vector<std::string> export_node_names(const Topology& topo) {
  std::vector<std::string> names;
  names.reserve(topo.nodes.size());
  for (const TopoNode& n : topo.nodes) {
    std::string name = node_name_from_description(n.name);
    if (name.empty()) name = fmt::format("{}-{:016x}", n.type == NodeType::kSwitch ? 'S' : 'H', n.guid);
    names.push_back(std::move(name));
  }
  return make_unique_names(std::move(names));
}

Topology parse_net_file(std::string_view text, const std::string& file_name, NetFileDialect dialect) {
  std::vector<NodeRecord> records;
  std::unordered_map<std::string, std::size_t> by_id;
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
        const char letter = r.type == NodeType::kSwitch ? 'S' : 'H';
        if (!guid_from_ibnetdiscover_id(r.id) || r.id[0] != letter) {
          cur.fail_at(r.id_col,
                      fmt::format("an ibnetdiscover node id \"{}-\" followed by 16 hex digits", letter),
                      fmt::format("\"{}\"", r.id));
        }
      }
      if (r.type == NodeType::kSwitch) {
        r.counter_guid = guids.switch_next++;
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

  // ---- nodes ----
  const TopologyDefaults defaults;
  Topology topo;
  topo.source_file = file_name;
  topo.propagation_per_m = defaults.propagation_per_m;
  std::vector<std::string> names;
  names.reserve(records.size());
  for (const NodeRecord& r : records) {
    std::string name = node_name_from_description(dialect == NetFileDialect::kIbnetdiscover ? r.description : r.id);
    if (name.empty()) name = node_name_from_description(r.id);
    if (name.empty()) name = fmt::format("node{}", &r - records.data() + 1);
    names.push_back(std::move(name));
  }
  names = make_unique_names(std::move(names));
  topo.nodes.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const NodeRecord& r = records[i];
    TopoNode n;
    n.name = names[i];
    n.type = r.type;
    n.num_ports = r.num_ports;
    n.guid = dialect == NetFileDialect::kIbnetdiscover ? *guid_from_ibnetdiscover_id(r.id) : r.counter_guid;
    const bool sw = r.type == NodeType::kSwitch;
    if (sw) n.switch_latency = defaults.switch_latency;
    n.rx_buffer_credits = sw ? defaults.switch_buffer_credits : defaults.hca_buffer_credits;
    n.op_vls = sw ? defaults.switch_vls : defaults.hca_vls;
    n.vl15_buffer_credits = sw ? defaults.switch_vl15_buffer_credits : defaults.hca_vl15_buffer_credits;
    // ibsim's w=/s=/e= options become the ports' enabled sets; ports without them enable all.
    for (const PortLine& pl : r.ports) {
      if (!pl.widths && !pl.speeds) continue;
      if (n.port_speeds.empty()) {
        n.port_speeds.assign(n.num_ports + 1, sw ? defaults.switch_speeds : defaults.hca_speeds);
        n.port_widths.assign(n.num_ports + 1, sw ? defaults.switch_widths : defaults.hca_widths);
      }
      if (pl.widths) n.port_widths[pl.port] = *pl.widths;
      if (pl.speeds) n.port_speeds[pl.port] = *pl.speeds;
    }
    n.mark = SourceMark{file_name, r.line, 1};
    topo.nodes.push_back(std::move(n));
  }

  // ---- links: every port line must be answered by the port it names ----
  // [node][port] -> index into records[node].ports
  std::vector<std::vector<int>> line_at(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    line_at[i].assign(records[i].num_ports + 1, -1);
    for (std::size_t k = 0; k < records[i].ports.size(); ++k) line_at[i][records[i].ports[k].port] = static_cast<int>(k);
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (const PortLine& pl : records[i].ports) {
      LineCursor cur(std::string_view(), file_name, pl.line);
      const auto it = by_id.find(pl.remote_id);
      if (it == by_id.end()) {
        cur.fail_at(pl.remote_col, "the id of a node that has a Switch or Ca record in this file",
                    fmt::format("\"{}\", which has none", pl.remote_id));
      }
      const std::size_t j = it->second;
      const NodeRecord& remote = records[j];
      if (pl.remote_port > remote.num_ports) {
        cur.fail_at(pl.remote_port_col, fmt::format("a port of \"{}\" in 1..{}", remote.id, remote.num_ports),
                    fmt::format("{}", pl.remote_port));
      }
      const int back_index = line_at[j][pl.remote_port];
      const std::string link = fmt::format("\"{}\"[{}] to list its link back to \"{}\"[{}]", remote.id,
                                           pl.remote_port, records[i].id, pl.port);
      if (back_index < 0) {
        cur.fail_at(1, link, fmt::format("no line for port {} in its record (line {})", pl.remote_port, remote.line));
      }
      const PortLine& back = remote.ports[static_cast<std::size_t>(back_index)];
      if (back.remote_id != records[i].id || back.remote_port != pl.port) {
        cur.fail_at(1, link, fmt::format("a link to \"{}\"[{}] at line {}", back.remote_id, back.remote_port, back.line));
      }
      if (back.line < pl.line) continue;  // the cable was made at the other end's line
      if (j == i && back.line == pl.line) {
        cur.fail_at(1, "a link between two different ports", fmt::format("port {} linked to itself", pl.port));
      }
      TopoCable c;
      c.node_a = i;
      c.port_a = pl.port;
      c.node_b = j;
      c.port_b = pl.remote_port;
      LineCursor at_back(std::string_view(), file_name, back.line);
      c.rate = resolve_rate(pl, back, at_back, defaults.link_rate);
      c.length_mm = defaults.link_length_mm;
      c.mark = SourceMark{file_name, pl.line, 1};
      topo.cables.push_back(c);
    }
  }
  validate_topology(topo);
  return topo;
}

Topology parse_ibnetdiscover(std::string_view text, const std::string& file_name) {
  return parse_net_file(text, file_name, NetFileDialect::kIbnetdiscover);
}

// ---- writing ----

std::string write_ibnetdiscover(const Topology& topo) {
  const StaticRouting routing = compute_static_routing(topo);
  const std::vector<std::string> names = export_node_names(topo);
  const auto cables_at = topo.port_cables();
  auto is_switch = [&](std::size_t n) { return topo.nodes[n].type == NodeType::kSwitch; };
  auto id = [&](std::size_t n) { return fmt::format("{}-{:016x}", is_switch(n) ? 'S' : 'H', topo.nodes[n].guid); };
  auto port_guid = [&](std::size_t n, unsigned p) { return topo.nodes[n].guid + (is_switch(n) ? 0 : p); };
  auto lid = [&](std::size_t n, unsigned p) { return routing.port_lid[n][is_switch(n) ? 0 : p]; };
  auto rate = [](const TopoCable& c) { return fmt::format("{}x{}", c.rate.lanes, c.rate.info().name); };

  std::string out = fmt::format("#\n# Topology file: generated by ibfsim {}\n#\n", IBFSIM_VERSION_STRING);
  const std::vector<std::size_t> hcas = topo.hcas();
  const std::vector<std::size_t> switches = topo.switches();
  if (!topo.nodes.empty()) {
    const std::size_t from = hcas.empty() ? switches.front() : hcas.front();
    out += fmt::format("# Initiated from node {:016x} port {:016x}\n", topo.nodes[from].guid,
                       port_guid(from, is_switch(from) ? 0 : 1));
  }
  auto ids_block = [&](std::size_t n) {
    out += fmt::format("\nvendid={:#x}\ndevid={:#x}\nsysimgguid={:#x}\n", kExportVendorId,
                       is_switch(n) ? kExportSwitchDeviceId : kExportHcaDeviceId, topo.nodes[n].guid);
  };
  for (std::size_t n : switches) {
    const TopoNode& node = topo.nodes[n];
    ids_block(n);
    out += fmt::format("switchguid={:#x}({:x})\n", node.guid, node.guid);
    out += fmt::format("Switch\t{} \"{}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0\n", node.num_ports, id(n), names[n],
                       lid(n, 0));
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cables_at[n][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[n][p]];
      const PortRef peer = c.far_end(n);
      out += fmt::format("[{}]\t\"{}\"[{}]", p, id(peer.node), peer.port);
      if (!is_switch(peer.node)) out += fmt::format("({:x}) ", port_guid(peer.node, peer.port));
      out += fmt::format("\t\t# \"{}\" lid {} {}\n", names[peer.node], lid(peer.node, peer.port), rate(c));
    }
  }
  for (std::size_t n : hcas) {
    const TopoNode& node = topo.nodes[n];
    ids_block(n);
    out += fmt::format("caguid={:#x}\n", node.guid);
    out += fmt::format("Ca\t{} \"{}\"\t\t# \"{}\"\n", node.num_ports, id(n), names[n]);
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cables_at[n][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[n][p]];
      const PortRef peer = c.far_end(n);
      out += fmt::format("[{}]({:x}) \t\"{}\"[{}]", p, port_guid(n, p), id(peer.node), peer.port);
      if (!is_switch(peer.node)) out += fmt::format(" ({:x}) ", port_guid(peer.node, peer.port));
      out += fmt::format("\t\t# lid {} lmc 0 \"{}\" lid {} {}\n", lid(n, p), names[peer.node],
                         lid(peer.node, peer.port), rate(c));
    }
  }
  return out;
}

}  // namespace ibfsim
