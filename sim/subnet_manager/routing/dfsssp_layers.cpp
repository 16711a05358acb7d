#include "sim/subnet_manager/routing/dfsssp_layers.h"

#include <algorithm>

#include "sim/subnet_manager/routing/sssp.h"

namespace ibfsim {

namespace {

enum Status : std::uint8_t { kUnknown = 0, kGray, kBlack };

// One VL's channel dependency graph (OpenSM's cdg_node_t tree and cdg_link_t lists).
class Cdg {
 public:
  struct Link {
    int node = -1;
    std::uint32_t num_pairs = 0;
    std::uint32_t removed = 0;
    std::vector<std::uint32_t> pairs;
    int next = -1;
  };
  struct Node {
    std::uint64_t id = 0;
    int links = -1;
    Status status = kUnknown;
    int pre = -1;
    int left = -1, right = -1, parent = -1;
  };

  int root() const { return root_; }

  // update_channel_dep_graph: the path's consecutive channels become dependencies carrying `pair`.
  void add_path(const std::vector<std::uint64_t>& chans, std::uint32_t pair) {
    int last = -1;
    int head = -1;  // the dummy head channel's list (discarded)
    for (const std::uint64_t id : chans) {
      int ch = search(id);
      if (ch < 0) {
        ch = insert(id);
        int& first = last < 0 ? head : nodes_[last].links;
        int l = first;
        while (l >= 0 && links_[l].next >= 0) l = links_[l].next;
        if (l >= 0) {
          const int fresh = new_link(ch, pair);
          links_[l].next = fresh;
        } else {
          const int fresh = new_link(ch, pair);
          (last < 0 ? head : nodes_[last].links) = fresh;
        }
      } else {
        int l = last < 0 ? head : nodes_[last].links;
        while (l >= 0 && links_[l].node != ch && links_[l].next >= 0) l = links_[l].next;
        if (l >= 0) {
          if (links_[l].node == ch) {
            add_pair(l, pair);
          } else {
            const int fresh = new_link(ch, pair);
            links_[l].next = fresh;
          }
        } else {
          const int fresh = new_link(ch, pair);
          (last < 0 ? head : nodes_[last].links) = fresh;
        }
      }
      last = ch;
    }
  }

  // remove_path_from_cdg: counts the path's pair as removed on the dependencies it used; false if
  // a channel is missing (cannot happen: channels are never deleted).
  bool remove_path(const std::vector<std::uint64_t>& chans) {
    int last = -1;
    for (const std::uint64_t id : chans) {
      const int ch = search(id);
      if (ch < 0) return false;
      int l = last < 0 ? -1 : nodes_[last].links;
      while (l >= 0 && links_[l].node != ch && links_[l].next >= 0) l = links_[l].next;
      if (l >= 0 && links_[l].node == ch) ++links_[l].removed;
      last = ch;
    }
    return true;
  }

  // search_cycle_in_channel_dep_graph: a channel on a cycle, or -1.
  int search_cycle(int start) {
    int current = start;
    while (current >= 0) {
      nodes_[current].status = kGray;
      int next_node = -1;
      for (int l = nodes_[current].links; l >= 0; l = links_[l].next) {
        const Status s = nodes_[links_[l].node].status;
        if (s == kUnknown) {
          next_node = links_[l].node;
          break;
        }
        if (s == kGray) return links_[l].node;
      }
      if (next_node >= 0) {
        nodes_[next_node].pre = current;
        current = next_node;
        continue;
      }
      // A sink: done with it; its dependencies' pair lists are dropped.
      nodes_[current].status = kBlack;
      for (int l = nodes_[current].links; l >= 0; l = links_[l].next) {
        links_[l].pairs.clear();
        links_[l].num_pairs = 0;
        links_[l].removed = 0;
      }
      if (nodes_[current].pre >= 0) {
        const int tmp = current;
        current = nodes_[current].pre;
        nodes_[tmp].pre = -1;
      } else {
        current = first_unknown();
      }
    }
    return -1;
  }

  // get_weakest_link_in_cycle: the cycle's dependency with the fewest remaining pairs, taken out
  // of its channel's list; the cycle's channels become unvisited again. -1 if none.
  int cut_weakest(int cycle) {
    int current = cycle, weakest = -1, owner = -1;
    for (int l = nodes_[current].links; l >= 0; l = links_[l].next)
      if (nodes_[links_[l].node].status == kGray) {
        weakest = l;
        owner = current;
        current = links_[l].node;
        break;
      }
    if (weakest < 0) return -1;
    for (std::size_t guard = 0; guard <= nodes_.size(); ++guard) {
      nodes_[current].status = kUnknown;
      for (int l = nodes_[current].links; l >= 0; l = links_[l].next)
        if (nodes_[links_[l].node].status == kGray) {
          if (links_[l].num_pairs - links_[l].removed < links_[weakest].num_pairs - links_[weakest].removed) {
            weakest = l;
            owner = current;
          }
          current = links_[l].node;
          break;
        }
      if (current == cycle) {
        nodes_[current].status = kUnknown;
        break;
      }
    }
    int& first = nodes_[owner].links;
    if (first == weakest) {
      first = links_[weakest].next;
    } else {
      for (int l = first; l >= 0; l = links_[l].next)
        if (links_[l].next == weakest) {
          links_[l].next = links_[weakest].next;
          break;
        }
    }
    return weakest;
  }
  const Link& link(int l) const { return links_[l]; }

 private:
  int search(std::uint64_t id) const {
    int n = root_;
    while (n >= 0) {
      if (id < nodes_[n].id) n = nodes_[n].left;
      else if (id > nodes_[n].id) n = nodes_[n].right;
      else return n;
    }
    return -1;
  }
  int insert(std::uint64_t id) {
    const int fresh = static_cast<int>(nodes_.size());
    nodes_.push_back(Node{});
    nodes_.back().id = id;
    if (root_ < 0) {
      root_ = fresh;
      return fresh;
    }
    for (int n = root_;;) {
      int& child = id < nodes_[n].id ? nodes_[n].left : nodes_[n].right;
      if (child < 0) {
        child = fresh;
        nodes_[fresh].parent = n;
        return fresh;
      }
      n = child;
    }
  }
  int new_link(int node, std::uint32_t pair) {
    links_.push_back(Link{});
    links_.back().node = node;
    add_pair(static_cast<int>(links_.size()) - 1, pair);
    return static_cast<int>(links_.size()) - 1;
  }
  void add_pair(int l, std::uint32_t pair) {
    if (links_[l].num_pairs == 0) links_[l].removed = 0;
    links_[l].pairs.push_back(pair);
    ++links_[l].num_pairs;
  }
  // get_next_cdg_node: the first unvisited channel in the tree's pre-order.
  int first_unknown() const {
    std::vector<int> stack;
    if (root_ >= 0) stack.push_back(root_);
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (nodes_[n].status == kUnknown) return n;
      if (nodes_[n].right >= 0) stack.push_back(nodes_[n].right);
      if (nodes_[n].left >= 0) stack.push_back(nodes_[n].left);
    }
    return -1;
  }

  int root_ = -1;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
};

// The least operational data VLs of any linked switch port (get_avail_vl_in_subn).
unsigned available_vls(const SubnetGraph& g) {
  unsigned vls = 16;
  for (const SubnetNode& n : g.nodes) {
    if (!n.is_switch()) continue;
    for (unsigned p = 1; p <= n.num_ports(); ++p)
      if (n.ports[p].peer) vls = std::min(vls, n.ports[p].data_vls);
  }
  return std::max(1u, std::min(vls, 15u));
}

// The switch-to-switch channels of the path from port `src` to `dlid`; false if a switch on it
// has no route (OpenSM's dfsssp then fails).
bool channels(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src, Lid dlid, std::vector<std::uint64_t>& out) {
  out.clear();
  if (g.nodes[src.node].is_switch()) return true;  // a switch's port 0 has no link of its own
  auto remote = g.port(src).peer;
  while (remote && g.nodes[remote->node].is_switch()) {
    const std::size_t local = remote->node;
    const PortNum lp = t.port(local, dlid);
    if (lp == kNoRoute) return false;
    if (lp == 0) break;
    const auto& peer = g.nodes[local].ports[lp].peer;
    if (!peer || !g.nodes[peer->node].is_switch()) break;
    const std::uint64_t local_lid = g.nodes[local].ports[0].lids.first;
    const std::uint64_t remote_lid = g.nodes[peer->node].ports[0].lids.first;
    out.push_back((local_lid << 48) + (std::uint64_t{lp} << 32) + (remote_lid << 16) + peer->port);
    remote = peer;
  }
  return true;
}

}  // namespace

std::optional<DfssspLayers> dfsssp_layers(const SubnetGraph& g, const RoutingTables& t, unsigned* needed_out) {
  const unsigned avail = available_vls(g);
  const std::vector<SubnetPortRef> order = sssp_port_order(g);

  // The LIDs, indexed in OpenSM's order: network-order 16-bit values compared as host integers.
  std::vector<unsigned> lids;
  for (const SubnetPortRef p : order) {
    const LidRange r = g.port(p).lids;
    for (unsigned lid = r.first; lid <= r.last; ++lid) lids.push_back(lid);
  }
  const auto swapped = [](unsigned lid) { return ((lid & 0xFF) << 8) | (lid >> 8); };
  std::sort(lids.begin(), lids.end(), [&](unsigned a, unsigned b) { return swapped(a) < swapped(b); });
  const std::size_t top = static_cast<std::size_t>(t.lft_top) + 1;
  std::vector<std::vector<std::uint8_t>> vl(top, std::vector<std::uint8_t>(top, 0));
  std::vector<SubnetPortRef> port_of(top);
  for (const SubnetPortRef p : order) {
    const LidRange r = g.port(p).lids;
    for (unsigned lid = r.first; lid <= r.last; ++lid) port_of[lid] = p;
  }

  std::vector<std::uint64_t> paths(avail, 0);
  std::vector<Cdg> cdg(avail);
  std::vector<std::uint64_t> chans;
  for (const SubnetPortRef dst : order) {
    for (const SubnetPortRef src : order) {
      if (src == dst) continue;
      const LidRange s = g.port(src).lids, d = g.port(dst).lids;
      for (unsigned slid = s.first; slid <= s.last; ++slid) {
        for (unsigned dlid = d.first; dlid <= d.last; ++dlid) {
          if (!channels(g, t, src, static_cast<Lid>(dlid), chans)) return std::nullopt;
          cdg[0].add_path(chans, (slid << 16) + dlid);
          vl[slid][dlid] = 0;
          ++paths[0];
        }
      }
    }
  }

  unsigned needed = 1;
  for (unsigned test = 0; test + 1 < avail; ++test) {
    for (int start = cdg[test].root(); start >= 0;) {
      const int cycle = cdg[test].search_cycle(start);
      if (cycle >= 0) {
        needed = test + 2;
        const int weakest = cdg[test].cut_weakest(cycle);
        if (weakest < 0) return std::nullopt;
        const Cdg::Link moved = cdg[test].link(weakest);
        paths[test] -= moved.num_pairs;
        paths[test + 1] += moved.num_pairs;
        for (std::uint32_t i = 0; i < moved.num_pairs; ++i) {
          const unsigned slid = moved.pairs[i] >> 16, dlid = moved.pairs[i] & 0xFFFF;
          if (vl[slid][dlid] != test) {  // moved before: not counted
            ++paths[test];
            --paths[test + 1];
            continue;
          }
          if (!channels(g, t, port_of[slid], static_cast<Lid>(dlid), chans) || !cdg[test].remove_path(chans))
            return std::nullopt;
          cdg[test + 1].add_path(chans, moved.pairs[i]);
          vl[slid][dlid] = static_cast<std::uint8_t>(test + 1);
        }
      }
      start = cycle;
    }
  }
  if (const int last = cdg[avail - 1].root(); last >= 0 && cdg[avail - 1].search_cycle(last) >= 0) needed = avail + 1;
  if (needed_out) *needed_out = needed;
  if (needed > avail) return std::nullopt;

  // Balancing: the spare VLs go one by one to the layer with the most paths per VL; each layer's
  // paths then move to the first VL of its share, the last layer first.
  std::vector<unsigned> split(avail, 0);
  for (unsigned i = 0; i < std::min(needed, avail); ++i) split[i] = 1;
  if (needed < avail) {
    for (unsigned i = needed; i < avail; ++i) {
      unsigned best = 0;
      double most = 0.0;
      for (unsigned v = 0; v < needed; ++v) {
        const double avg = static_cast<double>(paths[v]) / split[v];
        if (most < avg) {
          best = v;
          most = avg;
        }
      }
      ++split[best];
    }
    for (unsigned from = needed - 1; from > 0; --from) {
      unsigned to = 0;
      for (unsigned i = 0; i < from; ++i) to += split[i];
      // vltable_change_vl: the first `count` entries in VL `from`, sources outer, in LID order.
      const std::uint64_t count = paths[from];
      std::uint64_t set = 0;
      for (std::size_t a = 0; a < lids.size() && set != count; ++a) {
        for (std::size_t b = 0; b < lids.size(); ++b) {
          if (set == count) break;
          if (a == b) continue;
          std::uint8_t& entry = vl[lids[a]][lids[b]];
          if (entry == from) {
            entry = static_cast<std::uint8_t>(to);
            ++set;
          }
        }
      }
      // As OpenSM: a layer whose share starts at its own VL ends up with a split count of 0.
      split[to] = split[from];
      split[from] = 0;
      paths[to] = paths[from];
      paths[from] = 0;
    }
  }

  DfssspLayers out;
  out.first_sl = std::move(vl);
  for (unsigned i = 0; i < 16; ++i) out.spread[i] = static_cast<std::uint8_t>(i < avail && split[i] > 1 ? split[i] : 1);
  out.vls_needed = needed;
  out.vls_available = avail;
  return out;
}

}  // namespace ibfsim
