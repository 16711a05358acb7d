// Where each message of a traffic class goes: the synthetic traffic patterns of interconnection
// network studies (Dally & Towles ch. 3, BookSim's traffic.cpp), as pure functions over host
// indices 0..n-1 (the order of the class's host list), plus the per-message choice for the
// random ones. No SystemC.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/rng.h"

namespace ibfsim {

enum class PatternKind : std::uint8_t {
  kUniform,        // each message to a host drawn uniformly from the others
  kPermutation,    // a random derangement drawn once from the seed: src -> perm[src]
  kShift,          // src -> (src + k) mod n
  kTranspose,      // n = k*k hosts as a k x k matrix: (row, col) -> (col, row)
  kBitComplement,  // n a power of two: every address bit inverted, src -> n - 1 - src
  kTornado,        // on a torus of switches: every coordinate + ceil(d/2) - 1 (mod d)
  kHotspot,        // a fraction of messages to the hotspot hosts, the rest uniform
  kIncast,         // many sources -> one target
  kAllToAll,       // each source cycles through every other host: src+1, src+2, ...
  kRingAllreduce,  // collective: ring allreduce (collective_schedule.h)
  kAllToAllRounds, // collective: n-1 rounds of pairwise exchange (collective_schedule.h)
};

// As written in YAML: uniform, permutation, shift, transpose, bit_complement, tornado, hotspot,
// incast, all_to_all, ring_allreduce, all_to_all_rounds.
const char* pattern_name(PatternKind k);
std::optional<PatternKind> pattern_from_name(const std::string& name);
inline bool pattern_is_collective(PatternKind k) {
  return k == PatternKind::kRingAllreduce || k == PatternKind::kAllToAllRounds;
}

bool is_power_of_two(std::size_t n);
// The k with k*k == n, or 0 if there is none.
std::size_t exact_square_root(std::size_t n);

// ---- the deterministic maps (src may map to itself: such a host does not send) ----

// (src + k) mod n, for any integer k (negative shifts go the other way).
std::size_t shift_destination(std::size_t src, std::size_t n, std::int64_t k);
// n = k*k: host src = row*k + col goes to col*k + row. For n = 4^b this swaps the upper and lower
// halves of the address bits (BookSim's transpose). Requires exact_square_root(n) != 0.
std::size_t transpose_destination(std::size_t src, std::size_t n);
// n a power of two: ~src & (n - 1), which is n - 1 - src.
std::size_t bit_complement_destination(std::size_t src, std::size_t n);
// Hosts on a torus of switches with dims d_0..d_{D-1} (last coordinate fastest, as the torus
// generator numbers them) and `hosts_per_switch` hosts each: host src = switch*p + j moves to the
// switch whose every coordinate c_i becomes (c_i + ceil(d_i/2) - 1) mod d_i, same j. That is the
// largest shift that still has a unique shortest way around each ring (BookSim's tornado).
std::size_t tornado_destination(std::size_t src, const std::vector<std::size_t>& dims, std::size_t hosts_per_switch);
// Message number m (from 0) of src: (src + 1 + m mod (n-1)) mod n, so n-1 consecutive messages
// reach every other host once, and at any moment the sources aim at distinct hosts.
std::size_t all_to_all_destination(std::size_t src, std::size_t n, std::uint64_t message_index);
// A permutation of 0..n-1 with no fixed point, uniformly drawn from all of them (Fisher-Yates,
// repeated until no host maps to itself; about e = 2.7 tries on average). n >= 2.
std::vector<std::size_t> random_derangement(std::size_t n, RngStream& rng);

// What a class's `pattern:` says, with host names already resolved to indices.
struct DestinationPatternSpec {
  PatternKind kind = PatternKind::kUniform;
  std::int64_t shift = 1;                   // shift
  std::vector<std::size_t> dims;            // tornado: switches per dimension (empty: one ring of hosts)
  std::vector<std::size_t> hotspots;        // hotspot: the hot hosts
  double hotspot_fraction = 0.5;            // hotspot: share of each source's messages sent to them
  std::size_t target = 0;                   // incast: the host every source sends to
};

// Chooses the destination of each message of a class over n hosts.
class DestinationPattern {
 public:
  // `permutation_rng` draws the random permutation (only that pattern uses it).
  DestinationPattern(const DestinationPatternSpec& spec, std::size_t n, RngStream permutation_rng);

  std::size_t hosts() const { return n_; }
  // The fixed destination of src for the deterministic patterns (nullopt for the random ones and
  // all_to_all); it may be src itself.
  std::optional<std::size_t> fixed(std::size_t src) const;
  // Whether src has anywhere to send (a host whose fixed destination is itself stays silent).
  bool sends(std::size_t src) const;
  // The destination of message number `message_index` of src; `rng` is src's own stream for the
  // random patterns. Never src. Precondition: sends(src).
  std::size_t next(std::size_t src, std::uint64_t message_index, RngStream& rng) const;
  // Every host src can send to, ascending (for setting up connections before traffic starts).
  std::vector<std::size_t> reachable(std::size_t src) const;

 private:
  DestinationPatternSpec spec_;
  std::size_t n_;
  std::vector<std::size_t> perm_;  // permutation
  std::vector<bool> hot_;          // hotspot: by host
};

}  // namespace ibfsim
