#include "sim/subnet_manager/routing/ftree.h"

#include "sim/subnet_manager/routing/ftree_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/minhop.h"

namespace ibfsim {

namespace ftree_engine {

// ---- routing ----

void Ftree::recalculate_min_counter_down(FtSwitch* s) {
  std::uint32_t min = 1u << 30;
  for (const FtGroup* grp : s->down) min = std::min(min, grp->counter_down);
  s->min_counter_down = min;
}

int Ftree::compare_remote_index(const FtGroup* p1, const FtGroup* p2) {
  // A group to a CA has no index: OpenSM reads heap pointer bytes there, which sort after every
  // switch (ftree_fabric.cpp, make_indexing); two of them compare equal here.
  if (!p1->remote_switch || !p2->remote_switch) return p1->remote_switch ? -1 : p2->remote_switch ? 1 : 0;
  return compare_tuples(p1->remote_switch->tuple, p2->remote_switch->tuple);
}

int Ftree::compare_load_up(const FtGroup* p1, const FtGroup* p2) {
  const int temp = static_cast<int>(p1->counter_up - p2->counter_up);  // unsigned difference as an int
  if (temp > 0) return 1;
  if (temp < 0) return -1;
  return compare_remote_index(p1, p2);  // equally loaded: the lower index first
}

int Ftree::compare_load_down(const FtGroup* p1, const FtGroup* p2) {
  // OpenSM takes the difference of the unsigned counters as an int.
  int temp = static_cast<int>(p1->counter_down - p2->counter_down);
  if (temp > 0) return 1;
  if (temp < 0) return -1;
  // The remote switch whose least loaded down group carries more goes later (a smaller load does
  // not decide: OpenSM falls through to the index then).
  temp = static_cast<int>(p1->remote_switch->min_counter_down - p2->remote_switch->min_counter_down);
  if (temp > 0) return 1;
  return compare_remote_index(p1, p2);
}

void Ftree::bubble_sort_up(std::vector<FtGroup*>& a) {
  if (a.empty() || !a[0]->owner->counter_up_changed) return;
  for (std::size_t i = 0, n = a.size();; ++i) {
    bool swapped = false;
    for (std::size_t j = 1; j + i < n; ++j) {
      if (compare_load_up(a[j], a[j - 1]) < 0) {
        std::swap(a[j], a[j - 1]);
        swapped = true;
      }
    }
    if (!swapped) break;
  }
  a[0]->owner->counter_up_changed = false;
}

void Ftree::bubble_sort_siblings(std::vector<FtGroup*>& a) {
  for (std::size_t i = 0, n = a.size();; ++i) {
    bool swapped = false;
    for (std::size_t j = 1; j + i < n; ++j) {
      if (compare_load_up(a[j], a[j - 1]) < 0) {
        std::swap(a[j], a[j - 1]);
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}

void Ftree::bubble_sort_down(std::vector<FtGroup*>& a) {
  for (std::size_t i = 0, n = a.size();; ++i) {
    bool swapped = false;
    for (std::size_t j = 1; j + i < n; ++j) {
      if (compare_load_down(a[j], a[j - 1]) < 0) {
        std::swap(a[j], a[j - 1]);
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}

bool Ftree::route_upgoing_by_going_down(FtSwitch* s, FtSwitch* prev, Lid target, bool main, unsigned hops) {
  if (s->down.empty()) return false;
  bool created = false;
  bubble_sort_up(s->down);
  if (!s->sibling.empty()) bubble_sort_siblings(s->sibling);
  // Siblings too, but not for a dummy CA (target 0).
  const std::size_t groups = s->down.size() + (target != 0 ? s->sibling.size() : 0);
  for (std::size_t k = 0; k < groups; ++k) {
    FtGroup* grp = k < s->down.size() ? s->down[k] : s->sibling[k - s->down.size()];
    if (!grp->remote_switch) {
      created = true;
      continue;
    }
    if (prev && grp->remote_base_lid == prev->base_lid) continue;
    if (grp->ports.empty()) continue;
    FtPort* min_port = least_port(grp, /*by_up=*/true);
    FtSwitch* remote = grp->remote_switch;
    const std::uint8_t least = remote->hops[target];
    if (least != kNoPath && hops + 1 >= least) continue;  // reached before by a path no longer
    (*remote->lft)[target] = min_port->remote_num;
    set_hops_on_remote(grp, target, hops + 1);
    const bool routed = route_upgoing_by_going_down(remote, nullptr, target, main, hops + 1);
    created |= routed;
    if (routed) {
      ++min_port->counter_up;
      ++grp->counter_up;
      grp->owner->counter_up_changed = true;
    }
  }
  if (created) s->down_idx = (s->down_idx + 1) % static_cast<unsigned>(s->down.size());
  return created;
}

bool Ftree::route_downgoing_by_going_up(FtSwitch* s, FtSwitch* prev, Lid target, bool main, unsigned credit,
                                        unsigned reverse_hops, unsigned hops) {
  bool created = route_upgoing_by_going_down(s, prev, target, main, hops);
  if (s->rank == 0) {
    if (credit > 0 && !s->down.empty()) {
      s->down_idx = (s->down_idx + 1) % static_cast<unsigned>(s->down.size());
      std::size_t i = s->down_idx;
      for (std::size_t j = 0; j < s->down.size(); ++j) {
        FtGroup* grp = s->down[i];
        i = (i + 1) % s->down.size();
        if (!grp->remote_switch) continue;
        created |= route_downgoing_by_going_up(grp->remote_switch, s, target, main, credit - 1, reverse_hops + 1,
                                               hops + 1);
      }
    }
    return created;
  }
  bubble_sort_down(s->up);
  FtGroup* min_group = s->up[0];
  FtPort* min_port = least_port(min_group, /*by_up=*/false);
  FtSwitch* remote = min_group->remote_switch;
  if (main) {
    ++min_group->counter_down;
    ++min_port->counter_down;
    if (min_group->counter_down == remote->min_counter_down + 1) recalculate_min_counter_down(remote);
    // The LFT only if unset or reached now by a shorter path; the climb goes on either way.
    if ((*remote->lft)[target] == kNoRoute || hops + 1 < remote->hops[target]) {
      (*remote->lft)[target] = min_port->remote_num;
      set_hops_on_remote(min_group, target, hops + 1);
    }
    created |= route_downgoing_by_going_up(remote, s, target, main, credit, reverse_hops, hops + 1);
  }
  // Secondary paths up every other group (every group off the main path), uncounted.
  for (std::size_t i = main ? 1 : 0; i < s->up.size(); ++i) {
    FtGroup* grp = s->up[i];
    FtSwitch* r = grp->remote_switch;
    if ((*r->lft)[target] != kNoRoute && hops + 1 >= r->hops[target]) continue;
    if (grp->ports.empty()) continue;
    FtPort* port = least_port(grp, /*by_up=*/false);
    (*r->lft)[target] = port->remote_num;
    set_hops_on_remote(grp, target, hops + 1);
    created |= route_downgoing_by_going_up(r, s, target, false, credit, reverse_hops, hops + 1);
  }
  if (!s->sibling.empty()) bubble_sort_down(s->sibling);
  for (FtGroup* grp : s->sibling) {
    FtSwitch* r = grp->remote_switch;
    if ((*r->lft)[target] != kNoRoute && hops + 1 >= r->hops[target]) continue;
    FtPort* port = least_port(grp, /*by_up=*/false);
    (*r->lft)[target] = port->remote_num;
    set_hops_on_remote(grp, target, hops + 1);
    const bool routed = route_downgoing_by_going_up(r, s, target, false, credit, reverse_hops, hops + 1);
    created |= routed;
    if (routed) {
      // OpenSM counts these on the main path's group and port.
      ++min_group->counter_down;
      ++min_port->counter_down;
    }
  }
  if (credit == 0 || s->is_leaf) return created;
  for (FtGroup* grp : s->down) {
    if (!grp->remote_switch) continue;
    created |= route_downgoing_by_going_up(grp->remote_switch, s, target, true, credit - 1, reverse_hops + 1,
                                           hops + 1);
  }
  return created;
}

void Ftree::route() {
  // Compute nodes, leaf by leaf.
  for (FtSwitch* leaf : leaves_) {
    unsigned routed = 0;
    for (std::size_t j = 0; j < leaf->down.size(); ++j) {
      FtGroup* grp = leaf->down[j];
      if (grp->remote_switch) continue;
      const FtHca& h = hcas_[grp->remote_hca];
      if (!h.cn_num) continue;
      const FtGroup* up = hca_group(h, grp->remote_base_lid);
      if (!up || !up->is_cn) continue;
      const Lid lid = grp->remote_base_lid;
      (*leaf->lft)[lid] = grp->ports[0].num;
      leaf->hops[lid] = 1;
      route_downgoing_by_going_up(leaf, nullptr, lid, true, 0, 0, 1);
      ++routed;
    }
    // Dummy CAs up to the fullest leaf: routed to LID 0 (counted), which is cleared after each.
    for (unsigned j = routed; j < max_cn_per_leaf_; ++j) {
      leaf->hops[0] = 1;
      route_downgoing_by_going_up(leaf, nullptr, 0, true, 0, 0, 1);
      for (FtSwitch& s : switches_) {
        if (s.dropped) continue;
        s.hops[0] = kNoPath;
        (*s.lft)[0] = kNoRoute;
      }
    }
  }
  route_to_non_compute_nodes();
  // Switch LIDs.
  for (FtSwitch& s : switches_) {
    if (s.dropped) continue;
    (*s.lft)[s.base_lid] = 0;
    s.hops[s.base_lid] = 0;
    route_downgoing_by_going_up(&s, nullptr, s.base_lid, false, 0, 0, 0);
  }
  // fabric_route_roots only sets hop counts with connect_roots FALSE: no LFT entry.
}

void Ftree::route_to_non_compute_nodes() {
  // With a CN file, the other CA ports (CA GUID table order, each CA's ports in order), each from
  // its own switch as a compute node from its leaf, counted on the ports as they are.
  for (const FtHca& h : hcas_) {
    for (const FtGroup* grp : h.up) {
      if (grp->is_cn || !grp->remote_switch) continue;
      FtSwitch* s = grp->remote_switch;
      const Lid lid = grp->base_lid;
      (*s->lft)[lid] = grp->ports[0].remote_num;
      s->hops[lid] = 1;
      route_downgoing_by_going_up(s, nullptr, lid, true, 0, 0, 1);
    }
  }
}

std::vector<std::uint32_t> Ftree::ranks_by_node() const {
  std::vector<std::uint32_t> r(g_.nodes.size(), kUnranked);
  for (const FtSwitch& s : switches_)
    if (!s.dropped) r[s.node] = s.rank;
  return r;
}

std::string Ftree::ca_order() const {
  std::string out;
  for (const FtSwitch* leaf : leaves_) {
    unsigned printed = 0;
    for (const FtGroup* grp : leaf->down) {
      if (grp->remote_switch) continue;
      const FtHca& h = hcas_[grp->remote_hca];
      const FtGroup* up = hca_group(h, grp->remote_base_lid);
      if (!up || !up->is_cn) continue;  // non-compute nodes count as dummies
      out += fmt::format("0x{:04x}\t{}\n", up->base_lid, g_.nodes[h.node].description);
      ++printed;
    }
    for (unsigned j = printed; j < max_cn_per_leaf_; ++j) out += "0xFFFF\tDUMMY\n";
  }
  return out;
}

}  // namespace ftree_engine

RoutingTables route_ftree(const SubnetGraph& g, const FtreeOptions& options, std::string* ca_order,
                          std::vector<std::uint32_t>* ranks) {
  using namespace ftree_engine;
  if (ca_order) ca_order->clear();
  if (ranks) ranks->clear();
  RoutingTables t = empty_routing_tables(g);
  Ftree ft(g, t, options.roots, options.compute_nodes);
  try {
    ft.build();
  } catch (const NotFatTree& e) {
    RoutingTables fallback = route_minhop(g);
    fallback.notes = ft.notes();
    fallback.notes.push_back(
        fmt::format("ftree: {}: not a fat tree ftree can route, falling back to minhop (as OpenSM does)", e.why));
    return fallback;
  }
  ft.route();
  t.notes = ft.notes();
  t.lft_top = ft.lft_max_lid();
  for (auto& lft : t.lft)
    if (!lft.empty()) lft.resize(static_cast<std::size_t>(t.lft_top) + 1);
  if (ca_order) *ca_order = ft.ca_order();
  if (ranks) *ranks = ft.ranks_by_node();
  return t;
}

}  // namespace ibfsim
