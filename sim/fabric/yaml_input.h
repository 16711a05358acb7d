// Strict reading of YAML input files (topologies, scenarios) on top of yaml-cpp.
//
// Every problem becomes an InputError whose message names where it is and what was wanted:
//   "topologies/x.yaml:12:5: expected an integer in 1..254, got '300'"
// Lines and columns are 1-based. Values created by a command-line --set have no position in the
// file; their messages read "FILE (--set on the command line): expected ...".
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

class YamlMap;

// Reads and parses one YAML file. A missing or unreadable file, a syntax error or more than one
// document is an InputError (with file:line:col for syntax errors). An empty file gives a null node.
// `what` names the file in messages ("a scenario file": "x: expected a scenario file, got a folder").
YAML::Node load_yaml_file(const std::string& path, const std::string& what = "a YAML file");
// The same for text already read from `path`.
YAML::Node parse_yaml_text(const std::string& text, const std::string& path);

// One YAML value together with the file it came from, so that it can report errors about itself.
// The typed accessors accept exactly what they name: an integer accessor rejects "1.5", a quoted
// '12' (quoting makes a string in YAML) and a map.
class YamlValue {
 public:
  // key_mark is where the value's key sits; it locates empty values (`key:`), whose own position
  // yaml-cpp puts at the start of the next token.
  YamlValue(YAML::Node node, std::string file, std::optional<YAML::Mark> key_mark = std::nullopt);

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  // 1-based position; 0 when unknown (values set on the command line).
  int line() const;
  int column() const;
  // "FILE:LINE:COL", or "FILE (--set on the command line)" when the position is unknown.
  std::string location() const;

  // Throws InputError "LOCATION: expected EXPECTED, got GOT"; GOT defaults to describe().
  [[noreturn]] void fail(std::string_view expected) const;
  [[noreturn]] void fail(std::string_view expected, std::string_view got) const;
  // How the value looks in the "got" part of a message: 'text', a map, a list, an empty value.
  std::string describe() const;

  bool is_null() const { return node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }

  // T is std::string, bool, an integer type or double. Integers are decimal or 0x hex.
  template <typename T>
  T as() const;
  // As as<T>(), then checks lo <= value <= hi.
  template <typename T>
  T as_in_range(T lo, T hi) const;
  // "100ns", "2.5 us": see parse_duration.
  Time as_duration() const;
  // A map (an empty value counts as an empty map, but an empty list item does not: `- ` in a list
  // of maps is a mistake, never an entry with every default).
  YamlMap as_map() const;
  // A list (an empty value counts as an empty list).
  std::vector<YamlValue> as_list() const;

  // Type-specific readers behind as<T>() and as_in_range<T>().
  std::string as_string() const;
  bool as_bool() const;
  std::int64_t as_int64(std::int64_t lo, std::int64_t hi) const { return read_int64(lo, hi, true); }
  std::uint64_t as_uint64(std::uint64_t lo, std::uint64_t hi) const { return read_uint64(lo, hi, true); }
  double as_double(double lo, double hi) const { return read_double(lo, hi, true); }

 private:
  // show_range: name lo..hi in every message; otherwise only when the value is out of range
  // (the range is then just the type's, and "an integer" says what to write).
  std::int64_t read_int64(std::int64_t lo, std::int64_t hi, bool show_range) const;
  std::uint64_t read_uint64(std::uint64_t lo, std::uint64_t hi, bool show_range) const;
  double read_double(double lo, double hi, bool show_range) const;

  YAML::Node node_;
  std::string file_;
  std::optional<YAML::Mark> key_mark_;
  bool list_item_ = false;  // an element of a list (as_list): its list and its place in it
  YAML::Mark list_mark_ = YAML::Mark::null_mark();
  std::size_t list_index_ = 0;
};

// A YAML map plus its file name: required and optional keys, typed values, and the check that
// no unknown key is present (the usual cause of a setting being silently ignored).
class YamlMap {
 public:
  // Throws InputError unless node is a map; an empty value is accepted as an empty map.
  // fallback_mark locates the map when it has no position of its own (an empty value, or an
  // absent optional_map), so that "missing key" errors still point into the file.
  YamlMap(YAML::Node node, std::string file, std::optional<YAML::Mark> fallback_mark = std::nullopt);

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  std::string location() const { return self().location(); }
  [[noreturn]] void fail(std::string_view expected, std::string_view got) const { self().fail(expected, got); }

  bool has(std::string_view key) const;
  // The value under key, if present.
  std::optional<YamlValue> find(std::string_view key) const;
  // The value under key; a missing key is an InputError at the map.
  YamlValue get(std::string_view key) const;

  template <typename T>
  T require(std::string_view key) const { return get(key).as<T>(); }
  template <typename T>
  T optional(std::string_view key, T default_value) const {
    auto v = find(key);
    return v ? v->as<T>() : default_value;
  }
  template <typename T>
  T require_in_range(std::string_view key, T lo, T hi) const { return get(key).as_in_range<T>(lo, hi); }
  template <typename T>
  T optional_in_range(std::string_view key, T default_value, T lo, T hi) const {
    auto v = find(key);
    return v ? v->as_in_range<T>(lo, hi) : default_value;
  }
  Time duration(std::string_view key) const { return get(key).as_duration(); }
  Time duration(std::string_view key, Time default_value) const {
    auto v = find(key);
    return v ? v->as_duration() : default_value;
  }
  YamlMap map(std::string_view key) const;
  // The map under key, or an empty map (located at this map) when the key is absent.
  YamlMap optional_map(std::string_view key) const;
  std::vector<YamlValue> list(std::string_view key) const;
  std::vector<YamlValue> optional_list(std::string_view key) const;

  // Every key must be a plain scalar from `allowed` and appear once. An unknown key is reported
  // at the key with the list of allowed ones:
  //   "f.yaml:3:5: expected one of the keys name, type, ports, got unknown key 'prots'"
  void check_no_unknown_keys(std::initializer_list<std::string_view> allowed) const;
  void check_no_unknown_keys(const std::vector<std::string_view>& allowed) const;

 private:
  // An empty value stands in as a null node, so that it is located by fallback_mark_.
  YamlValue self() const {
    return YamlValue(empty_value_ ? YAML::Node(YAML::NodeType::Null) : node_, file_, fallback_mark_);
  }

  YAML::Node node_;
  std::string file_;
  std::optional<YAML::Mark> fallback_mark_;
  bool empty_value_ = false;  // built from an empty value or an absent key
};

// Whether `node` was stored by apply_override (a --set value, or a part of one): such nodes carry
// no position, and their messages name the --set. Other nodes without a position (a value built
// in the program) are reported at the file alone.
bool is_override_value(const YAML::Node& node);
// Forgets every value apply_override stored (a process that applies overrides to many documents
// in turn, such as a fuzz target, would otherwise keep them all).
void forget_override_values();

// Implements `--set a.b.c=value`: parses value_text as a YAML scalar or flow value
// ("10", "2.5us", "[1, 2]", "{speed: HDR}") and stores it at the dotted path below root,
// creating missing map levels. A number selects a list element ("phases.0.duration"); it must
// name an existing element. Descending into a scalar, an out-of-range index or an empty path
// segment is an InputError naming the override. The stored value has no file position.
void apply_override(YAML::Node root, const std::string& dotted_key, const std::string& value_text);

// Splits "a.b.c=value" at the first '='; an argument without '=' or with an empty key is an
// InputError.
std::pair<std::string, std::string> split_override(const std::string& assignment);

// ---- template definitions ----

template <typename T>
T YamlValue::as() const {
  if constexpr (std::is_same_v<T, std::string>) {
    return as_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    return as_bool();
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(read_int64(std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), false));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(read_uint64(0, std::numeric_limits<T>::max(), false));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(read_double(std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max(), false));
  } else {
    static_assert(!sizeof(T), "YamlValue::as<T>: unsupported type");
  }
}

template <typename T>
T YamlValue::as_in_range(T lo, T hi) const {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_signed_v<T>) {
    return static_cast<T>(as_int64(lo, hi));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(as_uint64(lo, hi));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(as_double(lo, hi));
  } else {
    static_assert(!sizeof(T), "YamlValue::as_in_range<T>: only numbers have ranges");
  }
}

}  // namespace ibfsim
