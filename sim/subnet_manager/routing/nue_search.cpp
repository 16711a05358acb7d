#include "sim/subnet_manager/routing/nue_search.h"

#include <algorithm>

#include "sim/subnet_manager/routing/nue_network.h"

namespace ibfsim::nue {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

void reset_edge(Edge& e) {
  if (e.wet) {
    e.color = kUnused;
    e.wet = false;
  }
}

// found_path_between_ccdg_nodes_in_subgraph: a path from `source` to `target` over coloured turns.
bool found_path(Ccdg& cdg, int source, int target) {
  bool found = false;
  int cur = source;
  cdg.nodes[at(cur)].next_edge = 0;
  cdg.nodes[at(cur)].pre = -1;
  do {
    CNode& c = cdg.nodes[at(cur)];
    int next = -1;
    for (std::size_t j = c.next_edge; j < c.edges.size(); ++j) {
      const Edge& e = c.edges[j];
      if (cdg.nodes[at(e.to)].status == kBlack || cdg.edge_color(e) <= kUnused) continue;
      if (e.to == target) {
        found = true;
      } else {
        next = e.to;
        c.next_edge = j + 1;
      }
      break;
    }
    if (next >= 0) {
      cdg.nodes[at(next)].next_edge = 0;
      cdg.nodes[at(next)].pre = cur;
    } else {
      c.status = kBlack;
      next = c.pre;
    }
    cur = next;
  } while (!found && cur >= 0);
  for (CNode& n : cdg.nodes)
    if (n.status == kBlack) n.status = kWhite;
  return found;
}

// using_edge_induces_cycle_in_ccdg: whether taking the turn `e` out of `head` would close a cycle
// (then it is blocked); otherwise it joins the destination's subgraph.
bool induces_cycle(Ccdg& cdg, int head, Edge& e, int color) {
  const int tail = e.to;
  if (cdg.edge_color(e) > kUnused) return false;
  if (color == cdg.node_color(tail)) {
    if (found_path(cdg, tail, head)) {
      e.color = kBlocked;
      return true;
    }
  } else if (cdg.node_color(tail) == kUnused) {
    cdg.nodes[at(tail)].color = cdg.nodes[at(head)].color;
    cdg.nodes[at(tail)].wet = true;
  } else {
    cdg.colors[at(cdg.nodes[at(tail)].color)].real = cdg.nodes[at(head)].color;
  }
  e.color = cdg.nodes[at(head)].color;
  e.wet = true;
  return false;
}

void add_to_stack(Node& n, int link) {
  if (std::find(n.stack.begin(), n.stack.end(), link) == n.stack.end()) n.stack.push_back(link);
}

struct Candidate {
  int link_to_adj;  // from the unreachable switch to its reached neighbour
  int channel;      // a channel into that neighbour it could have used instead
};

// attempt_local_backtracking: a channel into a switch the search did not reach, through a
// neighbour that switches to another of its incoming channels; -1 if none.
int local_backtracking(Network& net, Ccdg& cdg, int source, int color) {
  int found_channel = -1;
  std::vector<Candidate> cands;
  std::vector<int> depended;
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    if (net.nodes[i].distance != kInfinity) continue;
    Node& unreachable = net.nodes[i];
    cands.clear();
    for (int l1 : unreachable.links) {
      Node& adj = net.nodes[at(net.links[at(l1)].to)];
      if (adj.distance == kInfinity) continue;
      depended.clear();
      for (int l2 : adj.links) {
        const Node& t = net.nodes[at(net.links[at(l2)].to)];
        if (t.used_link < 0) continue;
        if (net.links[at(t.used_link)].info.local_lid == adj.lid) depended.push_back(net.links[at(t.used_link)].ccdg);
      }
      for (int k : adj.stack) {
        const int cc = net.links[at(k)].ccdg;
        const Channel& c = cdg.nodes[at(cc)].id;
        std::size_t m = 0;
        for (; m < depended.size(); ++m) {
          const Channel& d = cdg.nodes[at(depended[m])].id;
          if (c.local_lid == d.remote_lid && c.remote_lid == d.local_lid) break;
          const Edge* e = cdg.edge(cc, depended[m]);
          if (!e || cdg.edge_color(*e) < kEscape) break;
        }
        if (m == depended.size()) cands.push_back({l1, cc});
      }
    }
    if (cands.empty()) continue;
    std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
      return cdg.nodes[at(a.channel)].distance < cdg.nodes[at(b.channel)].distance;
    });
    for (const Candidate& cand : cands) {
      const int pre = cand.channel;
      const int ccn = cdg.node(net.links[at(cand.link_to_adj)].info.inverted());
      Edge* into = cdg.edge(pre, ccn);
      if (!into || cdg.edge_color(*into) == kBlocked) continue;
      const int nn = net.node(cdg.nodes[at(pre)].id.local_lid);
      if (nn == source || net.nodes[at(nn)].used_link < 0) continue;
      const int pre_pre = net.links[at(net.nodes[at(nn)].used_link)].ccdg;
      const Channel& pc = cdg.nodes[at(pre)].id;
      const Channel& ppc = cdg.nodes[at(pre_pre)].id;
      if (pc.local_lid == ppc.remote_lid && pc.remote_lid == ppc.local_lid) continue;
      Edge* pre_edge = cdg.edge(pre_pre, pre);
      if (!pre_edge || cdg.edge_color(*pre_edge) == kBlocked) continue;
      const bool was_wet = pre_edge->wet;
      if (induces_cycle(cdg, pre_pre, *pre_edge, color)) continue;
      if (induces_cycle(cdg, pre, *into, color)) {
        if (!was_wet) reset_edge(*pre_edge);
        continue;
      }
      const std::uint64_t d = cdg.nodes[at(pre)].distance + net.links[at(cdg.nodes[at(ccn)].link)].weight;
      cdg.nodes[at(ccn)].distance = d;
      if (found_channel < 0) {
        unreachable.used_link = cdg.nodes[at(ccn)].link;
        unreachable.distance = d;
        Node& adj = net.nodes[at(net.links[at(cand.link_to_adj)].to)];
        adj.used_link = cdg.nodes[at(pre)].link;
        adj.distance = cdg.nodes[at(pre)].distance;
        found_channel = ccn;
      } else {
        add_to_stack(unreachable, cdg.nodes[at(ccn)].link);
      }
    }
    if (found_channel >= 0) break;
  }
  return found_channel;
}

// attempt_shortcut_discovery: whether a switch found before the last backtracking step may switch
// to the shorter channel `channel` without closing a cycle with the switches it relays to.
bool shortcut(Network& net, Ccdg& cdg, int node, int channel, int color) {
  Node& n = net.nodes[at(node)];
  const int old_cc = net.links[at(n.used_link)].ccdg;
  const int nn = net.node(cdg.nodes[at(old_cc)].id.local_lid);
  if (net.nodes[at(nn)].used_link < 0) return false;
  const int pre_old = net.links[at(net.nodes[at(nn)].used_link)].ccdg;
  std::vector<Edge*> deps;
  for (int l : n.links) {
    const Node& t = net.nodes[at(net.links[at(l)].to)];
    if (t.used_link < 0) continue;
    if (n.lid == net.links[at(t.used_link)].info.local_lid) {
      Edge* e = cdg.edge(channel, net.links[at(t.used_link)].ccdg);
      if (!e) return false;
      deps.push_back(e);
    }
  }
  std::vector<bool> was_wet;
  for (Edge* e : deps) was_wet.push_back(e->wet);
  bool valid = true;
  std::size_t until = 0;
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (cdg.edge_color(*deps[i]) == kBlocked || induces_cycle(cdg, channel, *deps[i], color)) {
      valid = false;
      until = i;
      break;
    }
  }
  if (valid) {
    if (Edge* e = cdg.edge(pre_old, old_cc)) reset_edge(*e);
    for (Edge* e : deps) reset_edge(*e);
  } else {
    for (std::size_t i = 0; i < until; ++i)
      if (cdg.edge_color(*deps[i]) != kBlocked && !was_wet[i]) reset_edge(*deps[i]);
  }
  return valid;
}

// fix_ccdg_colors: the turns the paths use keep their colour, every other fresh one is undone,
// and merged subgraphs take their merged colour.
void fix_colors(Network& net, Ccdg& cdg, int source, int source_cc) {
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    const Node& n = net.nodes[i];
    if (n.used_link < 0) continue;
    const int cc = net.links[at(n.used_link)].ccdg;
    const int nn = net.node(cdg.nodes[at(cc)].id.local_lid);
    cdg.nodes[at(cc)].wet = false;
    const int pre = nn == source ? source_cc
                                 : (net.nodes[at(nn)].used_link >= 0 ? net.links[at(net.nodes[at(nn)].used_link)].ccdg : -1);
    if (pre >= 0)
      if (Edge* e = cdg.edge(pre, cc)) e->wet = false;
  }
  for (CNode& c : cdg.nodes) {
    if (c.wet) {
      c.color = kUnused;
      c.wet = false;
    }
    for (Edge& e : c.edges) {
      reset_edge(e);
      if (cdg.colors[at(e.color)].real != e.color) e.color = cdg.colors[at(e.color)].real;
    }
    if (cdg.colors[at(c.color)].real != c.color) c.color = cdg.colors[at(c.color)].real;
  }
}

}  // namespace

bool search_paths(Network& net, Ccdg& cdg, Lid dest_switch_lid, int color, bool& used_escape_paths) {
  used_escape_paths = false;
  for (Node& n : net.nodes) {
    n.distance = kInfinity;
    n.used_link = -1;
    n.stack.clear();
    n.found_after_backtracking_step = -1;
  }
  const int source = net.node(dest_switch_lid);
  net.nodes[at(source)].distance = 0;
  std::size_t found = 1;
  const int source_cc = cdg.node({dest_switch_lid, 0, dest_switch_lid, 0});
  CNode& src = cdg.nodes[at(source_cc)];
  if (cdg.node_color(source_cc) > kUnused) cdg.colors[at(src.color)].real = color;
  else src.color = color;
  src.distance = 0;

  int last_backtracking = 0;
  int cur = source_cc;
  do {
    const std::size_t m = cdg.nodes[at(cur)].edges.size();
    for (std::size_t j = 0; j < 2 * m; ++j) {
      const bool over_used = j < m;  // turns in use first, then unused ones
      Edge& e = cdg.nodes[at(cur)].edges[j % m];
      if (over_used ? cdg.edge_color(e) < kEscape : cdg.edge_color(e) != kUnused) continue;
      const int next_cc = e.to;
      const Link& link = net.links[at(cdg.nodes[at(next_cc)].link)];
      const std::uint64_t d = cdg.nodes[at(cur)].distance + link.weight;
      Node& found_node = net.nodes[at(link.to)];
      if (d < found_node.distance) {
        if (induces_cycle(cdg, cur, e, color)) continue;
        if (last_backtracking && found_node.used_link >= 0 &&
            last_backtracking != found_node.found_after_backtracking_step) {
          if (!shortcut(net, cdg, link.to, next_cc, color)) continue;
        } else {
          if (found_node.used_link >= 0) {
            const int old_cc = net.links[at(found_node.used_link)].ccdg;
            const std::size_t removed = cdg.heap.remove(cdg.heap_pos[at(old_cc)]);
            if (removed == ComplibHeap::npos) return false;  // OpenSM would dereference NULL here
            const int rn = net.node(cdg.nodes[removed].id.local_lid);
            if (net.nodes[at(rn)].used_link >= 0) {
              const int pre_old = net.links[at(net.nodes[at(rn)].used_link)].ccdg;
              if (Edge* pe = cdg.edge(pre_old, static_cast<int>(removed))) reset_edge(*pe);
            }
          } else {
            ++found;
            found_node.found_after_backtracking_step = last_backtracking;
          }
          cdg.nodes[at(next_cc)].distance = d;
          cdg.heap.insert(d, at(next_cc));
        }
        found_node.distance = d;
        found_node.used_link = cdg.nodes[at(next_cc)].link;
      } else if (cdg.edge_color(e) > kUnused) {
        if (last_backtracking && found_node.used_link >= 0) continue;
        cdg.nodes[at(next_cc)].distance = d;
        add_to_stack(found_node, cdg.nodes[at(next_cc)].link);
      }
    }
    const std::size_t next = cdg.heap.extract_root();
    cur = next == ComplibHeap::npos ? -1 : static_cast<int>(next);
    if (cur < 0 && found != net.nodes.size()) {
      cur = local_backtracking(net, cdg, source, color);
      if (cur >= 0) {
        ++found;
        ++last_backtracking;
      } else {
        use_escape_paths(net, dest_switch_lid);
        used_escape_paths = true;
        last_backtracking = 0;
      }
    }
  } while (cur >= 0);
  fix_colors(net, cdg, source, source_cc);
  return true;
}

}  // namespace ibfsim::nue
