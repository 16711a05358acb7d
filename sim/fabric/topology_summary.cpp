#include "sim/fabric/topology_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/pending/queue.hpp>
#include <limits>
#include <set>

#include "sim/fabric/dot_format.h"  // format_length_mm

namespace ibfsim {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
constexpr unsigned kUnreached = std::numeric_limits<unsigned>::max();
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Hop distances from a set of vertices (multi-source breadth-first search).
std::vector<unsigned> distances_from(const Graph& g, const std::vector<std::size_t>& sources) {
  std::vector<unsigned> dist(boost::num_vertices(g), kUnreached);
  for (std::size_t s : sources) dist[s] = 0;
  std::vector<boost::default_color_type> color(boost::num_vertices(g));
  boost::queue<Graph::vertex_descriptor> q;
  boost::breadth_first_search(
      g, sources.begin(), sources.end(), q,
      boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge())),
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g)));
  return dist;
}

// Breadth-first order of every vertex: from `start`, then from each vertex not reached yet.
std::vector<std::size_t> bfs_order(const Graph& g, std::size_t start) {
  struct Recorder : boost::default_bfs_visitor {
    std::vector<std::size_t>* order;
    void discover_vertex(Graph::vertex_descriptor v, const Graph&) const { order->push_back(v); }
  };
  const std::size_t n = boost::num_vertices(g);
  std::vector<std::size_t> order;
  order.reserve(n);
  std::vector<boost::default_color_type> color(n, boost::white_color);
  auto color_map = boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
  Recorder rec;
  rec.order = &order;
  boost::queue<Graph::vertex_descriptor> q;
  boost::breadth_first_visit(g, start, q, rec, color_map);
  for (std::size_t v = 0; v < n; ++v) {
    if (color[v] == boost::white_color) boost::breadth_first_visit(g, v, q, rec, color_map);
  }
  return order;
}

void compute_diameter(const Topology& topo, const std::vector<std::vector<std::optional<std::size_t>>>& cables_at,
                      TopologySummary& s) {
  const std::vector<std::size_t> switches = topo.switches();
  std::vector<std::size_t> switch_index(topo.nodes.size(), kNone);
  for (std::size_t i = 0; i < switches.size(); ++i) switch_index[switches[i]] = i;
  Graph g(switches.size());
  for (const TopoCable& c : topo.cables) {
    if (switch_index[c.node_a] != kNone && switch_index[c.node_b] != kNone) {
      boost::add_edge(switch_index[c.node_a], switch_index[c.node_b], g);
    }
  }
  // Hosts grouped by the set of switches they are cabled to.
  std::map<std::vector<std::size_t>, std::vector<std::size_t>> groups;
  for (std::size_t h : topo.hcas()) {
    std::vector<std::size_t> attached;
    bool cabled = false;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
      if (!cables_at[h][p]) continue;
      cabled = true;
      const PortRef peer = topo.cables[*cables_at[h][p]].far_end(h);
      if (switch_index[peer.node] != kNone) attached.push_back(switch_index[peer.node]);
    }
    if (!cabled) continue;
    std::sort(attached.begin(), attached.end());
    attached.erase(std::unique(attached.begin(), attached.end()), attached.end());
    groups[attached].push_back(h);
  }
  std::vector<std::pair<const std::vector<std::size_t>*, const std::vector<std::size_t>*>> list;
  for (const auto& [attached, hosts] : groups) list.emplace_back(&attached, &hosts);

  for (std::size_t a = 0; a < list.size(); ++a) {
    const auto& [sources, hosts_a] = list[a];
    const std::vector<unsigned> dist = sources->empty() ? std::vector<unsigned>() : distances_from(g, *sources);
    for (std::size_t b = a; b < list.size(); ++b) {
      const auto& [targets, hosts_b] = list[b];
      const std::size_t pairs = a == b ? hosts_a->size() * (hosts_a->size() - 1) / 2 : hosts_a->size() * hosts_b->size();
      if (pairs == 0) continue;
      unsigned d = kUnreached;
      for (std::size_t t : *targets)
        if (!dist.empty()) d = std::min(d, dist[t]);
      if (d == kUnreached) {
        s.unreachable_host_pairs += pairs;
        continue;
      }
      const unsigned hops = d + 1;
      if (!s.diameter || hops > s.diameter->switch_hops) {
        s.diameter = HostDistance{hops, hosts_a->front(), a == b ? (*hosts_a)[1] : hosts_b->front()};
      }
    }
  }
}

// Exact bisection of a two-level fat tree (see the header), or nullopt if topo is not one.
std::optional<std::size_t> fat_tree_bisection(const Topology& topo,
                                              const std::vector<std::vector<std::optional<std::size_t>>>& cables_at,
                                              std::size_t num_hosts) {
  if (topo.cables.empty()) return std::nullopt;
  const LinkRate rate = topo.cables.front().rate;
  for (const TopoCable& c : topo.cables) {
    if (c.rate.speed != rate.speed || c.rate.lanes != rate.lanes) return std::nullopt;
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
      c.gbps += cable.rate.data_gbps();
    }
  }
  return c;
}

// Kernighan-Lin refinement of a two-way split of weighted clusters that keeps side A's weight:
// single moves of clusters of weight 0 and swaps of two clusters of equal weight. Each pass makes
// the best move (even a bad one), locks what moved, and in the end keeps the best prefix.
class KernighanLin {
 public:
  // adj: per cluster, (neighbour, cables) with no repeats and no self entries.
  KernighanLin(const std::vector<std::vector<std::pair<std::size_t, long long>>>& adj, const std::vector<std::size_t>& weight,
               std::vector<char>& side)
      : adj_(adj), weight_(weight), side_(side), d_(adj.size(), 0) {
    for (std::size_t c = 0; c < adj_.size(); ++c)
      for (auto [u, e] : adj_[c]) d_[c] += side_[u] != side_[c] ? e : -e;
  }

  void run(int max_passes) {
    for (int pass = 0; pass < max_passes; ++pass) {
      if (one_pass() <= 0) break;
    }
  }

 private:
  void move(std::size_t c) {
    for (auto [u, e] : adj_[c]) d_[u] += side_[u] == side_[c] ? 2 * e : -2 * e;
    side_[c] ^= 1;
    d_[c] = -d_[c];
  }
  long long cables_between(std::size_t a, std::size_t b) const {
    for (auto [u, e] : adj_[a])
      if (u == b) return e;
    return 0;
  }

  long long one_pass() {
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

  const std::vector<std::vector<std::pair<std::size_t, long long>>>& adj_;
  const std::vector<std::size_t>& weight_;
  std::vector<char>& side_;
  std::vector<long long> d_;  // cables to the other side minus cables to its own side
};

Cut heuristic_bisection(const Topology& topo, const std::vector<std::size_t>& hosts,
                        const std::vector<std::vector<std::optional<std::size_t>>>& cables_at) {
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
  Graph g(num_clusters);
  for (std::size_t a = 0; a < num_clusters; ++a)
    for (auto [b, e] : adj[a])
      if (a < b) boost::add_edge(a, b, g);

  // (b) breadth-first fills from two starts, refined by Kernighan-Lin.
  const std::vector<unsigned> from_first = distances_from(g, {cluster[hosts.front()]});
  std::size_t far = cluster[hosts.front()];
  for (std::size_t h : hosts) {
    const std::size_t c = cluster[h];
    if (from_first[c] != kUnreached && from_first[c] > from_first[far]) far = c;
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

TopologySummary summarize_topology(const Topology& topo) {
  TopologySummary s;
  const auto cables_at = topo.port_cables();
  std::vector<std::size_t> hosts;
  std::vector<std::string> uncabled;
  for (std::size_t h : topo.hcas()) {
    ++s.hcas;
    bool cabled = false;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) cabled = cabled || cables_at[h][p].has_value();
    if (cabled) {
      hosts.push_back(h);
    } else {
      uncabled.push_back(topo.nodes[h].name);
    }
  }
  s.hosts = hosts.size();
  s.cables = topo.cables.size();
  std::map<unsigned, RadixUse> radix;
  std::size_t oversubscribed = 0;
  double worst_ratio = 0;
  for (std::size_t sw : topo.switches()) {
    ++s.switches;
    const TopoNode& n = topo.nodes[sw];
    RadixUse& r = radix[n.num_ports];
    r.ports_per_switch = n.num_ports;
    ++r.switches;
    r.ports_total += n.num_ports;
    double host_gbps = 0, switch_gbps = 0;
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      if (!cables_at[sw][p]) continue;
      ++r.ports_used;
      const TopoCable& c = topo.cables[*cables_at[sw][p]];
      (topo.nodes[c.far_end(sw).node].type == NodeType::kSwitch ? switch_gbps : host_gbps) += c.rate.data_gbps();
    }
    if (host_gbps > 0 && switch_gbps > 0 && host_gbps > switch_gbps * (1 + 1e-9)) {
      ++oversubscribed;
      worst_ratio = std::max(worst_ratio, host_gbps / switch_gbps);
    }
  }
  for (auto& [ports, r] : radix) s.radix.push_back(r);
  for (const TopoCable& c : topo.cables) {
    const bool both_switches =
        topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch;
    ++(both_switches ? s.switch_cables : s.host_cables);
    ++s.rates[{static_cast<int>(c.rate.speed), c.rate.lanes}];
    ++s.lengths_mm[c.length_mm];
  }

  compute_diameter(topo, cables_at, s);

  if (hosts.size() >= 2) {
    double host_rate = -1;
    bool one_rate = true;
    for (std::size_t h : hosts) {
      for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
        if (!cables_at[h][p]) continue;
        const double r = topo.cables[*cables_at[h][p]].rate.data_gbps();
        if (host_rate < 0) host_rate = r;
        one_rate = one_rate && r == host_rate;
      }
    }
    if (auto exact = fat_tree_bisection(topo, cables_at, hosts.size())) {
      s.bisection.method = BisectionMethod::kFatTreeExact;
      s.bisection.cables = *exact;
      s.bisection.gbps = static_cast<double>(*exact) * topo.cables.front().rate.data_gbps();
    } else {
      const Cut c = heuristic_bisection(topo, hosts, cables_at);
      s.bisection.method = BisectionMethod::kHeuristic;
      s.bisection.cables = c.cables;
      s.bisection.gbps = c.gbps;
    }
    if (one_rate) s.bisection.of_full = s.bisection.gbps / (static_cast<double>(hosts.size() / 2) * host_rate);
  }

  // ---- warnings ----
  auto some = [](const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
    return out;
  };
  if (!uncabled.empty()) {
    s.warnings.push_back(fmt::format("{} HCA{} without a cable: {}", uncabled.size(), uncabled.size() == 1 ? "" : "s",
                                     some(uncabled)));
  }
  // The topology's own checks: a fabric cut in parts, links that negotiate down (topology.h).
  for (std::string& w : topology_warnings(topo)) s.warnings.push_back(std::move(w));
  if (s.rates.size() > 1) {
    s.warnings.push_back(fmt::format("cables run at {} different rates; a path is as fast as its slowest cable",
                                     s.rates.size()));
  }
  if (oversubscribed > 0) {
    s.warnings.push_back(fmt::format("{} switch{} more host bandwidth than switch-link bandwidth (up to {:.2f}:1)",
                                     oversubscribed, oversubscribed == 1 ? " has" : "es have", worst_ratio));
  }
  std::vector<std::string> long_names;
  for (const TopoNode& n : topo.nodes)
    if (n.name.size() > 64) long_names.push_back(n.name);
  if (!long_names.empty()) {
    s.warnings.push_back(fmt::format("{} node name{} longer than 64 characters, more than an IB node description "
                                     "holds: {}",
                                     long_names.size(), long_names.size() == 1 ? " is" : "s are", some(long_names)));
  }
  return s;
}

std::string format_topology_summary(const Topology& topo, const TopologySummary& s) {
  std::string out;
  out += fmt::format("hosts: {} HCAs", s.hcas);
  if (s.hosts != s.hcas) out += fmt::format(" ({} with a cable)", s.hosts);
  out += fmt::format("\nswitches: {}\n", s.switches);
  out += fmt::format("cables: {} ({} to HCAs, {} between switches)\n", s.cables, s.host_cables, s.switch_cables);
  if (!s.rates.empty()) {
    std::string rates;
    for (const auto& [key, n] : s.rates) {
      const LinkRate r{static_cast<LinkSpeed>(key.first), key.second};
      rates += fmt::format("{}{} x {}", rates.empty() ? "" : ", ", n, r.name());
    }
    std::string lengths;
    for (const auto& [mm, n] : s.lengths_mm) lengths += fmt::format("{}{} x {}", lengths.empty() ? "" : ", ", n, format_length_mm(mm));
    out += fmt::format("link rates: {}\ncable lengths: {}\n", rates, lengths);
  }
  if (!s.radix.empty()) {
    out += "radix use:\n";
    for (const RadixUse& r : s.radix) {
      out += fmt::format("  {}-port switches: {}, ports used {}/{} ({:.0f}%)\n", r.ports_per_switch, r.switches,
                         r.ports_used, r.ports_total,
                         100.0 * static_cast<double>(r.ports_used) / static_cast<double>(r.ports_total));
    }
  }
  if (s.diameter) {
    out += fmt::format("diameter: {} switch hop{} (between {} and {})\n", s.diameter->switch_hops,
                       s.diameter->switch_hops == 1 ? "" : "s", topo.nodes[s.diameter->host_a].name,
                       topo.nodes[s.diameter->host_b].name);
  } else {
    out += "diameter: none (fewer than two hosts that reach each other)\n";
  }
  switch (s.bisection.method) {
    case BisectionMethod::kNone:
      out += "bisection: none (fewer than two hosts)\n";
      break;
    case BisectionMethod::kFatTreeExact:
    case BisectionMethod::kHeuristic: {
      const bool exact = s.bisection.method == BisectionMethod::kFatTreeExact;
      out += fmt::format("bisection: {}{} cable{}, {:.1f} Gb/s", exact ? "" : "at most ", s.bisection.cables,
                         s.bisection.cables == 1 ? "" : "s", s.bisection.gbps);
      if (s.bisection.of_full) out += fmt::format(", {:.2f} of full bisection", *s.bisection.of_full);
      out += exact ? " (exact: fat tree of one or two levels)\n" : " (heuristic: breadth-first split and Kernighan-Lin)\n";
      break;
    }
  }
  if (s.warnings.empty()) {
    out += "warnings: none\n";
  } else {
    out += "warnings:\n";
    for (const std::string& w : s.warnings) out += "  - " + w + "\n";
  }
  return out;
}

}  // namespace ibfsim
