#include "sim/subnet_manager/routing/guid_list_file.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// strtoull(p, &end, 0) on [p, e) without overflow: the value and the characters used (0: none).
std::size_t read_number(std::string_view s, std::uint64_t& value) {
  std::size_t i = 0;
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s.size() > 2 &&
      std::isxdigit(static_cast<unsigned char>(s[2]))) {
    base = 16;
    i = 2;
  } else if (!s.empty() && s[0] == '0') {
    base = 8;
  }
  const std::size_t start = i;
  value = 0;
  for (; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a') + 10;
    else break;
    if (d >= base) break;
    if (value > (~std::uint64_t{0} - d) / base) return 0;  // beyond 64 bits
    value = value * base + d;
  }
  return i == start ? 0 : i;
}

}  // namespace

std::vector<Guid> parse_guid_list(std::string_view text, const std::string& source) {
  std::vector<Guid> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    std::size_t p = 0;
    while (p < line.size() && space(line[p])) ++p;
    if (p == line.size() || line[p] == '#') continue;
    std::uint64_t guid = 0;
    const std::size_t used = read_number(line.substr(p), guid);
    const std::size_t end = p + used;
    if (used == 0 || (end < line.size() && !space(line[end]) && line[end] != '#')) {
      std::size_t word = p;
      while (word < line.size() && !space(line[word])) ++word;
      throw InputError(fmt::format("{}:{}:{}: expected a GUID (0x followed by hex digits, or a decimal number), "
                                   "optionally followed by a name, got '{}'",
                                   source, line_no, p + 1, line.substr(p, word - p)));
    }
    out.push_back(guid);
  }
  if (out.empty()) throw InputError(fmt::format("{}: expected at least one GUID, got none", source));
  return out;
}

std::vector<Guid> read_guid_list_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: expected a readable GUID list file, cannot open it", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_guid_list(ss.str(), path);
}

}  // namespace ibfsim
