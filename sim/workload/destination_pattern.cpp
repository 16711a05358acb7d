#include "sim/workload/destination_pattern.h"

#include <algorithm>
#include <utility>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
struct NamedPattern {
  PatternKind kind;
  const char* name;
};
constexpr NamedPattern kPatterns[] = {
    {PatternKind::kUniform, "uniform"},
    {PatternKind::kPermutation, "permutation"},
    {PatternKind::kShift, "shift"},
    {PatternKind::kTranspose, "transpose"},
    {PatternKind::kBitComplement, "bit_complement"},
    {PatternKind::kTornado, "tornado"},
    {PatternKind::kHotspot, "hotspot"},
    {PatternKind::kIncast, "incast"},
    {PatternKind::kAllToAll, "all_to_all"},
    {PatternKind::kRingAllreduce, "ring_allreduce"},
    {PatternKind::kAllToAllRounds, "all_to_all_rounds"},
};
}  // namespace

const char* pattern_name(PatternKind k) {
  for (const auto& p : kPatterns)
    if (p.kind == k) return p.name;
  return "?";
}

std::optional<PatternKind> pattern_from_name(const std::string& name) {
  for (const auto& p : kPatterns)
    if (name == p.name) return p.kind;
  return std::nullopt;
}

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

std::size_t exact_square_root(std::size_t n) {
  std::size_t k = 0;
  while ((k + 1) * (k + 1) <= n) ++k;
  return k * k == n ? k : 0;
}

std::size_t shift_destination(std::size_t src, std::size_t n, std::int64_t k) {
  IBFSIM_CHECK(n > 0 && src < n, "shift: host out of range");
  const auto sn = static_cast<std::int64_t>(n);
  const std::int64_t m = ((k % sn) + sn) % sn;
  return static_cast<std::size_t>((static_cast<std::int64_t>(src) + m) % sn);
}

std::size_t transpose_destination(std::size_t src, std::size_t n) {
  const std::size_t k = exact_square_root(n);
  IBFSIM_CHECK(k != 0 && src < n, "transpose: needs a square number of hosts");
  return (src % k) * k + src / k;
}

std::size_t bit_complement_destination(std::size_t src, std::size_t n) {
  IBFSIM_CHECK(is_power_of_two(n) && src < n, "bit complement: needs a power-of-two number of hosts");
  return ~src & (n - 1);
}

std::size_t tornado_destination(std::size_t src, const std::vector<std::size_t>& dims, std::size_t hosts_per_switch) {
  std::size_t switches = 1;
  for (std::size_t d : dims) switches *= d;
  IBFSIM_CHECK(!dims.empty() && hosts_per_switch > 0 && src < switches * hosts_per_switch, "tornado: host out of range");
  const std::size_t slot = src % hosts_per_switch;
  std::size_t s = src / hosts_per_switch;
  // Mixed radix, the last coordinate least significant.
  std::size_t dest = 0, weight = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    const std::size_t d = dims[i];
    const std::size_t c = s % d;
    s /= d;
    dest += ((c + (d - 1) / 2) % d) * weight;  // (d-1)/2 == ceil(d/2) - 1
    weight *= d;
  }
  return dest * hosts_per_switch + slot;
}

std::size_t all_to_all_destination(std::size_t src, std::size_t n, std::uint64_t message_index) {
  IBFSIM_CHECK(n >= 2 && src < n, "all-to-all: needs two hosts");
  return (src + 1 + static_cast<std::size_t>(message_index % (n - 1))) % n;
}

std::vector<std::size_t> random_derangement(std::size_t n, RngStream& rng) {
  IBFSIM_CHECK(n >= 2, "a derangement needs two hosts");
  std::vector<std::size_t> p(n);
  for (;;) {
    for (std::size_t i = 0; i < n; ++i) p[i] = i;
    for (std::size_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
    bool fixed_point = false;
    for (std::size_t i = 0; i < n && !fixed_point; ++i) fixed_point = p[i] == i;
    if (!fixed_point) return p;
  }
}

DestinationPattern::DestinationPattern(const DestinationPatternSpec& spec, std::size_t n, RngStream permutation_rng)
    : spec_(spec), n_(n) {
  IBFSIM_CHECK(n >= 2, "a traffic pattern needs two hosts");
  if (spec_.kind == PatternKind::kPermutation) perm_ = random_derangement(n, permutation_rng);
  if (spec_.kind == PatternKind::kHotspot) {
    hot_.assign(n, false);
    for (std::size_t h : spec_.hotspots) {
      IBFSIM_CHECK(h < n, "hotspot out of range");
      hot_[h] = true;
    }
  }
  if (spec_.kind == PatternKind::kTornado && spec_.dims.empty()) spec_.dims = {n};
}

std::optional<std::size_t> DestinationPattern::fixed(std::size_t src) const {
  switch (spec_.kind) {
    case PatternKind::kPermutation: return perm_[src];
    case PatternKind::kShift: return shift_destination(src, n_, spec_.shift);
    case PatternKind::kTranspose: return transpose_destination(src, n_);
    case PatternKind::kBitComplement: return bit_complement_destination(src, n_);
    case PatternKind::kTornado: {
      std::size_t switches = 1;
      for (std::size_t d : spec_.dims) switches *= d;
      return tornado_destination(src, spec_.dims, n_ / switches);
    }
    case PatternKind::kIncast: return spec_.target;
    default: return std::nullopt;
  }
}

bool DestinationPattern::sends(std::size_t src) const {
  const auto f = fixed(src);
  return !f || *f != src;
}

std::size_t DestinationPattern::next(std::size_t src, std::uint64_t message_index, RngStream& rng) const {
  if (const auto f = fixed(src)) return *f;
  auto uniform_other = [&] {
    const std::size_t r = static_cast<std::size_t>(rng.below(n_ - 1));
    return r < src ? r : r + 1;
  };
  switch (spec_.kind) {
    case PatternKind::kAllToAll: return all_to_all_destination(src, n_, message_index);
    case PatternKind::kHotspot: {
      // Draw first whether this message goes to a hotspot, then which one (never itself).
      const std::size_t hot_others = spec_.hotspots.size() - (hot_[src] ? 1 : 0);
      if (rng.uniform() < spec_.hotspot_fraction && hot_others > 0) {
        std::size_t pick = static_cast<std::size_t>(rng.below(hot_others));
        for (std::size_t h : spec_.hotspots) {
          if (h == src) continue;
          if (pick-- == 0) return h;
        }
      }
      return uniform_other();
    }
    default: return uniform_other();
  }
}

std::vector<std::size_t> DestinationPattern::reachable(std::size_t src) const {
  std::vector<std::size_t> out;
  if (const auto f = fixed(src)) {
    if (*f != src) out.push_back(*f);
    return out;
  }
  for (std::size_t d = 0; d < n_; ++d)
    if (d != src) out.push_back(d);
  return out;
}

}  // namespace ibfsim
