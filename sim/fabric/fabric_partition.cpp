#include "sim/fabric/fabric_partition.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/time.h"

#ifdef IBFSIM_HAVE_METIS
#include <metis.h>
#endif

namespace ibfsim {

const char* partition_method_name(PartitionMethod m) {
  switch (m) {
    case PartitionMethod::kSingle: return "single";
    case PartitionMethod::kMetis: return "metis";
    case PartitionMethod::kTopological: return "topological";
  }
  return "?";
}

bool metis_available() {
#ifdef IBFSIM_HAVE_METIS
  return true;
#else
  return false;
#endif
}

namespace {

// Nodes in breadth-first order from node 0 (cables in their given order), then each further
// component from its lowest node; cut into runs of about equal weight, in that order.
std::vector<std::uint32_t> topological_split(const PartitionGraph& g, unsigned parts) {
  const std::size_t n = g.node_weight.size();
  std::vector<std::vector<std::size_t>> adj(n);
  for (const auto& c : g.cables) {
    adj[c.a].push_back(c.b);
    adj[c.b].push_back(c.a);
  }
  std::vector<std::size_t> order;
  order.reserve(n);
  std::vector<bool> seen(n, false);
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    std::queue<std::size_t> q;
    q.push(root);
    seen[root] = true;
    while (!q.empty()) {
      const std::size_t v = q.front();
      q.pop();
      order.push_back(v);
      for (std::size_t w : adj[v])
        if (!seen[w]) {
          seen[w] = true;
          q.push(w);
        }
    }
  }
  std::uint64_t total = 0;
  for (auto w : g.node_weight) total += w;
  std::vector<std::uint32_t> part(n, 0);
  std::uint64_t before = 0;
  for (std::size_t v : order) {
    // The partition holding the middle of the node's weight.
    const std::uint64_t mid2 = 2 * before + g.node_weight[v];
    part[v] = static_cast<std::uint32_t>(std::min<std::uint64_t>(parts - 1, mid2 * parts / (2 * total)));
    before += g.node_weight[v];
  }
  return part;
}

#ifdef IBFSIM_HAVE_METIS
// METIS k-way with a fixed seed. A cable's weight falls with its latency (the shortest weighs 64,
// one twice as long 32, never below 1), so METIS keeps short cables inside partitions: the window
// of a run is the shortest cut cable. Parallel cables are one edge of their summed weight.
bool metis_split(const PartitionGraph& g, unsigned parts, std::vector<std::uint32_t>& out) {
  const std::size_t n = g.node_weight.size();
  Time shortest = kTimeNever;
  for (const auto& c : g.cables) shortest = std::min(shortest, std::max<Time>(c.latency, 1));
  std::vector<std::map<std::size_t, idx_t>> adj(n);
  for (const auto& c : g.cables) {
    if (c.a == c.b) continue;
    const double ratio = static_cast<double>(shortest) / static_cast<double>(std::max<Time>(c.latency, 1));
    const idx_t w = std::max<idx_t>(1, static_cast<idx_t>(64.0 * ratio + 0.5));
    adj[c.a][c.b] += w;
    adj[c.b][c.a] += w;
  }
  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt;
  for (std::size_t v = 0; v < n; ++v) {
    for (const auto& [w, wt] : adj[v]) {
      adjncy.push_back(static_cast<idx_t>(w));
      adjwgt.push_back(wt);
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
    vwgt.push_back(static_cast<idx_t>(std::max<std::uint32_t>(1, g.node_weight[v])));
  }
  if (adjncy.empty()) return false;
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = static_cast<idx_t>(parts), objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(n, 0);
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(),
                                     &nparts, nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK) return false;
  out.assign(part.begin(), part.end());
  return true;
}
#endif

// The graph with each `together` group made one node (its weight the sum, its cables those
// leaving the group); `group` maps every node to its node in the contracted graph, numbered in the
// order of each group's lowest node.
PartitionGraph contract(const PartitionGraph& g, std::vector<std::size_t>& group) {
  const std::size_t n = g.node_weight.size();
  std::vector<std::size_t> root(n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](std::size_t v) {
    while (root[v] != v) v = root[v] = root[root[v]];
    return v;
  };
  for (const auto& t : g.together)
    for (std::size_t k = 1; k < t.size(); ++k) {
      IBFSIM_CHECK(t[0] < n && t[k] < n, "a group's nodes are nodes of the graph");
      const std::size_t a = find(t[0]), b = find(t[k]);
      root[std::max(a, b)] = std::min(a, b);
    }
  PartitionGraph c;
  std::vector<std::size_t> index(n, n);
  group.assign(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    const std::size_t r = find(v);
    if (index[r] == n) {
      index[r] = c.node_weight.size();
      c.node_weight.push_back(0);
    }
    group[v] = index[r];
    c.node_weight[group[v]] += g.node_weight[v];
  }
  for (const auto& cab : g.cables)
    if (group[cab.a] != group[cab.b]) c.cables.push_back({group[cab.a], group[cab.b], cab.latency});
  return c;
}

// The cables whose ends are in different partitions, and the shortest of them.
void record_cuts(const PartitionGraph& g, Partitioning& p) {
  for (std::size_t k = 0; k < g.cables.size(); ++k) {
    const auto& c = g.cables[k];
    if (p.part[c.a] == p.part[c.b]) continue;
    p.cut_cables.push_back(k);
    p.min_cut_latency = std::min(p.min_cut_latency, c.latency);
  }
}

}  // namespace

Partitioning partition_fabric(const PartitionGraph& g_in, unsigned parts, PartitionMethod method) {
  if (!g_in.together.empty()) {
    // Partition the contracted graph, then give every node its group's partition.
    std::vector<std::size_t> group;
    PartitionGraph c = contract(g_in, group);
    Partitioning pc = partition_fabric(c, parts, method);
    Partitioning p;
    p.method = pc.method;
    p.parts = pc.parts;
    p.part_weight = pc.part_weight;
    p.part.resize(group.size());
    for (std::size_t v = 0; v < group.size(); ++v) p.part[v] = pc.part[group[v]];
    record_cuts(g_in, p);
    return p;
  }
  const PartitionGraph& g = g_in;
  IBFSIM_CHECK(parts >= 1, "at least one partition");
  const std::size_t n = g.node_weight.size();
  for (const auto& c : g.cables) IBFSIM_CHECK(c.a < n && c.b < n, "a cable joins two nodes of the graph");
  Partitioning p;
  p.parts = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(parts, n)));
  p.part.assign(n, 0);
  if (p.parts == 1) {
    p.method = PartitionMethod::kSingle;
  } else {
    bool done = false;
#ifdef IBFSIM_HAVE_METIS
    if (method == PartitionMethod::kMetis) done = metis_split(g, p.parts, p.part);
    // On small graphs METIS may leave partitions empty (a star of a few hosts): split
    // topologically instead.
    if (done) {
      std::vector<bool> used(p.parts, false);
      for (auto x : p.part) used[x] = true;
      done = std::find(used.begin(), used.end(), false) == used.end();
    }
#endif
    if (done) p.method = PartitionMethod::kMetis;
    else {
      p.method = PartitionMethod::kTopological;
      p.part = topological_split(g, p.parts);
    }
    // Partitions left empty are not used: renumber the others densely, in order of their lowest node.
    std::vector<std::int64_t> renum(p.parts, -1);
    std::uint32_t next = 0;
    for (auto& x : p.part) {
      if (renum[x] < 0) renum[x] = next++;
      x = static_cast<std::uint32_t>(renum[x]);
    }
    p.parts = next;
  }
  p.part_weight.assign(p.parts, 0);
  for (std::size_t v = 0; v < n; ++v) p.part_weight[p.part[v]] += g.node_weight[v];
  record_cuts(g, p);
  return p;
}

std::string partitioning_summary(const Partitioning& p) {
  if (p.parts == 1) return "1 partition";
  std::string weights;
  for (std::size_t i = 0; i < p.part_weight.size(); ++i)
    weights += fmt::format("{}{}", i ? " + " : "", p.part_weight[i]);
  return fmt::format("{} partitions ({}): weights {}, {} cut cables, shortest cut {}", p.parts,
                     partition_method_name(p.method), weights, p.cut_cables.size(),
                     p.cut_cables.empty() ? std::string("none") : format_duration(p.min_cut_latency));
}

}  // namespace ibfsim
