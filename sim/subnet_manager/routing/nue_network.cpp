#include "sim/subnet_manager/routing/nue_network.h"

#include <algorithm>

#include "sim/subnet_manager/routing/hop_matrix.h"

namespace ibfsim::nue {

void build_network(const SubnetGraph& g, std::uint64_t init_weight, Network& net, Ccdg& cdg) {
  const SwitchIndex sw(g);
  for (std::size_t s = 0; s < sw.size(); ++s) {
    const SubnetNode& node = g.nodes[sw.node[s]];
    Node nn;
    nn.lid = node.ports[0].lids.first;
    nn.graph_node = sw.node[s];
    nn.num_terminals = 1;  // its own port 0 (LMC 0)
    for (unsigned p = 0; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (!peer || peer->node == sw.node[s]) continue;
      if (!sw.is_switch(peer->node)) {
        nn.num_terminals = static_cast<std::uint8_t>(nn.num_terminals + g.port(*peer).lids.count());
        continue;
      }
      Link l;
      l.info = {nn.lid, p, g.nodes[peer->node].ports[0].lids.first, peer->port};
      l.weight = init_weight;
      nn.links.push_back(static_cast<int>(net.links.size()));
      net.links.push_back(l);
    }
    net.nodes.push_back(std::move(nn));
  }
  std::sort(net.nodes.begin(), net.nodes.end(), [](const Node& a, const Node& b) { return lid_order(a.lid) < lid_order(b.lid); });
  for (std::size_t i = 0; i < net.nodes.size(); ++i) net.by_lid[net.nodes[i].lid] = static_cast<int>(i);
  for (Link& l : net.links) l.to = net.node(l.info.remote_lid);
  net.heap_pos.assign(net.nodes.size(), 0);

  // The complete CDG: per switch its fake channel (leading to each of its links), then its links,
  // each leading to every link of the switch it reaches except the one straight back.
  for (const Node& n : net.nodes) {
    CNode fake;
    fake.id = {n.lid, 0, n.lid, 0};
    for (int l : n.links) fake.edges.push_back(Edge{net.links[static_cast<std::size_t>(l)].info});
    cdg.nodes.push_back(std::move(fake));
    for (int l : n.links) {
      const Link& link = net.links[static_cast<std::size_t>(l)];
      CNode c;
      c.id = link.info;
      c.link = l;
      for (int k : net.nodes[static_cast<std::size_t>(link.to)].links) {
        const Channel& next = net.links[static_cast<std::size_t>(k)].info;
        if (next.remote_lid == link.info.local_lid && next.remote_port == link.info.local_port) continue;
        c.edges.push_back(Edge{next});
      }
      cdg.nodes.push_back(std::move(c));
    }
  }
  std::sort(cdg.nodes.begin(), cdg.nodes.end(), [](const CNode& a, const CNode& b) { return a.id.key() < b.id.key(); });
  for (std::size_t i = 0; i < cdg.nodes.size(); ++i) cdg.by_key[cdg.nodes[i].id.key()] = static_cast<int>(i);
  for (std::size_t i = 0; i < cdg.nodes.size(); ++i) {
    for (Edge& e : cdg.nodes[i].edges) e.to = cdg.node(e.to_channel);
    if (cdg.nodes[i].link >= 0) net.links[static_cast<std::size_t>(cdg.nodes[i].link)].ccdg = static_cast<int>(i);
  }
  cdg.heap_pos.assign(cdg.nodes.size(), 0);
}

Lid switch_lid(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Lid lid) {
  const SubnetPortRef p = port_of_lid.at(lid);
  if (g.nodes[p.node].is_switch()) return lid;
  return g.nodes[g.port(p).peer->node].ports[0].lids.first;
}

namespace {

// calculate_convex_subnetwork: every switch on a shortest path between two destination switches.
void convex_hull(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Network& net,
                 const std::vector<Lid>& destinations) {
  for (Node& n : net.nodes) {
    n.in_convex_hull = false;
    n.has_adj_destinations = false;
  }
  for (Lid d : destinations) {
    Node& n = net.nodes[static_cast<std::size_t>(net.node(switch_lid(g, port_of_lid, d)))];
    n.in_convex_hull = true;
    n.has_adj_destinations = true;
  }
  std::vector<int> fifo;
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    if (!net.nodes[i].in_convex_hull) continue;
    for (Node& n : net.nodes) {
      n.distance = kInfinity;
      n.processed = false;
    }
    net.nodes[i].distance = 0;
    net.nodes[i].processed = true;
    fifo.assign(1, static_cast<int>(i));
    for (std::size_t head = 0; head < fifo.size(); ++head) {
      const Node& u = net.nodes[static_cast<std::size_t>(fifo[head])];
      for (int l : u.links) {
        Node& v = net.nodes[static_cast<std::size_t>(net.links[static_cast<std::size_t>(l)].to)];
        if (v.distance == kInfinity) {
          v.distance = u.distance + 1;
          fifo.push_back(net.links[static_cast<std::size_t>(l)].to);
        }
      }
    }
    for (std::size_t j = 0; j < net.nodes.size(); ++j) {
      if (!net.nodes[j].in_convex_hull || net.nodes[j].processed) continue;
      net.nodes[j].processed = true;
      fifo.assign(1, static_cast<int>(j));
      for (std::size_t head = 0; head < fifo.size(); ++head) {
        const Node& v = net.nodes[static_cast<std::size_t>(fifo[head])];
        for (int l : v.links) {
          const int ui = net.links[static_cast<std::size_t>(l)].to;
          Node& u = net.nodes[static_cast<std::size_t>(ui)];
          if (u.processed) continue;
          if (u.distance + 1 == v.distance) {
            u.in_convex_hull = true;
            u.processed = true;
            fifo.push_back(ui);
          }
        }
      }
    }
  }
}

// get_central_node_wrt_subnetwork: Brandes' betweenness within the hull, terminals counted at
// their switches; the first switch with the highest value.
int central_node(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Network& net,
                 const std::vector<Lid>& destinations) {
  for (Node& n : net.nodes) {
    n.betw_centrality = 0.0;
    n.adj_terminals_in_hull = 0;
    n.ps.clear();
  }
  for (Lid d : destinations) {
    const Lid s = switch_lid(g, port_of_lid, d);
    if (s != d) ++net.nodes[static_cast<std::size_t>(net.node(s))].adj_terminals_in_hull;
  }
  std::vector<int> fifo, lifo;
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    Node& source = net.nodes[i];
    if (!source.in_convex_hull) continue;
    for (Node& n : net.nodes) {
      n.ps.clear();
      n.sigma = 0;
      n.distance = kInfinity;
    }
    source.sigma = 1;
    source.distance = 0;
    lifo.clear();
    fifo.assign(1, static_cast<int>(i));
    for (std::size_t head = 0; head < fifo.size(); ++head) {
      const int ui = fifo[head];
      lifo.push_back(ui);
      for (int l : net.nodes[static_cast<std::size_t>(ui)].links) {
        const int vi = net.links[static_cast<std::size_t>(l)].to;
        Node& v = net.nodes[static_cast<std::size_t>(vi)];
        const Node& u = net.nodes[static_cast<std::size_t>(ui)];
        if (!v.in_convex_hull) continue;
        if (v.distance == kInfinity) {
          v.distance = u.distance + 1;
          fifo.push_back(vi);
        }
        if (v.distance == u.distance + 1) {
          v.sigma += u.sigma;
          v.ps.push_back(ui);
        }
      }
    }
    for (unsigned j = 0; j < source.adj_terminals_in_hull + 1u; ++j) {
      for (Node& n : net.nodes) n.delta = 0.0;
      for (std::size_t k = lifo.size(); k-- > 0;) {
        Node& v = net.nodes[static_cast<std::size_t>(lifo[k])];
        unsigned update = 0;
        if (&source != &v || j == 0) update = v.adj_terminals_in_hull;
        else if (v.adj_terminals_in_hull > 0) update = v.adj_terminals_in_hull - 1u;
        for (unsigned t = 0; t < update; ++t) v.delta += (1.0 * static_cast<double>(v.sigma)) / static_cast<double>(v.sigma);
        for (int ui : v.ps) {
          Node& u = net.nodes[static_cast<std::size_t>(ui)];
          u.delta += (1.0 * static_cast<double>(u.sigma)) / static_cast<double>(v.sigma) * (1 + v.delta);
        }
        if (j > 0 || &source != &v) v.betw_centrality += v.delta;
      }
    }
  }
  int central = -1;
  double best = -1.0;
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    if (!net.nodes[i].in_convex_hull) continue;
    if (best < net.nodes[i].betw_centrality) {
      central = static_cast<int>(i);
      best = net.nodes[i].betw_centrality;
    }
  }
  return central;
}

void escape_edge(Ccdg& cdg, int from, int to) {
  if (Edge* e = cdg.edge(from, to)) e->color = kEscape;
}

}  // namespace

void spanning_tree(Network& net, int root) {
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    net.nodes[i].distance = kInfinity;
    net.nodes[i].escape_path = -1;
    net.heap.insert(kInfinity, i);
  }
  net.nodes[static_cast<std::size_t>(root)].distance = 0;
  net.heap.modify_key(0, net.heap_pos[static_cast<std::size_t>(root)]);
  for (std::size_t cur = net.heap.extract_root(); cur != ComplibHeap::npos; cur = net.heap.extract_root()) {
    for (int l : net.nodes[cur].links) {
      const Link& link = net.links[static_cast<std::size_t>(l)];
      Node& adj = net.nodes[static_cast<std::size_t>(link.to)];
      const std::uint64_t d = net.nodes[cur].distance + link.weight;
      if (d < adj.distance) {
        adj.escape_path = l;
        adj.distance = d;
        net.heap.modify_key(d, net.heap_pos[static_cast<std::size_t>(link.to)]);
      }
    }
  }
}

bool mark_escape_paths(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Network& net, Ccdg& cdg,
                       const std::vector<Lid>& destinations, bool verify) {
  convex_hull(g, port_of_lid, net, destinations);
  const int central = central_node(g, port_of_lid, net, destinations);
  if (central < 0) return false;
  spanning_tree(net, central);
  if (verify) {
    std::size_t undiscovered = 0;
    for (const Node& n : net.nodes) undiscovered += n.escape_path < 0 ? 1 : 0;
    if (undiscovered > 1) return false;
  }
  const Node& root = net.nodes[static_cast<std::size_t>(central)];
  std::vector<int> out_of_central(root.links.size(), -1);
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    const Node& n1 = net.nodes[i];
    for (int cur = n1.escape_path; cur >= 0;) {
      const Link& curl = net.links[static_cast<std::size_t>(cur)];
      const Node& n2 = net.from(curl);
      cdg.nodes[static_cast<std::size_t>(curl.ccdg)].color = kEscape;
      const int next = n2.escape_path;
      if (next < 0) {
        for (int& slot : out_of_central) {
          if (slot < 0) {
            slot = cur;
            break;
          }
          if (slot == cur) break;
        }
        break;
      }
      const Link& nextl = net.links[static_cast<std::size_t>(next)];
      cdg.nodes[static_cast<std::size_t>(nextl.ccdg)].color = kEscape;
      escape_edge(cdg, nextl.ccdg, curl.ccdg);
      if (n1.has_adj_destinations) {
        // The way back up too, and the turns at n2 into its other subtrees.
        const int rev_cur = cdg.node(curl.info.inverted());
        const int rev_next = cdg.node(nextl.info.inverted());
        cdg.nodes[static_cast<std::size_t>(rev_cur)].color = kEscape;
        cdg.nodes[static_cast<std::size_t>(rev_next)].color = kEscape;
        escape_edge(cdg, rev_cur, rev_next);
        for (int l : n2.links) {
          const int adj = net.nodes[static_cast<std::size_t>(net.links[static_cast<std::size_t>(l)].to)].escape_path;
          if (adj < 0) continue;
          const Link& adjl = net.links[static_cast<std::size_t>(adj)];
          if (curl.info.local_lid == adjl.info.local_lid && curl.info.remote_lid != adjl.info.remote_lid)
            escape_edge(cdg, rev_cur, adjl.ccdg);
        }
      }
      cur = next;
    }
  }
  // Turns through the central switch between its subtrees.
  for (std::size_t i = 0; i < out_of_central.size() && out_of_central[i] >= 0; ++i) {
    const Link& curl = net.links[static_cast<std::size_t>(out_of_central[i])];
    for (std::size_t j = 0; j < out_of_central.size() && out_of_central[j] >= 0; ++j) {
      if (i == j) continue;
      const Link& nextl = net.links[static_cast<std::size_t>(out_of_central[j])];
      const int rev_next = cdg.node(nextl.info.inverted());
      cdg.nodes[static_cast<std::size_t>(curl.ccdg)].color = kEscape;
      cdg.nodes[static_cast<std::size_t>(rev_next)].color = kEscape;
      escape_edge(cdg, rev_next, curl.ccdg);
    }
  }
  return true;
}

void use_escape_paths(Network& net, Lid dest_switch_lid) {
  for (Node& n : net.nodes) n.used_link = n.escape_path;
  int n1 = net.node(dest_switch_lid);
  int cur = net.nodes[static_cast<std::size_t>(n1)].used_link;
  if (cur < 0) return;
  net.nodes[static_cast<std::size_t>(n1)].used_link = -1;
  while (cur >= 0) {
    const Link& curl = net.links[static_cast<std::size_t>(cur)];
    const int n2 = net.node(curl.info.local_lid);
    const std::uint64_t reverse = curl.info.inverted().key();
    int reverse_link = -1;
    for (int l : net.nodes[static_cast<std::size_t>(n1)].links)
      if (net.links[static_cast<std::size_t>(l)].info.key() == reverse) reverse_link = l;
    cur = net.nodes[static_cast<std::size_t>(n2)].used_link;
    net.nodes[static_cast<std::size_t>(n2)].used_link = reverse_link;
    n1 = n2;
  }
}

}  // namespace ibfsim::nue
