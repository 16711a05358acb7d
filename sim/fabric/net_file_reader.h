// The line-level reader of net files: `ibnetdiscover` dumps and OFED ibsim net files (the same
// syntax; ibnetdiscover_format.h says what it looks like). It reads the node records and port lines
// as written, with their positions, and reports every malformed line as an InputError
// "FILE:LINE:COL: expected ..., got ...". Turning the records into a topology (names, GUIDs, links
// answered from both ends) is parse_net_file's (ibnetdiscover_format.h).
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/ids.h"
#include "sim/fabric/topology.h"

namespace ibfsim {

// Whose conventions a net file follows. Both tools read the same lines; they differ in how
// nodes get their names and GUIDs:
//   ibnetdiscover: ids are "S-"/"H-" + the node GUID in 16 hex digits, names come from the
//     descriptions, and every link must carry its rate (4xEDR).
//   ibsim: ids are free names (the node names), GUIDs come from ibsim's counters, which
//     `switchguid=` / `caguid=` lines set (as ibsim itself assigns them), rates may be absent.
enum class NetFileDialect { kIbnetdiscover, kIbsim };

// The GUID in an ibnetdiscover node id: 'S', 'H' or 'R', '-', then exactly 16 hex digits.
std::optional<Guid> guid_from_ibnetdiscover_id(std::string_view id);

namespace net_file {

inline constexpr std::string_view kRateExpected =
    "a link rate WIDTHxSPEED, width 1, 2, 4, 8 or 12 and speed SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR, "
    "e.g. 4xEDR";

// ibsim's GUID counters before any switchguid=/caguid= line (sim_net.c: absguids).
inline constexpr Guid kIbsimFirstHcaGuid = 0x100000;
inline constexpr Guid kIbsimFirstSwitchGuid = 0x200000;
// Routers before any rtguid= line: ibsim's counter starts at 0, which is no valid GUID; ibfsim
// starts them at 0x300000.
inline constexpr Guid kIbsimFirstRouterGuid = 0x300000;

inline bool is_space(char c) { return c == ' ' || c == '\t'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// How a piece of the input looks in the "got" part of a message: quoted, shortened, printable.
std::string shown(std::string_view s);



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

// Every record of a file, in order, and each node id's record.
struct Records {
  std::vector<NodeRecord> nodes;
  std::unordered_map<std::string, std::size_t> by_id;
};

// Reads the whole file; at least one record.
Records read_records(std::string_view text, const std::string& file_name, NetFileDialect dialect);

// Cable rate from the two port lines of a link. Exact rates (from comments) must agree; ibsim's
// enabled sets give the highest width and speed both ends enable; unknown parts get `fallback`.
LinkRate resolve_rate(const PortLine& a, const PortLine& b, const LineCursor& at_b, LinkRate fallback);

}  // namespace net_file
}  // namespace ibfsim
