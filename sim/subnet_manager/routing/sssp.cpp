#include "sim/subnet_manager/routing/sssp.h"

#include <algorithm>
#include <cstdint>

#include "sim/subnet_manager/routing/complib_heap.h"
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/minhop.h"

namespace ibfsim {

namespace {

constexpr std::uint64_t kInf = 0x7FFFFFFF;  // OpenSM's "infinity" for Dijkstra

struct Link {
  std::size_t from = 0;     // vertex the link leaves
  std::size_t to = 0;       // vertex it reaches
  PortNum to_port = 0;      // the port of `to` it arrives on
  std::uint64_t weight = 0;
};

struct Vertex {
  std::vector<std::size_t> links;  // indices into Graph::links, in port order
  std::uint32_t num_hca = 0;
  // One Dijkstra run:
  Link* used = nullptr;  // the link it was reached by
  std::uint64_t distance = kInf;
  bool discovered = false;
};

class Sssp {
 public:
  Sssp(const SubnetGraph& g, RoutingTables& t) : g_(g), sw_(g), t_(t) {}

  bool route();  // false: a switch cannot be reached

 private:
  void build();
  // Dijkstra from the CA port `ca` (a graph port) or, with ca invalid, from switch vertex `source`.
  void dijkstra(SubnetPortRef ca, std::size_t source);
  void update_lft(Lid lid);
  void update_weights();

  const SubnetGraph& g_;
  SwitchIndex sw_;
  RoutingTables& t_;
  std::vector<Vertex> v_;  // 0: a CA source, 1..n: switches in GUID table order
  std::vector<Link> links_;
  Link ca_link_;           // vertex 0's one link, rebuilt for every CA source
  std::vector<std::size_t> heap_index_;  // per vertex: its place in the heap
};

void Sssp::build() {
  const std::size_t n = sw_.size();
  v_.assign(n + 1, Vertex{});
  std::uint64_t total = 0;  // LIDs of CA ports and switch port 0s
  for (const SubnetNode& node : g_.nodes) {
    if (node.is_switch()) {
      total += 1;
      continue;
    }
    for (unsigned p = 1; p <= node.num_ports(); ++p)
      if (node.ports[p].lids.assigned()) total += node.ports[p].lids.count();
  }
  for (std::size_t s = 0; s < n; ++s) {
    const SubnetNode& node = g_.nodes[sw_.node[s]];
    Vertex& vx = v_[s + 1];
    vx.num_hca = 1;  // port 0 (LMC 0)
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (!peer || peer->node == sw_.node[s]) continue;
      if (!sw_.is_switch(peer->node)) {
        vx.num_hca += g_.port(*peer).lids.count();
        continue;
      }
      vx.links.push_back(links_.size());
      links_.push_back(Link{s + 1, sw_.of[peer->node] + 1, peer->port, total * total});
    }
  }
}

void Sssp::dijkstra(SubnetPortRef ca, std::size_t source) {
  heap_index_.assign(v_.size(), 0);
  ComplibHeap heap(heap_index_);
  for (std::size_t i = 1; i < v_.size(); ++i) {
    v_[i].used = nullptr;
    v_[i].distance = kInf;
    v_[i].discovered = false;
    heap.insert(kInf, i);
  }
  if (ca.valid()) {
    const SubnetPortRef sw_port = *g_.port(ca).peer;
    v_[0] = Vertex{};
    ca_link_ = Link{0, sw_.of[sw_port.node] + 1, sw_port.port, 1};
    heap.insert(kInf, 0);
    source = 0;
  }
  v_[source].distance = 0;
  v_[source].discovered = true;
  heap.modify_key(0, heap_index_[source]);
  for (std::size_t cur = heap.extract_root(); cur != ComplibHeap::npos; cur = heap.extract_root()) {
    Vertex& c = v_[cur];
    c.discovered = true;
    auto relax = [&](Link& l) {
      Vertex& to = v_[l.to];
      if (!to.discovered && c.distance + l.weight < to.distance) {
        to.used = &l;
        to.distance = c.distance + l.weight;
        heap.modify_key(to.distance, heap_index_[l.to]);
      }
    };
    if (cur == 0) relax(ca_link_);
    else
      for (std::size_t k : c.links) relax(links_[k]);
  }
}

void Sssp::update_lft(Lid lid) {
  for (std::size_t i = 1; i < v_.size(); ++i)
    if (v_[i].used) t_.lft[sw_.node[i - 1]][lid] = v_[i].used->to_port;
}

void Sssp::update_weights() {
  for (std::size_t i = 1; i < v_.size(); ++i) {
    if (!v_[i].used) continue;
    const std::uint32_t add = v_[i].num_hca;
    for (std::size_t j = i; v_[j].used;) {
      // The path's links from the source's side; a CA source's own link is rebuilt every run.
      v_[j].used->weight += add;
      j = v_[j].used->from;
    }
  }
}

bool Sssp::route() {
  build();
  const std::size_t n = sw_.size();
  for (std::size_t s = 0; s < n; ++s) t_.lft[sw_.node[s]][g_.nodes[sw_.node[s]].ports[0].lids.first] = 0;
  for (const SubnetPortRef port : sssp_port_order(g_)) {
    if (!g_.nodes[port.node].is_switch()) {
      const LidRange r = g_.port(port).lids;
      for (unsigned lid = r.first; lid <= r.last; ++lid) {
        dijkstra(port, 0);
        for (std::size_t i = 1; i < v_.size(); ++i)
          if (!v_[i].used) return false;
        update_lft(static_cast<Lid>(lid));
        update_weights();
      }
    } else {
      dijkstra(SubnetPortRef{}, sw_.of[port.node] + 1);
      update_lft(g_.port(port).lids.first);
      update_weights();
    }
  }
  return true;
}

}  // namespace

std::vector<SubnetPortRef> sssp_port_order(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  const std::size_t n = sw.size();
  // Each switch's CA count: one for its port 0 plus the LIDs of the CA ports cabled to it.
  std::vector<std::uint64_t> num_hca(n, 1);
  for (std::size_t s = 0; s < n; ++s) {
    const SubnetNode& node = g.nodes[sw.node[s]];
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (peer && peer->node != sw.node[s] && !sw.is_switch(peer->node)) num_hca[s] += g.port(*peer).lids.count();
    }
  }
  // Switches by their CA count, most first (glibc's qsort: stable here).
  std::vector<std::size_t> order(n);
  for (std::size_t s = 0; s < n; ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return num_hca[a] > num_hca[b]; });
  std::vector<SubnetPortRef> out;
  for (std::size_t s : order) {
    const SubnetNode& node = g.nodes[sw.node[s]];
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (peer && !sw.is_switch(peer->node) && g.port(*peer).lids.assigned()) out.push_back(*peer);
    }
  }
  for (std::size_t s : order) out.push_back(SubnetPortRef{sw.node[s], 0});
  return out;
}

RoutingTables route_sssp(const SubnetGraph& g) {
  RoutingTables t = empty_routing_tables(g);
  Sssp engine(g, t);
  if (!engine.route()) {
    RoutingTables fallback = route_minhop(g);
    fallback.notes.push_back("sssp: a switch the search cannot reach: falling back to minhop (as OpenSM does)");
    return fallback;
  }
  return t;
}

}  // namespace ibfsim
