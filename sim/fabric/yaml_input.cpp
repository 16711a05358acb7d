#include "sim/fabric/yaml_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cctype>
#include <sstream>

#include "sim/core/error.h"
#include "sim/core/input_file.h"

namespace ibfsim {

namespace {

// yaml-cpp tags plain scalars "?" and quoted ones "!"; programmatic nodes have "". Only plain
// scalars may be read as numbers or booleans, as in YAML itself.
bool is_plain_scalar(const YAML::Node& node) {
  return node.IsScalar() && (node.Tag() == "?" || node.Tag().empty());
}

std::string quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "'";
}

// The nodes apply_override stored (and every node inside them), for is_override_value. A process
// applies a handful of --set overrides, so a list searched by identity is enough.
std::vector<YAML::Node>& override_nodes() {
  static std::vector<YAML::Node> nodes;
  return nodes;
}

YAML::Node remember_override(YAML::Node node) {
  override_nodes().push_back(node);
  return node;
}

// Copies a value parsed from a --set argument into fresh nodes, which carry no position: the
// parsed position (line 1 of the argument) would otherwise be reported as a line of the file.
YAML::Node without_marks(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node out(node.Scalar());
      out.SetTag(node.Tag());
      return remember_override(out);
    }
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& item : node) out.push_back(without_marks(item));
      return remember_override(out);
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : node) out[without_marks(kv.first)] = without_marks(kv.second);
      return remember_override(out);
    }
    default:
      return remember_override(YAML::Node(YAML::NodeType::Null));
  }
}

bool parse_index(std::string_view text, std::size_t& out) {
  if (text.empty() || text.size() > 9) return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path, const std::string& what) {
  return parse_yaml_text(read_input_file(path, what), path);
}

YAML::Node parse_yaml_text(const std::string& src, const std::string& path) {
  // One document only. yaml-cpp 0.7's LoadAll never returns on some inputs (a lone ',':
  // jbeder/yaml-cpp#1040), so the first document is read with Load and a second one is found by
  // its '---' marker: at column 0 after content, it always starts a new document.
  {
    std::istringstream lines(src);
    std::string line;
    bool content = false;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.rfind("---", 0) == 0 && (line.size() == 3 || std::isspace(static_cast<unsigned char>(line[3])))) {
        if (content)
          throw InputError(fmt::format("{}:{}:1: expected a single YAML document, got a second document after '---'",
                                       path, n));
        content = line.find_first_not_of(" \t", 3) != std::string::npos && line[line.find_first_not_of(" \t", 3)] != '#';
        continue;
      }
      const auto first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos && line[first] != '#' && line[first] != '%') content = true;
    }
  }
  try {
    return YAML::Load(src);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}:{}: expected valid YAML, got a syntax error: {}", path,
                                 e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

// ---- YamlValue ----

YamlValue::YamlValue(YAML::Node node, std::string file, std::optional<YAML::Mark> key_mark)
    : node_(std::move(node)), file_(std::move(file)), key_mark_(key_mark) {}

namespace {
YAML::Mark mark_of(const YAML::Node& node, const std::optional<YAML::Mark>& key_mark) {
  if (key_mark && (!node.IsDefined() || node.IsNull())) return *key_mark;
  if (!node.IsDefined()) return YAML::Mark::null_mark();
  return node.Mark();
}
}  // namespace

int YamlValue::line() const {
  YAML::Mark m = mark_of(node_, key_mark_);
  return m.is_null() ? 0 : m.line + 1;
}

int YamlValue::column() const {
  YAML::Mark m = mark_of(node_, key_mark_);
  return m.is_null() ? 0 : m.column + 1;
}

bool is_override_value(const YAML::Node& node) {
  if (!node.IsDefined()) return false;
  for (const YAML::Node& n : override_nodes())
    if (n.is(node)) return true;
  return false;
}

void forget_override_values() { override_nodes().clear(); }

std::string YamlValue::location() const {
  if (line() == 0) return is_override_value(node_) ? fmt::format("{} (--set on the command line)", file_) : file_;
  return fmt::format("{}:{}:{}", file_, line(), column());
}

void YamlValue::fail(std::string_view expected) const { fail(expected, describe()); }

void YamlValue::fail(std::string_view expected, std::string_view got) const {
  throw InputError(fmt::format("{}: expected {}, got {}", location(), expected, got));
}

std::string YamlValue::describe() const {
  if (!node_.IsDefined() || node_.IsNull()) return "an empty value";
  if (node_.IsMap()) return "a map";
  if (node_.IsSequence()) return "a list";
  if (!is_plain_scalar(node_)) return fmt::format("the string {}", quote(node_.Scalar()));
  return quote(node_.Scalar());
}

std::string YamlValue::as_string() const {
  if (!node_.IsScalar()) fail("a string");
  return node_.Scalar();
}

bool YamlValue::as_bool() const {
  if (is_plain_scalar(node_)) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  fail("true or false");
}

std::int64_t YamlValue::read_int64(std::int64_t lo, std::int64_t hi, bool show_range) const {
  const std::string in_range = fmt::format("an integer in {}..{}", lo, hi);
  const std::string what = show_range ? in_range : std::string("an integer");
  if (!is_plain_scalar(node_)) fail(what);
  std::string_view s = node_.Scalar();
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  // Reuse the unsigned reader on the magnitude, then apply the sign with the range check.
  const YamlValue magnitude(YAML::Node(std::string(s)), file_, key_mark_);
  std::uint64_t m = 0;
  try {
    m = magnitude.read_uint64(0, std::numeric_limits<std::uint64_t>::max(), false);
  } catch (const InputError&) {
    fail(what);
  }
  const std::uint64_t limit = negative ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1
                                       : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (m > limit) fail(in_range);
  const std::int64_t v = negative ? static_cast<std::int64_t>(0 - m) : static_cast<std::int64_t>(m);
  if (v < lo || v > hi) fail(in_range);
  return v;
}

std::uint64_t YamlValue::read_uint64(std::uint64_t lo, std::uint64_t hi, bool show_range) const {
  const std::string in_range = fmt::format("an integer in {}..{}", lo, hi);
  const std::string what = show_range ? in_range : std::string("a non-negative integer");
  if (!is_plain_scalar(node_)) fail(what);
  std::string_view s = node_.Scalar();
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) fail(what);
  std::uint64_t v = 0;
  bool overflow = false;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else fail(what);
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) overflow = true;
    v = v * base + d;
  }
  if (overflow || v < lo || v > hi) fail(in_range);
  return v;
}

double YamlValue::read_double(double lo, double hi, bool show_range) const {
  const std::string in_range = fmt::format("a number in {}..{}", lo, hi);
  const std::string what = show_range ? in_range : std::string("a number");
  if (!is_plain_scalar(node_)) fail(what);
  const std::string& s = node_.Scalar();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) fail(what);
  if (v < lo || v > hi) fail(in_range);
  return v;
}

Time YamlValue::as_duration() const {
  static constexpr std::string_view kWhat = "a duration with a unit (fs, ps, ns, us, ms, s), e.g. 100ns";
  if (!node_.IsScalar()) fail(kWhat);
  try {
    return parse_duration(node_.Scalar());
  } catch (const std::invalid_argument&) {
    fail(kWhat);
  }
}

YamlMap YamlValue::as_map() const {
  if (list_item_ && (!node_.IsDefined() || node_.IsNull())) {
    // An empty item has no position of its own (yaml-cpp gives it the next token's, which may be
    // past the end of the file): it is located at its list.
    const std::string where = list_mark_.is_null() ? location()
                                                    : fmt::format("{}:{}:{}", file_, list_mark_.line + 1, list_mark_.column + 1);
    throw InputError(fmt::format("{}: expected a map, got an empty list item (item {} of the list)", where, list_index_ + 1));
  }
  if (!node_.IsMap() && !node_.IsNull() && node_.IsDefined()) fail("a map");
  return YamlMap(node_, file_, key_mark_);
}

std::vector<YamlValue> YamlValue::as_list() const {
  std::vector<YamlValue> out;
  if (!node_.IsDefined() || node_.IsNull()) return out;
  if (!node_.IsSequence()) fail("a list");
  out.reserve(node_.size());
  for (const auto& item : node_) {
    out.emplace_back(item, file_);
    out.back().list_item_ = true;
    out.back().list_mark_ = node_.Mark();
    out.back().list_index_ = out.size() - 1;
  }
  return out;
}

// ---- YamlMap ----

YamlMap::YamlMap(YAML::Node node, std::string file, std::optional<YAML::Mark> fallback_mark)
    : node_(std::move(node)), file_(std::move(file)), fallback_mark_(fallback_mark) {
  if (!node_.IsDefined() || node_.IsNull()) {
    node_.reset(YAML::Node(YAML::NodeType::Map));  // reset: operator= would write into the document
    empty_value_ = true;
  } else if (!node_.IsMap()) {
    YamlValue(node_, file_).fail("a map");
  }
}

bool YamlMap::has(std::string_view key) const { return find(key).has_value(); }

std::optional<YamlValue> YamlMap::find(std::string_view key) const {
  // Linear scan rather than node_[key]: it keeps the key's position for empty values and never
  // inserts into the map.
  for (const auto& kv : node_) {
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      std::optional<YAML::Mark> key_mark;
      if (!kv.first.Mark().is_null()) key_mark = kv.first.Mark();
      return YamlValue(kv.second, file_, key_mark);
    }
  }
  return std::nullopt;
}

YamlValue YamlMap::get(std::string_view key) const {
  auto v = find(key);
  if (!v) fail(fmt::format("key '{}'", key), "a map without it");
  return *v;
}

YamlMap YamlMap::map(std::string_view key) const { return get(key).as_map(); }

YamlMap YamlMap::optional_map(std::string_view key) const {
  auto v = find(key);
  if (v) return v->as_map();
  std::optional<YAML::Mark> mark = fallback_mark_;
  if (!empty_value_ && !node_.Mark().is_null()) mark = node_.Mark();
  return YamlMap(YAML::Node(YAML::NodeType::Null), file_, mark);
}

std::vector<YamlValue> YamlMap::list(std::string_view key) const { return get(key).as_list(); }

std::vector<YamlValue> YamlMap::optional_list(std::string_view key) const {
  auto v = find(key);
  return v ? v->as_list() : std::vector<YamlValue>{};
}

void YamlMap::check_no_unknown_keys(std::initializer_list<std::string_view> allowed) const {
  check_no_unknown_keys(std::vector<std::string_view>(allowed));
}

void YamlMap::check_no_unknown_keys(const std::vector<std::string_view>& allowed) const {
  const std::string allowed_text = fmt::format("{}", fmt::join(allowed, ", "));
  std::vector<std::string> seen;
  for (const auto& kv : node_) {
    YamlValue key(kv.first, file_);
    if (!kv.first.IsScalar()) key.fail(fmt::format("one of the keys {}", allowed_text), "a key that is not a name");
    const std::string& name = kv.first.Scalar();
    bool known = false;
    for (std::string_view a : allowed) known = known || a == name;
    if (!known) key.fail(fmt::format("one of the keys {}", allowed_text), fmt::format("unknown key {}", quote(name)));
    for (const std::string& s : seen) {
      if (s == name) key.fail("each key once", fmt::format("{} a second time", quote(name)));
    }
    seen.push_back(name);
  }
}

// ---- --set overrides ----

std::pair<std::string, std::string> split_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(fmt::format("--set {}: expected KEY=VALUE, e.g. phases.0.duration=10us, got no {}",
                                 assignment, eq == 0 ? "key" : "'='"));
  }
  return {assignment.substr(0, eq), assignment.substr(eq + 1)};
}

void apply_override(YAML::Node root, const std::string& dotted_key, const std::string& value_text) {
  const std::string what = fmt::format("--set {}={}", dotted_key, value_text);
  auto fail = [&](std::string_view expected, std::string_view got) {
    throw InputError(fmt::format("{}: expected {}, got {}", what, expected, got));
  };

  YAML::Node value;
  try {
    value = without_marks(YAML::Load(value_text));
  } catch (const YAML::Exception& e) {
    fail("a YAML value such as 10, 2.5us, [1, 2] or {a: 1}", fmt::format("a syntax error: {}", e.msg));
  }

  std::vector<std::string> path;
  for (std::size_t start = 0;;) {
    const auto dot = dotted_key.find('.', start);
    path.push_back(dotted_key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& seg : path) {
    if (seg.empty()) fail("a dotted key such as a.b.c", fmt::format("an empty part in '{}'", dotted_key));
  }

  // Note: YAML::Node::operator= assigns through to the referenced node, so walking uses reset().
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  auto here = [&] { return walked.empty() ? std::string("the top level") : fmt::format("'{}'", walked); };
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string& seg = path[i];
    const bool last = i + 1 == path.size();
    if (cur.IsSequence()) {
      std::size_t index = 0;
      if (!parse_index(seg, index) || index >= cur.size()) {
        fail(cur.size() == 0 ? fmt::format("an existing element, but the list {} is empty", here())
                             : fmt::format("an index 0..{} into the list {}", cur.size() - 1, here()),
             fmt::format("'{}'", seg));
      }
      if (last) {
        cur[index] = value;
        return;
      }
      YAML::Node next = cur[index];
      cur.reset(next);
    } else if (cur.IsMap() || cur.IsNull() || !cur.IsDefined()) {
      if (last) {
        cur[seg] = value;
        return;
      }
      YAML::Node next = cur[seg];
      if (!next.IsDefined() || next.IsNull()) {
        cur[seg] = remember_override(YAML::Node(YAML::NodeType::Map));
        next.reset(cur[seg]);
      }
      cur.reset(next);
    } else {
      fail(fmt::format("{} to be a map or a list", here()), fmt::format("the scalar '{}'", cur.Scalar()));
    }
    walked += (walked.empty() ? "" : ".") + seg;
  }
}

}  // namespace ibfsim
