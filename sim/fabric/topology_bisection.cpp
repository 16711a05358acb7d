// The bisection of a topology (topology_bisection.h): exact for a two-level fat tree, else the
// best of the first half of the hosts alone and breadth-first splits of clusters refined by
// Kernighan-Lin (kernighan_lin.h).
#include "sim/fabric/topology_bisection.h"

#include <algorithm>
#include <limits>
#include <map>

#include "sim/fabric/hop_graph.h"
#include "sim/fabric/kernighan_lin.h"

namespace ibfsim {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Exact bisection of a two-level fat tree (see topology_summary.h), or nullopt if topo is not one.
std::optional<std::size_t> fat_tree_bisection(const Topology& topo, const Topology::PortCables& cables_at,
                                              std::size_t num_hosts) {
  if (topo.cables.empty()) return std::nullopt;
  const LinkRate rate = topo.cables.front().rate;
  for (const TopoCable& c : topo.cables) {
    if (c.ethernet_speed || c.rate.speed != rate.speed || c.rate.lanes != rate.lanes) return std::nullopt;
  }
  const std::vector<std::size_t> switches = topo.switches();
  std::vector<std::size_t> hosts_on(topo.nodes.size(), 0);
  for (std::size_t h : topo.hcas()) {
    std::size_t n = 0;
    std::size_t sw = kNone;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
      if (!cables_at[h][p]) continue;
      ++n;
      sw = topo.cables[*cables_at[h][p]].far_end(h).node;
    }
    if (n == 0) continue;
    if (n != 1 || topo.nodes[sw].type != NodeType::kSwitch) return std::nullopt;
    ++hosts_on[sw];
  }
  std::vector<std::size_t> leaves, spines;
  for (std::size_t sw : switches) (hosts_on[sw] > 0 ? leaves : spines).push_back(sw);
  if (leaves.empty()) return std::nullopt;
  const std::size_t H = hosts_on[leaves.front()];
  for (std::size_t l : leaves)
    if (hosts_on[l] != H) return std::nullopt;
  const std::size_t L = leaves.size(), S = spines.size();
  if (S == 0 && L != 1) return std::nullopt;
  std::vector<std::size_t> leaf_index(topo.nodes.size(), kNone), spine_index(topo.nodes.size(), kNone);
  for (std::size_t i = 0; i < L; ++i) leaf_index[leaves[i]] = i;
  for (std::size_t i = 0; i < S; ++i) spine_index[spines[i]] = i;
  std::vector<std::size_t> m(L * S, 0);
  for (const TopoCable& c : topo.cables) {
    const bool a_switch = topo.nodes[c.node_a].type == NodeType::kSwitch;
    const bool b_switch = topo.nodes[c.node_b].type == NodeType::kSwitch;
    if (!a_switch || !b_switch) continue;
    std::size_t l = leaf_index[c.node_a], sp = spine_index[c.node_b];
    if (l == kNone) {
      l = leaf_index[c.node_b];
      sp = spine_index[c.node_a];
    }
    if (l == kNone || sp == kNone) return std::nullopt;  // leaf-leaf or spine-spine
    ++m[l * S + sp];
  }
  const std::size_t per_pair = S == 0 ? 0 : m.front();
  for (std::size_t v : m)
    if (v != per_pair || v == 0) return std::nullopt;

  const std::size_t T = num_hosts / 2;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (std::size_t b = 0; b <= S; ++b) {
    // A leaf with h of its hosts on side A: its switch on A cuts H - h host links and its links to
    // the S - b spines on B; on B it cuts h host links and its links to the b spines on A.
    auto cost = [&](std::size_t h) { return std::min(H - h + per_pair * (S - b), h + per_pair * b); };
    for (std::size_t k = 0; k <= L && k * H <= T; ++k) {
      const std::size_t r = T - k * H;
      if (r >= H) continue;
      if (r > 0 && k == L) continue;
      const std::size_t rest = L - k - (r > 0 ? 1 : 0);
      best = std::min(best, k * cost(H) + (r > 0 ? cost(r) : 0) + rest * cost(0));
    }
  }
  return best;
}

struct Cut {
  std::size_t cables = kNone;
  double gbps = 0;
};

Cut evaluate(const Topology& topo, const std::vector<char>& side_a) {
  Cut c{0, 0};
  for (const TopoCable& cable : topo.cables) {
    if (side_a[cable.node_a] != side_a[cable.node_b]) {
      ++c.cables;
      c.gbps += cable.data_gbps();
    }
  }
  return c;
}

Cut heuristic_bisection(const Topology& topo, const std::vector<std::size_t>& hosts,
                        const Topology::PortCables& cables_at) {
  const std::size_t n = topo.nodes.size();
  const std::size_t half = hosts.size() / 2;

  // (a) the first half of the hosts alone.
  std::vector<char> side(n, 0);
  for (std::size_t i = 0; i < half; ++i) side[hosts[i]] = 1;
  Cut best = evaluate(topo, side);

  // Clusters: each switch with the hosts whose only cable goes to it; other hosts alone.
  std::vector<std::size_t> cluster(n, kNone);
  std::vector<std::size_t> weight;
  std::vector<std::vector<std::size_t>> members;
  for (std::size_t s : topo.switches()) {
    cluster[s] = weight.size();
    weight.push_back(0);
    members.push_back({s});
  }
  for (std::size_t h : hosts) {
    std::size_t cables = 0, peer = kNone;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
      if (!cables_at[h][p]) continue;
      ++cables;
      peer = topo.cables[*cables_at[h][p]].far_end(h).node;
    }
    if (cables == 1 && topo.nodes[peer].type == NodeType::kSwitch) {
      cluster[h] = cluster[peer];
    } else {
      cluster[h] = weight.size();
      weight.push_back(0);
      members.emplace_back();
    }
    ++weight[cluster[h]];
    members[cluster[h]].push_back(h);
  }
  const std::size_t num_clusters = weight.size();
  std::vector<std::vector<std::pair<std::size_t, long long>>> adj(num_clusters);
  {
    std::map<std::pair<std::size_t, std::size_t>, long long> count;
    for (const TopoCable& c : topo.cables) {
      const std::size_t a = cluster[c.node_a], b = cluster[c.node_b];
      if (a != b && a != kNone && b != kNone) ++count[std::minmax(a, b)];
    }
    for (const auto& [ab, e] : count) {
      adj[ab.first].emplace_back(ab.second, e);
      adj[ab.second].emplace_back(ab.first, e);
    }
  }
  HopGraph g(num_clusters);
  for (std::size_t a = 0; a < num_clusters; ++a)
    for (auto [b, e] : adj[a])
      if (a < b) boost::add_edge(a, b, g);

  // (b) breadth-first fills from two starts, refined by Kernighan-Lin.
  const std::vector<unsigned> from_first = distances_from(g, {cluster[hosts.front()]});
  std::size_t far = cluster[hosts.front()];
  for (std::size_t h : hosts) {
    const std::size_t c = cluster[h];
    if (from_first[c] != kHopsUnreached && from_first[c] > from_first[far]) far = c;
  }
  for (std::size_t start : {cluster[hosts.front()], far}) {
    std::vector<char> cside(num_clusters, 0);
    std::size_t in_a = 0;
    for (std::size_t c : bfs_order(g, start)) {
      if (in_a < half && in_a + weight[c] <= half) {
        cside[c] = 1;
        in_a += weight[c];
      }
    }
    KernighanLin(adj, weight, cside).run(10);
    std::vector<char> sd(n, 0);
    for (std::size_t v = 0; v < n; ++v)
      if (cluster[v] != kNone) sd[v] = cside[cluster[v]];
    // Clusters that would overshoot stayed on B: take the missing hosts from the largest of them.
    if (in_a < half) {
      std::size_t biggest = kNone;
      for (std::size_t c = 0; c < num_clusters; ++c)
        if (!cside[c] && (biggest == kNone || weight[c] > weight[biggest])) biggest = c;
      for (std::size_t v : members[biggest]) {
        if (in_a == half) break;
        if (topo.nodes[v].type == NodeType::kHca) {
          sd[v] = 1;
          ++in_a;
        }
      }
    }
    const Cut c = evaluate(topo, sd);
    if (c.cables < best.cables) best = c;
  }
  return best;
}

}  // namespace

BisectionEstimate estimate_bisection(const Topology& topo, const std::vector<std::size_t>& hosts,
                                     const Topology::PortCables& cables_at) {
  BisectionEstimate b;
  double host_rate = -1;
  bool one_rate = true;
  for (std::size_t h : hosts) {
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
      if (!cables_at[h][p]) continue;
      const double r = topo.cables[*cables_at[h][p]].data_gbps();
      if (host_rate < 0) host_rate = r;
      one_rate = one_rate && r == host_rate;
    }
  }
  if (auto exact = fat_tree_bisection(topo, cables_at, hosts.size())) {
    b.method = BisectionMethod::kFatTreeExact;
    b.cables = *exact;
    b.gbps = static_cast<double>(*exact) * topo.cables.front().rate.data_gbps();
  } else {
    const Cut c = heuristic_bisection(topo, hosts, cables_at);
    b.method = BisectionMethod::kHeuristic;
    b.cables = c.cables;
    b.gbps = c.gbps;
  }
  if (one_rate) b.of_full = b.gbps / (static_cast<double>(hosts.size() / 2) * host_rate);
  return b;
}

}  // namespace ibfsim
