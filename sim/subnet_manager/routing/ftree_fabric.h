// OpenSM 3.3's ftree routing engine (osm_ucast_ftree.c), the parts shared by its two halves: the
// fat tree as ftree sees it (switches ranked from the HCAs, tuples, port groups up, down and to
// siblings, leaves and compute nodes), built and checked in ftree_fabric.cpp, and the routing
// itself (the up/down counters that balance the LFTs) in ftree.cpp. Internal to the engine: the
// rest of the code calls route_ftree (ftree.h).
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim::ftree_engine {

inline constexpr std::uint32_t kUnranked = 0xFFFFFFFF;
inline constexpr std::uint8_t kNoPath = 0xFF;
inline constexpr unsigned kTupleLen = 8;
inline constexpr unsigned kMinRank = 2, kMaxRank = 8;

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
  bool dropped = false;  // unranked after ranking from roots: not part of the tree
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

inline int compare_tuples(const Tuple& a, const Tuple& b) {
  for (unsigned i = 0; i < kTupleLen; ++i) {
    if (a[i] > b[i]) return 1;
    if (a[i] < b[i]) return -1;
  }
  return 0;
}

inline std::string tuple_str(const Tuple& t) {
  std::string s;
  for (unsigned i = 0; i < kTupleLen && t[i] != 0xFF; ++i) s += (i ? "." : "") + std::to_string(t[i]);
  return s;
}

class Ftree {
 public:
  // `roots`: node GUIDs (OpenSM's root_guid_file; empty: none given); `compute_nodes`: port GUIDs
  // (cn_guid_file; empty: every CA port).
  Ftree(const SubnetGraph& g, RoutingTables& t, std::vector<Guid> roots, std::vector<Guid> compute_nodes)
      : g_(g), t_(t), roots_(std::move(roots)), compute_nodes_(std::move(compute_nodes)) {}

  void build();  // throws NotFatTree
  void route();
  std::string ca_order() const;
  // Every graph node's rank (kUnranked for CAs and dropped switches).
  std::vector<std::uint32_t> ranks_by_node() const;
  // What OpenSM logs and carries on after (root GUIDs that are no switch, switches dropped).
  const std::vector<std::string>& notes() const { return notes_; }
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
  void rank();
  void rank_from_hcas();
  void rank_from(std::deque<FtSwitch*> queue);
  void drop_unranked();
  void populate_ports();
  bool is_compute_node(Guid port_guid) const;
  // The CA's up group whose port has LID `lid`.
  const FtGroup* hca_group(const FtHca& h, Lid lid) const;
  void route_to_non_compute_nodes();
  void add_switch_port(FtSwitch* s, int direction, PortNum port, PortNum remote_port, Lid remote_lid, Guid remote_guid,
                       FtSwitch* remote_sw, std::size_t remote_hca);
  void mark_leaves();
  void make_indexing();
  Tuple new_tuple(const Tuple& from, bool down) const;
  void create_leaf_array();
  void validate();

  // ---- routing ----
  // OpenSM's fabric_route_upgoing_by_going_down / fabric_route_downgoing_by_going_up; `main`: the
  // path is counted (is_main_path); target 0 is a dummy CA.
  bool route_upgoing_by_going_down(FtSwitch* s, FtSwitch* prev, Lid target, bool main, unsigned hops);
  bool route_downgoing_by_going_up(FtSwitch* s, FtSwitch* prev, Lid target, bool main, unsigned credit,
                                   unsigned reverse_hops, unsigned hops);
  static void bubble_sort_up(std::vector<FtGroup*>& a);
  static void bubble_sort_siblings(std::vector<FtGroup*>& a);
  static void bubble_sort_down(std::vector<FtGroup*>& a);
  static int compare_remote_index(const FtGroup* p1, const FtGroup* p2);
  static int compare_load_up(const FtGroup* p1, const FtGroup* p2);
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
  std::vector<Guid> roots_;
  std::vector<Guid> compute_nodes_;
  std::vector<std::string> notes_;
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

}  // namespace ibfsim::ftree_engine
