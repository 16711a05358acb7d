// The data nue works on (nue.h tells the algorithm), as OpenSM 3.3.23's osm_ucast_nue.c keeps it:
// the network of switches (sorted by LID in OpenSM's order), their switch-to-switch links with
// balancing weights, and the complete channel dependency graph (every channel, plus one "fake"
// channel per switch as the source of a search, every possible turn between channels) with its
// colouring: each edge and vertex carries a colour slot; BLOCKED, UNUSED and ESCAPE are slots 0-2,
// and every routed destination gets a slot of its own. A slot points to the slot whose id it
// shows (one step only, as OpenSM follows it), which is how two coloured subgraphs merge.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/routing/complib_heap.h"

namespace ibfsim::nue {

constexpr std::uint64_t kInfinity = 0x7FFFFFFF;  // OpenSM's INFINITY for both Dijkstras
enum : int { kBlocked = 0, kUnused = 1, kEscape = 2 };  // colour slots
enum Status : std::uint8_t { kWhite = 0, kGray, kBlack };

// OpenSM compares LIDs in network byte order as host integers.
constexpr std::uint32_t lid_order(Lid lid) { return ((lid & 0xFFu) << 8) | (lid >> 8); }

struct Channel {
  Lid local_lid = 0;
  unsigned local_port = 0;
  Lid remote_lid = 0;
  unsigned remote_port = 0;

  std::uint64_t key() const {
    return (std::uint64_t{lid_order(local_lid)} << 48) + (std::uint64_t{local_port} << 32) +
           (std::uint64_t{lid_order(remote_lid)} << 16) + remote_port;
  }
  Channel inverted() const { return {remote_lid, remote_port, local_lid, local_port}; }
};

struct Link {
  Channel info;
  int to = -1;    // network node reached
  int ccdg = -1;  // its channel in the complete CDG
  std::uint64_t weight = 0;
};

struct Node {
  Lid lid = 0;
  std::size_t graph_node = 0;
  std::uint8_t num_terminals = 0;  // LIDs of its CAs plus its own (uint8_t as in OpenSM)
  std::vector<int> links;          // global link ids, ports ascending
  // Dijkstra on the network or on the CDG:
  int used_link = -1;
  std::uint64_t distance = kInfinity;
  int escape_path = -1;
  std::vector<int> stack;  // stack_used_links
  int found_after_backtracking_step = -1;
  // Convex hull and betweenness centrality:
  bool in_convex_hull = false, processed = false, has_adj_destinations = false;
  double betw_centrality = 0.0, delta = 0.0;
  std::uint64_t sigma = 0;
  std::vector<int> ps;
  std::uint8_t adj_terminals_in_hull = 0;
};

struct Network {
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::unordered_map<Lid, int> by_lid;
  std::vector<std::size_t> heap_pos;
  ComplibHeap heap{heap_pos};

  Network() = default;
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;
  int node(Lid lid) const { return by_lid.at(lid); }
  Node& from(const Link& l) { return nodes[static_cast<std::size_t>(node(l.info.local_lid))]; }
};

struct Edge {
  Channel to_channel;
  int to = -1;
  int color = kUnused;
  bool wet = false;
};

struct CNode {
  Channel id;
  std::vector<Edge> edges;
  int link = -1;  // the network link, or -1 for a switch's fake channel
  std::uint64_t distance = 0;
  int color = kUnused;
  bool wet = false;
  Status status = kWhite;
  std::size_t next_edge = 0;
  int pre = -1;
};

struct ColorSlot {
  int id = 0;
  int real = 0;
};

struct Ccdg {
  std::vector<CNode> nodes;
  std::vector<ColorSlot> colors;
  std::unordered_map<std::uint64_t, int> by_key;
  std::vector<std::size_t> heap_pos;
  ComplibHeap heap{heap_pos};

  Ccdg() = default;
  Ccdg(const Ccdg&) = delete;
  Ccdg& operator=(const Ccdg&) = delete;
  int node(const Channel& c) const { return by_key.at(c.key()); }
  int shown(int slot) const { return colors[static_cast<std::size_t>(colors[static_cast<std::size_t>(slot)].real)].id; }
  int node_color(int n) const { return shown(nodes[static_cast<std::size_t>(n)].color); }
  int edge_color(const Edge& e) const { return shown(e.color); }
  // The edge from n1 to n2, or nullptr.
  Edge* edge(int n1, int n2) {
    for (Edge& e : nodes[static_cast<std::size_t>(n1)].edges)
      if (e.to == n2) return &e;
    return nullptr;
  }
};

}  // namespace ibfsim::nue
