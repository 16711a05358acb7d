#include "sim/report/json_select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

}  // namespace

bool json_member_equals(const nlohmann::json& v, const std::string& text) {
  if (v.is_string()) return v.get<std::string>() == text;
  if (v.is_number()) {
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0' && v.get<double>() == d;
  }
  if (v.is_boolean()) return (text == "true") == v.get<bool>() && (text == "true" || text == "false");
  return false;
}

std::vector<JsonSelectorStep> parse_json_selector(const std::string& s, const std::string& what) {
  auto fail = [&](std::size_t at, const std::string& expected) {
    throw InputError(what + ": expected " + expected + " at character " + std::to_string(at + 1) + " of '" + s +
                     "' (a path such as flows[name=victim].throughput.accepted_payload_gbps)");
  };
  std::vector<JsonSelectorStep> steps;
  std::size_t i = 0;
  if (s.empty()) fail(0, "a member name");
  while (i < s.size()) {
    JsonSelectorStep st;
    const std::size_t b = i;
    while (i < s.size() && is_name_char(s[i])) ++i;
    st.member = s.substr(b, i - b);
    if (st.member.empty()) fail(i, "a member name");
    steps.push_back(st);
    while (i < s.size() && s[i] == '[') {
      const std::size_t close = s.find(']', i);
      if (close == std::string::npos) fail(i, "']'");
      const std::string inner = s.substr(i + 1, close - i - 1);
      JsonSelectorStep f;
      if (!inner.empty() && inner.find_first_not_of("0123456789") == std::string::npos) {
        f.index = std::stoul(inner);
      } else {
        std::size_t p = 0;
        while (p <= inner.size()) {
          const std::size_t comma = std::min(inner.find(',', p), inner.size());
          const std::string kv = inner.substr(p, comma - p);
          const std::size_t eq = kv.find('=');
          if (eq == std::string::npos || eq == 0) fail(i + 1 + p, "an index [N] or a filter [key=value,...]");
          f.match.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
          p = comma + 1;
        }
      }
      steps.push_back(f);
      i = close + 1;
    }
    if (i < s.size()) {
      if (s[i] != '.') fail(i, "'.' or '['");
      ++i;
      if (i == s.size()) fail(i, "a member name");
    }
  }
  return steps;
}

std::optional<double> json_select_number(const nlohmann::json& j, const std::vector<JsonSelectorStep>& steps) {
  const nlohmann::json* cur = &j;
  for (const JsonSelectorStep& st : steps) {
    if (!st.member.empty()) {
      if (!cur->is_object() || !cur->contains(st.member)) return std::nullopt;
      cur = &(*cur)[st.member];
    } else if (st.index) {
      if (!cur->is_array() || *st.index >= cur->size()) return std::nullopt;
      cur = &(*cur)[*st.index];
    } else {
      if (!cur->is_array()) return std::nullopt;
      const nlohmann::json* found = nullptr;
      for (const auto& e : *cur) {
        bool all = e.is_object();
        for (const auto& [k, v] : st.match) all = all && e.contains(k) && json_member_equals(e[k], v);
        if (all) {
          found = &e;
          break;
        }
      }
      if (!found) return std::nullopt;
      cur = found;
    }
  }
  if (!cur->is_number()) return std::nullopt;
  return cur->get<double>();
}

}  // namespace ibfsim
