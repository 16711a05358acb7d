#include "sim/subnet_manager/routing/ar_groups.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <utility>

namespace ibfsim {

namespace {

constexpr unsigned kFar = std::numeric_limits<unsigned>::max();
constexpr std::size_t kMaxGroups = 0x0FFF;  // group numbers are 12 bits on the wire

enum class Step : std::uint8_t { kUp, kDown, kNone };

class Directions {
 public:
  Directions(const SubnetGraph& g, const std::vector<std::uint32_t>& rank, bool equal_rank_up)
      : g_(g), rank_(rank), equal_rank_up_(equal_rank_up) {}

  // The step from switch u to its neighbour switch w.
  Step step(std::size_t u, std::size_t w) const {
    const std::uint32_t ru = rank_[u], rw = rank_[w];
    if (ru == kArUnranked || rw == kArUnranked) return Step::kNone;
    if (ru != rw) return ru < rw ? Step::kDown : Step::kUp;
    if (!equal_rank_up_) return Step::kNone;
    if (ru == 0) return Step::kUp;
    return g_.nodes[u].node_guid > g_.nodes[w].node_guid ? Step::kUp : Step::kDown;
  }

 private:
  const SubnetGraph& g_;
  const std::vector<std::uint32_t>& rank_;
  bool equal_rank_up_;
};

// The switch at the far end of port p of node n, or kNoSubnetNode.
std::size_t peer_switch(const SubnetGraph& g, std::size_t n, unsigned p) {
  const auto& peer = g.nodes[n].ports[p].peer;
  return peer && g.nodes[peer->node].is_switch() ? peer->node : kNoSubnetNode;
}

// D and A (ar_groups.h) towards switch t, per graph node.
void distances(const SubnetGraph& g, const Directions& dir, std::size_t t, std::vector<unsigned>& down,
               std::vector<unsigned>& any) {
  down.assign(g.nodes.size(), kFar);
  down[t] = 0;
  std::queue<std::size_t> q;
  q.push(t);
  while (!q.empty()) {
    const std::size_t w = q.front();
    q.pop();
    for (unsigned p = 1; p <= g.nodes[w].num_ports(); ++p) {
      const std::size_t v = peer_switch(g, w, p);
      if (v == kNoSubnetNode || down[v] != kFar || dir.step(v, w) != Step::kDown) continue;
      down[v] = down[w] + 1;
      q.push(v);
    }
  }
  any = down;
  using Item = std::pair<unsigned, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  for (std::size_t v = 0; v < g.nodes.size(); ++v)
    if (any[v] != kFar) heap.emplace(any[v], v);
  while (!heap.empty()) {
    const auto [d, w] = heap.top();
    heap.pop();
    if (d != any[w]) continue;
    for (unsigned p = 1; p <= g.nodes[w].num_ports(); ++p) {
      const std::size_t v = peer_switch(g, w, p);
      if (v == kNoSubnetNode || dir.step(v, w) != Step::kUp || d + 1 >= any[v]) continue;
      any[v] = d + 1;
      heap.emplace(any[v], v);
    }
  }
}

}  // namespace

AdaptiveRoutingTables compute_ar_groups(const SubnetGraph& g, const RoutingTables& t,
                                        const std::vector<std::uint32_t>& rank, bool equal_rank_up) {
  AdaptiveRoutingTables ar;
  ar.by_node.resize(g.nodes.size());
  std::vector<std::map<std::vector<PortNum>, std::uint16_t>> known(g.nodes.size());
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].is_switch()) ar.by_node[n].group_of_lid.assign(static_cast<std::size_t>(t.lft_top) + 1, 0);
  const Directions dir(g, rank, equal_rank_up);

  // Destination switches in graph order, each with the CA LIDs cabled to it.
  std::map<std::size_t, std::vector<Lid>> lids_at;
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].is_switch()) continue;
    for (unsigned p = 1; p <= g.nodes[n].num_ports(); ++p) {
      const SubnetPort& port = g.nodes[n].ports[p];
      if (!port.peer || !g.nodes[port.peer->node].is_switch() || !port.lids.assigned()) continue;
      for (unsigned lid = port.lids.first; lid <= port.lids.last && lid <= t.lft_top; ++lid)
        lids_at[port.peer->node].push_back(static_cast<Lid>(lid));
    }
  }

  std::vector<unsigned> down, any;
  for (const auto& entry : lids_at) {
    // Named, not a structured binding: C++17 lambdas (goes_down) cannot capture those.
    const std::size_t dest = entry.first;
    const auto& lids = entry.second;
    if (rank[dest] == kArUnranked) continue;
    distances(g, dir, dest, down, any);
    for (const Lid lid : lids) {
      // Whether a packet for `lid` at switch w keeps going down.
      auto goes_down = [&](std::size_t w) {
        if (w == dest) return true;
        const PortNum s = t.port(w, lid);
        if (s == kNoRoute || s == 0 || s > g.nodes[w].num_ports()) return false;
        const std::size_t next = peer_switch(g, w, s);
        return next != kNoSubnetNode && dir.step(w, next) == Step::kDown;
      };
      for (std::size_t u = 0; u < g.nodes.size(); ++u) {
        if (!g.nodes[u].is_switch() || u == dest || rank[u] == kArUnranked) continue;
        const PortNum s = t.port(u, lid);
        if (s == kNoRoute || s == 0 || s > g.nodes[u].num_ports()) continue;
        const std::size_t w0 = peer_switch(g, u, s);
        if (w0 == kNoSubnetNode) continue;
        const Step static_step = dir.step(u, w0);
        if (static_step == Step::kNone) continue;
        const unsigned want = static_step == Step::kDown ? down[u] : any[u];
        if (want == kFar || want == 0) continue;
        std::vector<PortNum> members;
        for (unsigned p = 1; p <= g.nodes[u].num_ports(); ++p) {
          const std::size_t w = peer_switch(g, u, p);
          if (w == kNoSubnetNode) continue;
          const Step st = dir.step(u, w);
          const bool ok = (st == Step::kDown && down[w] != kFar && down[w] + 1 == want && goes_down(w)) ||
                          (st == Step::kUp && static_step == Step::kUp && any[w] != kFar && any[w] + 1 == want);
          if (ok) members.push_back(static_cast<PortNum>(p));
        }
        if (members.size() < 2 || std::find(members.begin(), members.end(), s) == members.end()) continue;
        auto found = known[u].find(members);
        if (found == known[u].end()) {
          if (ar.by_node[u].groups.size() == kMaxGroups) continue;  // the switch holds no more: static
          found = known[u].emplace(members, static_cast<std::uint16_t>(ar.by_node[u].groups.size() + 1)).first;
          ar.by_node[u].groups.push_back(members);
        }
        ar.by_node[u].group_of_lid[lid] = found->second;
        ++ar.adaptive_entries;
      }
    }
  }
  return ar;
}

}  // namespace ibfsim
