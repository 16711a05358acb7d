#include "sim/subnet_manager/routing/ftree.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/minhop.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kUnranked = 0xFFFFFFFF;
constexpr std::uint8_t kNoPath = 0xFF;
constexpr unsigned kTupleLen = 8;
constexpr unsigned kMinRank = 2, kMaxRank = 8;

using Tuple = std::array<std::uint8_t, kTupleLen>;

struct FtPort {
  PortNum num;
  PortNum remote_num;
  std::uint32_t counter_up = 0;
  std::uint32_t counter_down = 0;
};

struct FtSwitch;

struct FtGroup {
  Lid base_lid = 0;         // this node's LID (an HCA: its port's)
  Lid remote_base_lid = 0;  // the remote node's (a switch: its port 0 LID; an HCA: its port's)
  Guid remote_port_guid = 0;
  FtSwitch* owner = nullptr;          // null for an HCA's group
  FtSwitch* remote_switch = nullptr;  // null when the remote node is an HCA
  std::size_t remote_hca = 0;         // index into Ftree::hcas when remote_switch is null
  std::vector<FtPort> ports;
  bool is_cn = false;
  std::uint32_t counter_down = 0;
  std::uint32_t counter_up = 0;
};

struct FtSwitch {
  std::size_t node = 0;
  std::uint32_t rank = kUnranked;
  Tuple tuple;
  Lid base_lid = 0;
  std::vector<FtGroup*> down, sibling, up;
  bool is_leaf = false;
  unsigned down_idx = 0;
  std::vector<std::uint8_t> hops;  // per LID
  std::uint32_t min_counter_down = 0;
  bool counter_up_changed = false;
  std::vector<PortNum>* lft = nullptr;

  bool ranked() const { return rank != kUnranked; }
};

struct FtHca {
  std::size_t node = 0;
  std::vector<FtGroup*> up;
  unsigned cn_num = 0;
};

// Why ftree cannot route this fabric.
struct NotFatTree {
  std::string why;
};

int compare_tuples(const Tuple& a, const Tuple& b) {
  for (unsigned i = 0; i < kTupleLen; ++i) {
    if (a[i] > b[i]) return 1;
    if (a[i] < b[i]) return -1;
  }
  return 0;
}

std::string tuple_str(const Tuple& t) {
  std::string s;
  for (unsigned i = 0; i < kTupleLen && t[i] != 0xFF; ++i) s += (i ? "." : "") + std::to_string(t[i]);
  return s;
}

class Ftree {
 public:
  Ftree(const SubnetGraph& g, RoutingTables& t) : g_(g), t_(t) {}

  void build();  // throws NotFatTree
  void route();
  std::string ca_order() const;
  // OpenSM's lft_max_lid: the highest LID of a switch or of a port cabled to one (the
  // LinearFDBTop ftree programs).
  Lid lft_max_lid() const { return lft_max_lid_; }

 private:
  // ---- construction ----
  FtSwitch* switch_of(std::size_t node) { return sw_of_node_[node]; }
  static bool update_rank(FtSwitch* s, std::uint32_t rank) {
    if (s->ranked() && s->rank <= rank) return false;
    s->rank = rank;
    return true;
  }
  void rank_from_hcas();
  void populate_ports();
  void add_switch_port(FtSwitch* s, int direction, PortNum port, PortNum remote_port, Lid remote_lid, Guid remote_guid,
                       FtSwitch* remote_sw, std::size_t remote_hca);
  void mark_leaves();
  void make_indexing();
  Tuple new_tuple(const Tuple& from, bool down) const;
  void create_leaf_array();
  void validate();

  // ---- routing ----
  bool route_upgoing_by_going_down(FtSwitch* s, FtSwitch* prev, Lid target, bool real, bool main, unsigned hops);
  bool route_downgoing_by_going_up(FtSwitch* s, FtSwitch* prev, Lid target, bool real, bool main, unsigned credit,
                                   unsigned reverse_hops, unsigned hops);
  static void bubble_sort_up(std::vector<FtGroup*>& a);
  static void bubble_sort_siblings(std::vector<FtGroup*>& a);
  static void bubble_sort_down(std::vector<FtGroup*>& a);
  static int compare_load_down(const FtGroup* p1, const FtGroup* p2);
  static void recalculate_min_counter_down(FtSwitch* s);
  static FtPort* least_port(FtGroup* grp, bool by_up) {
    FtPort* best = nullptr;
    for (FtPort& p : grp->ports)
      if (!best || (by_up ? p.counter_up < best->counter_up : p.counter_down < best->counter_down)) best = &p;
    return best;
  }
  static void set_hops_on_remote(FtGroup* grp, Lid target, unsigned hops) {
    grp->remote_switch->hops[target] = static_cast<std::uint8_t>(hops);
  }

  const SubnetGraph& g_;
  RoutingTables& t_;
  std::deque<FtSwitch> switches_;  // switch GUID table order
  std::deque<FtHca> hcas_;         // HCA node GUID table order
  std::deque<FtGroup> groups_;
  std::vector<FtSwitch*> sw_of_node_;
  std::vector<std::size_t> hca_of_node_;
  std::vector<FtSwitch*> by_tuple_;  // switches with an assigned tuple, for lookups
  std::vector<FtSwitch*> leaves_;
  std::uint32_t max_rank_ = 0;
  std::uint32_t leaf_rank_ = 0;
  unsigned cn_num_ = 0;
  unsigned max_cn_per_leaf_ = 0;
  Lid lft_max_lid_ = 0;
};

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
  rank_from_hcas();
  populate_ports();
  if (cn_num_ == 0) throw NotFatTree{"the fabric has no valid compute nodes"};
  leaf_rank_ = max_rank_;
  if (leaf_rank_ + 1 > kMaxRank || leaf_rank_ + 1 < kMinRank) {
    throw NotFatTree{fmt::format("the fabric rank is {} (should be between {} and {})", leaf_rank_ + 1, kMinRank, kMaxRank)};
  }
  mark_leaves();
  make_indexing();
  create_leaf_array();
  for (FtSwitch* leaf : leaves_) {
    unsigned cns = 0;
    for (FtGroup* grp : leaf->down)
      if (!grp->remote_switch) cns += hcas_[grp->remote_hca].cn_num;
    max_cn_per_leaf_ = std::max(max_cn_per_leaf_, cns);
  }
  validate();
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
  for (FtSwitch& s : switches_) s.rank = max_rank_ - s.rank;
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
      FtSwitch* s = switch_of(peer->node);
      // Without a CN file every CA port is a compute node.
      ++cn_num_;
      ++h.cn_num;
      const Lid remote_lid = s->base_lid;
      FtGroup* grp = nullptr;
      for (FtGroup* x : h.up)
        if (x->remote_base_lid == remote_lid) grp = x;
      if (!grp) {
        groups_.emplace_back();
        grp = &groups_.back();
        grp->base_lid = n.ports[p].lids.first;
        grp->remote_base_lid = remote_lid;
        grp->remote_port_guid = g_.port_guid(*peer);
        grp->remote_switch = s;
        grp->is_cn = true;
        h.up.push_back(grp);
      }
      bool have = false;
      for (const FtPort& x : grp->ports) have |= x.num == p;
      if (!have) grp->ports.push_back(FtPort{static_cast<PortNum>(p), peer->port});
    }
  }
  for (FtSwitch& s : switches_) {
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
  auto by_remote_index = [](const FtGroup* a, const FtGroup* b) {
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
      // Tuples are unique, so qsort's instability does not matter.
      std::sort(s->down.begin(), s->down.end(), by_remote_index);
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

// ---- routing ----

void Ftree::recalculate_min_counter_down(FtSwitch* s) {
  std::uint32_t min = 1u << 30;
  for (const FtGroup* grp : s->down) min = std::min(min, grp->counter_down);
  s->min_counter_down = min;
}

int Ftree::compare_load_down(const FtGroup* p1, const FtGroup* p2) {
  // OpenSM takes the difference of the unsigned counters as an int.
  int temp = static_cast<int>(p1->counter_down - p2->counter_down);
  if (temp > 0) return 1;
  if (temp < 0) return -1;
  temp = static_cast<int>(p1->remote_switch->min_counter_down - p2->remote_switch->min_counter_down);
  if (temp > 0) return 1;
  // Equal otherwise: the larger remote port GUID as OpenSM compares it (network byte order read as
  // a host integer).
  return guid_table_order(p1->remote_port_guid) > guid_table_order(p2->remote_port_guid) ? 1 : -1;
}

void Ftree::bubble_sort_up(std::vector<FtGroup*>& a) {
  if (a.empty() || !a[0]->owner->counter_up_changed) return;
  for (std::size_t i = 0, n = a.size();; ++i) {
    bool swapped = false;
    for (std::size_t j = 1; j + i < n; ++j) {
      if (a[j]->counter_up < a[j - 1]->counter_up) {
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
      if (a[j]->counter_up < a[j - 1]->counter_up) {
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

bool Ftree::route_upgoing_by_going_down(FtSwitch* s, FtSwitch* prev, Lid target, bool real, bool main, unsigned hops) {
  if (s->down.empty()) return false;
  bool created = false;
  bubble_sort_up(s->down);
  if (!s->sibling.empty()) bubble_sort_siblings(s->sibling);
  const std::size_t groups = s->down.size() + (real ? s->sibling.size() : 0);
  for (std::size_t k = 0; k < groups; ++k) {
    FtGroup* grp = k < s->down.size() ? s->down[k] : s->sibling[k - s->down.size()];
    if (!grp->remote_switch) {
      created = true;
      continue;
    }
    if (prev && grp->remote_base_lid == prev->base_lid) continue;
    FtPort* min_port = least_port(grp, /*by_up=*/true);
    FtSwitch* remote = grp->remote_switch;
    const std::uint8_t least = remote->hops[target];
    if (least != kNoPath && hops + 1 >= least) continue;
    if (real) {
      (*remote->lft)[target] = min_port->remote_num;
      set_hops_on_remote(grp, target, hops + 1);
    }
    const bool routed = route_upgoing_by_going_down(remote, nullptr, target, real, main, hops + 1);
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

bool Ftree::route_downgoing_by_going_up(FtSwitch* s, FtSwitch* prev, Lid target, bool real, bool main, unsigned credit,
                                        unsigned reverse_hops, unsigned hops) {
  bool created = route_upgoing_by_going_down(s, prev, target, real, main, hops);
  if (s->rank == 0) {
    if (credit > 0 && !s->down.empty()) {
      s->down_idx = (s->down_idx + 1) % static_cast<unsigned>(s->down.size());
      std::size_t i = s->down_idx;
      for (std::size_t j = 0; j < s->down.size(); ++j) {
        FtGroup* grp = s->down[i];
        i = (i + 1) % s->down.size();
        if (!grp->remote_switch) continue;
        created |= route_downgoing_by_going_up(grp->remote_switch, s, target, real, main, credit - 1, reverse_hops + 1,
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
    if (real) {
      if ((*remote->lft)[target] == kNoRoute || hops + 1 < remote->hops[target]) {
        (*remote->lft)[target] = min_port->remote_num;
        set_hops_on_remote(min_group, target, hops + 1);
        created |= route_downgoing_by_going_up(remote, s, target, real, main, credit, reverse_hops, hops + 1);
      }
    }
  }
  if (!real) return created;

  for (std::size_t i = main ? 1 : 0; i < s->up.size(); ++i) {
    FtGroup* grp = s->up[i];
    FtSwitch* r = grp->remote_switch;
    if ((*r->lft)[target] != kNoRoute && hops + 1 >= r->hops[target]) continue;
    FtPort* port = least_port(grp, /*by_up=*/false);
    (*r->lft)[target] = port->remote_num;
    set_hops_on_remote(grp, target, hops + 1);
    created |= route_downgoing_by_going_up(r, s, target, true, false, credit, reverse_hops, hops + 1);
  }
  if (!s->sibling.empty()) bubble_sort_down(s->sibling);
  for (FtGroup* grp : s->sibling) {
    FtSwitch* r = grp->remote_switch;
    if ((*r->lft)[target] != kNoRoute && hops + 1 >= r->hops[target]) continue;
    FtPort* port = least_port(grp, /*by_up=*/false);
    (*r->lft)[target] = port->remote_num;
    set_hops_on_remote(grp, target, hops + 1);
    const bool routed = route_downgoing_by_going_up(r, s, target, true, false, credit, reverse_hops, hops + 1);
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
    created |= route_downgoing_by_going_up(grp->remote_switch, s, target, true, true, credit - 1, reverse_hops + 1,
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
      const FtGroup* hca_group = nullptr;
      for (const FtGroup* x : h.up)
        if (x->remote_base_lid == grp->base_lid) {
          hca_group = x;
          break;
        }
      if (!hca_group || !hca_group->is_cn) continue;
      const Lid lid = grp->remote_base_lid;
      (*leaf->lft)[lid] = grp->ports[0].num;
      leaf->hops[lid] = 1;
      route_downgoing_by_going_up(leaf, nullptr, lid, true, true, 0, 0, 1);
      ++routed;
    }
    for (unsigned j = routed; j < max_cn_per_leaf_; ++j) route_downgoing_by_going_up(leaf, nullptr, 0, false, true, 0, 0, 1);
  }
  // (No non-compute-node CA ports without a CN file.) Switch LIDs.
  for (FtSwitch& s : switches_) {
    (*s.lft)[s.base_lid] = 0;
    s.hops[s.base_lid] = 0;
    route_downgoing_by_going_up(&s, nullptr, s.base_lid, true, false, 0, 0, 0);
  }
  // fabric_route_roots only sets hop counts with connect_roots FALSE: no LFT entry.
}

std::string Ftree::ca_order() const {
  std::string out;
  for (const FtSwitch* leaf : leaves_) {
    unsigned printed = 0;
    for (const FtGroup* grp : leaf->down) {
      if (grp->remote_switch) continue;
      const FtHca& h = hcas_[grp->remote_hca];
      const FtGroup* hca_group = nullptr;
      for (const FtGroup* x : h.up)
        if (x->remote_base_lid == grp->base_lid) {
          hca_group = x;
          break;
        }
      if (!hca_group || !hca_group->is_cn) continue;
      out += fmt::format("0x{:04x}\t{}\n", hca_group->base_lid, g_.nodes[h.node].description);
      ++printed;
    }
    for (unsigned j = printed; j < max_cn_per_leaf_; ++j) out += "0xFFFF\tDUMMY\n";
  }
  return out;
}

}  // namespace

RoutingTables route_ftree(const SubnetGraph& g, std::string* ca_order) {
  if (ca_order) ca_order->clear();
  RoutingTables t = empty_routing_tables(g);
  Ftree ft(g, t);
  try {
    ft.build();
  } catch (const NotFatTree& e) {
    RoutingTables fallback = route_minhop(g);
    fallback.notes.push_back(fmt::format("ftree: {}: not a fat tree ftree can route, falling back to minhop (as OpenSM does)", e.why));
    return fallback;
  }
  ft.route();
  t.lft_top = ft.lft_max_lid();
  for (auto& lft : t.lft)
    if (!lft.empty()) lft.resize(static_cast<std::size_t>(t.lft_top) + 1);
  if (ca_order) *ca_order = ft.ca_order();
  return t;
}

}  // namespace ibfsim
