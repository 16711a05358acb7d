// Kernighan-Lin refinement of a split of clusters (kernighan_lin.h).
#include "sim/fabric/kernighan_lin.h"

#include <algorithm>
#include <limits>
#include <map>

namespace ibfsim {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

}  // namespace

KernighanLin::KernighanLin(const std::vector<std::vector<std::pair<std::size_t, long long>>>& adj,
                           const std::vector<std::size_t>& weight, std::vector<char>& side)
    : adj_(adj), weight_(weight), side_(side), d_(adj.size(), 0) {
  for (std::size_t c = 0; c < adj_.size(); ++c)
    for (auto [u, e] : adj_[c]) d_[c] += side_[u] != side_[c] ? e : -e;
}

void KernighanLin::run(int max_passes) {
  for (int pass = 0; pass < max_passes; ++pass) {
    if (one_pass() <= 0) break;
  }
}

void KernighanLin::move(std::size_t c) {
  for (auto [u, e] : adj_[c]) d_[u] += side_[u] == side_[c] ? 2 * e : -2 * e;
  side_[c] ^= 1;
  d_[c] = -d_[c];
}

long long KernighanLin::cables_between(std::size_t a, std::size_t b) const {
  for (auto [u, e] : adj_[a])
    if (u == b) return e;
  return 0;
}

long long KernighanLin::one_pass() {
  const std::size_t n = adj_.size();
  std::vector<char> locked(n, 0);
  std::vector<std::pair<std::size_t, std::size_t>> moves;  // (a, b), b == kNone for a single move
  long long total = 0, best_total = 0;
  std::size_t best_len = 0;
  constexpr std::size_t kTop = 4;
  for (std::size_t step = 0; step < n; ++step) {
    // The best single move of a weight-0 cluster, and per weight the kTop best of each side.
    long long best_gain = std::numeric_limits<long long>::min();
    std::pair<std::size_t, std::size_t> best_move{kNone, kNone};
    std::map<std::size_t, std::vector<std::size_t>> top[2];
    for (std::size_t c = 0; c < n; ++c) {
      if (locked[c]) continue;
      if (weight_[c] == 0) {
        if (d_[c] > best_gain) {
          best_gain = d_[c];
          best_move = {c, kNone};
        }
        continue;
      }
      std::vector<std::size_t>& t = top[static_cast<int>(side_[c])][weight_[c]];
      t.push_back(c);
      std::sort(t.begin(), t.end(), [&](std::size_t x, std::size_t y) { return d_[x] > d_[y]; });
      if (t.size() > kTop) t.pop_back();
    }
    for (const auto& [w, in_b] : top[0]) {
      const auto it = top[1].find(w);
      if (it == top[1].end()) continue;
      for (std::size_t a : it->second) {
        for (std::size_t b : in_b) {
          const long long gain = d_[a] + d_[b] - 2 * cables_between(a, b);
          if (gain > best_gain) {
            best_gain = gain;
            best_move = {a, b};
          }
        }
      }
    }
    if (best_move.first == kNone) break;
    move(best_move.first);
    locked[best_move.first] = 1;
    if (best_move.second != kNone) {
      move(best_move.second);
      locked[best_move.second] = 1;
    }
    moves.push_back(best_move);
    total += best_gain;
    if (total > best_total) {
      best_total = total;
      best_len = moves.size();
    }
  }
  for (std::size_t i = moves.size(); i > best_len; --i) {  // undo what came after the best prefix
    move(moves[i - 1].first);
    if (moves[i - 1].second != kNone) move(moves[i - 1].second);
  }
  return best_total;
}

}  // namespace ibfsim
