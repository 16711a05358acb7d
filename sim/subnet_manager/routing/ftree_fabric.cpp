#include "sim/subnet_manager/routing/ftree_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/minhop.h"

namespace ibfsim::ftree_engine {

void Ftree::build() {
  if (g_.lmc > 0) throw NotFatTree{"LMC > 0 is not supported by fat-tree routing"};
  const SwitchIndex sw(g_);
  if (sw.size() < 2) throw NotFatTree{fmt::format("the fabric has {} switches", sw.size())};
  std::vector<std::size_t> hca_nodes = g_.cas();
  if (hca_nodes.size() < 2) throw NotFatTree{fmt::format("the fabric has {} CAs", hca_nodes.size())};
  std::sort(hca_nodes.begin(), hca_nodes.end(), [&](std::size_t a, std::size_t b) {
    return guid_table_order(g_.nodes[a].node_guid) < guid_table_order(g_.nodes[b].node_guid);
  });
  sw_of_node_.assign(g_.nodes.size(), nullptr);
  hca_of_node_.assign(g_.nodes.size(), kNoSubnetNode);
  for (std::size_t node : sw.node) {
    FtSwitch s;
    s.node = node;
    s.tuple.fill(0xFF);
    s.base_lid = g_.nodes[node].ports[0].lids.first;
    s.hops.assign(static_cast<std::size_t>(t_.lft_top) + 1, kNoPath);
    s.lft = &t_.lft[node];
    switches_.push_back(std::move(s));
    sw_of_node_[node] = &switches_.back();
    lft_max_lid_ = std::max(lft_max_lid_, switches_.back().base_lid);
  }
  for (std::size_t node : hca_nodes) {
    hca_of_node_[node] = hcas_.size();
    hcas_.push_back(FtHca{node, {}, 0});
  }
  rank();
  drop_unranked();
  std::size_t live = 0;
  for (const FtSwitch& s : switches_) live += !s.dropped;
  if (max_rank_ == 0 && live > 1) throw NotFatTree{"more than one root with the maximum rank 0"};
  populate_ports();
  if (cn_num_ == 0) throw NotFatTree{"the fabric has no valid compute nodes"};
  if (roots_.empty()) {
    leaf_rank_ = max_rank_;  // a pure fat tree: the leaves have the highest rank
  } else {
    // The rank of the switch of the first compute node, in CA GUID table order.
    for (const FtHca& h : hcas_) {
      if (!h.cn_num) continue;
      for (const FtGroup* grp : h.up)
        if (grp->is_cn) {
          leaf_rank_ = grp->remote_switch->rank;
          break;
        }
      break;
    }
  }
  if (leaf_rank_ + 1 > kMaxRank || leaf_rank_ + 1 < kMinRank) {
    throw NotFatTree{fmt::format("the fabric rank is {} (should be between {} and {})", leaf_rank_ + 1, kMinRank, kMaxRank)};
  }
  mark_leaves();
  make_indexing();
  create_leaf_array();
  for (FtSwitch* leaf : leaves_) {
    unsigned cns = 0;
    for (FtGroup* grp : leaf->down) {
      if (grp->remote_switch) continue;
      const FtGroup* up = hca_group(hcas_[grp->remote_hca], grp->remote_base_lid);
      if (up && up->is_cn) ++cns;
    }
    max_cn_per_leaf_ = std::max(max_cn_per_leaf_, cns);
  }
  // The tree must be regular only when no roots were given.
  if (roots_.empty()) validate();
}

const FtGroup* Ftree::hca_group(const FtHca& h, Lid lid) const {
  for (const FtGroup* x : h.up)
    if (x->base_lid == lid) return x;
  return nullptr;
}

void Ftree::rank() {
  std::deque<FtSwitch*> roots;
  for (Guid guid : roots_) {
    FtSwitch* found = nullptr;
    for (FtSwitch& s : switches_)
      if (g_.nodes[s.node].node_guid == guid) found = &s;
    if (!found) {
      notes_.push_back(fmt::format("ftree: root switch GUID {:#018x} not found (skipped, as OpenSM does)", guid));
      continue;
    }
    found->rank = 0;
    roots.push_back(found);
  }
  if (!roots.empty()) return rank_from(std::move(roots));
  if (!roots_.empty()) notes_.push_back("ftree: no valid roots supplied: ranking from the CAs (as OpenSM does)");
  rank_from_hcas();
  // Rank again from the switches that came out on top.
  std::deque<FtSwitch*> top;
  for (FtSwitch& s : switches_) {
    if (s.rank == 0) top.push_back(&s);
    else s.rank = kUnranked;
  }
  rank_from(std::move(top));
}

void Ftree::rank_from(std::deque<FtSwitch*> queue) {
  std::uint32_t max_rank = 0;
  while (!queue.empty()) {
    FtSwitch* s = queue.front();
    queue.pop_front();
    const SubnetNode& n = g_.nodes[s->node];
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer || !g_.nodes[peer->node].is_switch()) continue;
      FtSwitch* r = switch_of(peer->node);
      if (update_rank(r, s->rank + 1)) {
        max_rank = r->rank;
        queue.push_back(r);
      }
    }
  }
  max_rank_ = max_rank;
}

void Ftree::drop_unranked() {
  for (FtSwitch& s : switches_) {
    if (s.ranked()) continue;
    s.dropped = true;
    notes_.push_back(fmt::format("ftree: switch '{}' is not reached from the roots: left out of the tree (as OpenSM "
                                 "does)",
                                 g_.nodes[s.node].description));
  }
}

bool Ftree::is_compute_node(Guid port_guid) const {
  if (compute_nodes_.empty()) return true;  // without a CN file every CA port is a compute node
  return std::find(compute_nodes_.begin(), compute_nodes_.end(), port_guid) != compute_nodes_.end();
}

void Ftree::rank_from_hcas() {
  std::deque<FtSwitch*> queue;
  for (const FtHca& h : hcas_) {
    const SubnetNode& n = g_.nodes[h.node];
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer) continue;
      if (!g_.nodes[peer->node].is_switch()) {
        throw NotFatTree{fmt::format("CA '{}' is cabled directly to CA '{}'", n.description, g_.nodes[peer->node].description)};
      }
      FtSwitch* s = switch_of(peer->node);
      if (update_rank(s, 0)) queue.push_back(s);
    }
  }
  rank_from(std::move(queue));
  for (FtSwitch& s : switches_)
    if (s.ranked()) s.rank = max_rank_ - s.rank;  // the roots on top: rank 0
}

void Ftree::add_switch_port(FtSwitch* s, int direction, PortNum port, PortNum remote_port, Lid remote_lid,
                            Guid remote_guid, FtSwitch* remote_sw, std::size_t remote_hca) {
  std::vector<FtGroup*>& list = direction > 0 ? s->up : direction == 0 ? s->sibling : s->down;
  FtGroup* grp = nullptr;
  for (FtGroup* x : list)
    if (x->remote_base_lid == remote_lid) grp = x;
  if (!grp) {
    groups_.emplace_back();
    grp = &groups_.back();
    grp->base_lid = s->base_lid;
    grp->remote_base_lid = remote_lid;
    grp->remote_port_guid = remote_guid;
    grp->owner = s;
    grp->remote_switch = remote_sw;
    grp->remote_hca = remote_hca;
    list.push_back(grp);
  }
  for (const FtPort& p : grp->ports)
    if (p.num == port) return;
  grp->ports.push_back(FtPort{port, remote_port});
}

void Ftree::populate_ports() {
  for (FtHca& h : hcas_) {
    const SubnetNode& n = g_.nodes[h.node];
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer) continue;
      if (!g_.nodes[peer->node].is_switch()) {
        throw NotFatTree{fmt::format("CA '{}' is cabled directly to CA '{}'", n.description,
                                     g_.nodes[peer->node].description)};
      }
      FtSwitch* s = switch_of(peer->node);
      if (s->dropped) continue;  // its switch is not part of the tree
      const bool cn = is_compute_node(n.ports[p].guid);
      if (cn) {
        ++cn_num_;
        ++h.cn_num;
      }
      // One group per CA port, keyed by the port's own LID.
      const Lid lid = n.ports[p].lids.first;
      if (hca_group(h, lid)) continue;  // OpenSM: duplicated LID for a CA port
      groups_.emplace_back();
      FtGroup* grp = &groups_.back();
      grp->base_lid = lid;
      grp->remote_base_lid = s->base_lid;
      grp->remote_port_guid = g_.port_guid(*peer);
      grp->remote_switch = s;
      grp->is_cn = cn;
      grp->ports.push_back(FtPort{static_cast<PortNum>(p), peer->port});
      h.up.push_back(grp);
    }
  }
  for (FtSwitch& s : switches_) {
    if (s.dropped) continue;
    const SubnetNode& n = g_.nodes[s.node];
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer || peer->node == s.node) continue;
      Lid remote_lid = 0;
      if (!g_.nodes[peer->node].is_switch()) {
        remote_lid = g_.port(*peer).lids.first;
        add_switch_port(&s, -1, static_cast<PortNum>(p), peer->port, remote_lid, g_.port_guid(*peer), nullptr,
                        hca_of_node_[peer->node]);
      } else {
        FtSwitch* r = switch_of(peer->node);
        remote_lid = r->base_lid;
        const int direction = s.rank > r->rank ? 1 : s.rank == r->rank ? 0 : -1;
        add_switch_port(&s, direction, static_cast<PortNum>(p), peer->port, remote_lid, g_.port_guid(*peer), r, 0);
      }
      lft_max_lid_ = std::max(lft_max_lid_, remote_lid);
    }
  }
}

void Ftree::mark_leaves() {
  for (FtHca& h : hcas_) {
    if (!h.cn_num) continue;
    for (FtGroup* grp : h.up) {
      if (!grp->is_cn) continue;
      FtSwitch* s = grp->remote_switch;
      if (s->is_leaf) continue;
      s->is_leaf = true;
      if (s->rank != leaf_rank_) {
        throw NotFatTree{fmt::format("CA '{}' is cabled to switch '{}' of rank {}, while the fat-tree leaf rank is {}",
                                     g_.nodes[h.node].description, g_.nodes[s->node].description, s->rank, leaf_rank_)};
      }
    }
  }
}

Tuple Ftree::new_tuple(const Tuple& from, bool down) const {
  Tuple temp = from;
  unsigned var_index;
  if (down) {
    ++temp[0];
    var_index = from[0] + 1u;
  } else {
    --temp[0];
    var_index = from[0];
  }
  Tuple none;
  none.fill(0xFF);
  if (var_index >= kTupleLen) return none;
  for (unsigned i = 0; i < 0xFF; ++i) {
    temp[var_index] = static_cast<std::uint8_t>(i);
    bool used = false;
    for (const FtSwitch* s : by_tuple_) {
      if (s->tuple == temp) {
        used = true;
        break;
      }
    }
    if (!used) return temp;
  }
  return none;
}

void Ftree::make_indexing() {
  FtSwitch* first = nullptr;
  for (FtSwitch& s : switches_) {
    if (s.is_leaf) {
      first = &s;
      break;
    }
  }
  Tuple t;
  t.fill(0xFF);
  t[0] = static_cast<std::uint8_t>(first->rank);
  for (unsigned i = 1; i <= first->rank && i < kTupleLen; ++i) t[i] = 0;
  first->tuple = t;
  by_tuple_.push_back(first);
  // OpenSM sorts by the remote switch's tuple. A down group to a CA (a non-compute node on a
  // switch above the leaves, possible with a roots file) is read there as if it were a switch: the
  // "tuple" is then bytes of heap pointers in the CA's structure, whose first byte (a pointer's
  // fifth, 0x55 and up on x86-64 Linux) exceeds every rank, so such groups sort after the switches;
  // among themselves they keep their order here (OpenSM's is its heap layout's).
  auto by_remote_index = [](const FtGroup* a, const FtGroup* b) {
    if (!a->remote_switch || !b->remote_switch) return a->remote_switch && !b->remote_switch;
    return compare_tuples(a->remote_switch->tuple, b->remote_switch->tuple) < 0;
  };
  std::deque<FtSwitch*> queue{first};
  while (!queue.empty()) {
    FtSwitch* s = queue.front();
    queue.pop_front();
    if (s->rank < leaf_rank_) {
      for (FtGroup* grp : s->down) {
        if (!grp->remote_switch) continue;
        FtSwitch* r = grp->remote_switch;
        if (r->tuple[0] != 0xFF) continue;
        r->tuple = new_tuple(s->tuple, true);
        by_tuple_.push_back(r);
        queue.push_back(r);
      }
      // Tuples are unique, so qsort's instability does not matter but among CA groups.
      std::stable_sort(s->down.begin(), s->down.end(), by_remote_index);
    }
    if (s->rank != 0) {
      for (FtGroup* grp : s->up) {
        FtSwitch* r = grp->remote_switch;
        if (r->tuple[0] != 0xFF) continue;
        r->tuple = new_tuple(s->tuple, false);
        by_tuple_.push_back(r);
        queue.push_back(r);
      }
      std::sort(s->up.begin(), s->up.end(), by_remote_index);
    }
  }
}

void Ftree::create_leaf_array() {
  std::vector<FtSwitch*> all;
  for (FtSwitch& s : switches_)
    if (s.rank == leaf_rank_) all.push_back(&s);
  std::stable_sort(all.begin(), all.end(),
                   [](const FtSwitch* a, const FtSwitch* b) { return compare_tuples(a->tuple, b->tuple) < 0; });
  std::size_t first = all.size(), last = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i]->is_leaf) {
      first = std::min(first, i);
      last = i;
    }
  }
  if (first >= all.size()) throw NotFatTree{"no leaf switch"};
  leaves_.assign(all.begin() + static_cast<std::ptrdiff_t>(first), all.begin() + static_cast<std::ptrdiff_t>(last) + 1);
}

void Ftree::validate() {
  const std::uint32_t tree_rank = leaf_rank_ + 1;
  std::vector<FtSwitch*> ref(tree_rank, nullptr);
  auto name = [&](const FtSwitch* s) { return fmt::format("'{}' (index {})", g_.nodes[s->node].description, tuple_str(s->tuple)); };
  for (FtSwitch& sw : switches_) {
    if (sw.dropped) continue;
    FtSwitch* s = &sw;
    if (s->rank >= tree_rank) throw NotFatTree{fmt::format("switch {} has rank {}", name(s), s->rank)};
    FtSwitch* r = ref[s->rank];
    if (!r) {
      ref[s->rank] = s;
      continue;
    }
    if (r->up.size() != s->up.size()) {
      throw NotFatTree{fmt::format("different numbers of upward port groups on switches {} ({}) and {} ({})", name(r),
                                   r->up.size(), name(s), s->up.size())};
    }
    if (s->rank != tree_rank - 1 && r->down.size() != s->down.size()) {
      throw NotFatTree{fmt::format("different numbers of downward port groups on switches {} ({}) and {} ({})",
                                   name(r), r->down.size(), name(s), s->down.size())};
    }
    if (!r->up.empty()) {
      for (const FtGroup* grp : s->up) {
        if (grp->ports.size() != r->up[0]->ports.size()) {
          throw NotFatTree{fmt::format("different numbers of ports in an upward port group on switches {} and {}",
                                       name(r), name(s))};
        }
      }
    }
    if (!r->down.empty() && s->rank != tree_rank - 1) {
      // OpenSM compares this switch's first down group, once per down group.
      for (std::size_t i = 0; i < s->down.size(); ++i) {
        if (s->down[0]->ports.size() != r->down[0]->ports.size()) {
          throw NotFatTree{fmt::format("different numbers of ports in a downward port group on switches {} and {}",
                                       name(r), name(s))};
        }
      }
    }
  }
}

}  // namespace ibfsim::ftree_engine
