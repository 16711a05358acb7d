// The ftree (fat-tree) routing engine, following OpenSM 3.3's osm_ucast_ftree.c (Zahavi's
// algorithm) with its options root_guid_file (-a) and cn_guid_file (-u); no I/O GUID file,
// connect_roots FALSE, LMC 0. Facts, as OpenSM has them:
//   * Ranking without roots: every switch cabled to an HCA gets rank 0, in HCA GUID table order; a
//     breadth-first search from them (ports ascending) ranks the rest by distance; then ranks are
//     reversed (max - rank), and the switches now at rank 0 (the roots) rank the others again by a
//     breadth-first search from them, in switch GUID table order. Leaves have the highest rank.
//   * Ranking from roots (root_guid_file): the named switches get rank 0, in the file's order
//     (GUIDs that are no switch of the subnet are skipped; none left: ranking without roots), and
//     a breadth-first search ranks the rest; switches it does not reach are dropped with the CA
//     ports cabled to them. The leaf rank is that of the switch of the first compute node (CA GUID
//     table order), and the tree need not be regular (no shape check).
//   * Compute nodes: every CA port, or with a cn_guid_file only the ports it names; the others are
//     routed after the compute nodes, each from its switch as a compute node is from its leaf.
//     Every compute node must hang off a leaf-rank switch.
//   * Port groups: a switch's links grouped by the remote node's LID (parallel cables form one
//     group, ports in ascending order), as down (to HCAs or higher-rank switches), up (lower rank)
//     or sibling (equal rank) groups, created in port order.
//   * Indexing: the first leaf in switch GUID table order gets the tuple (rank, 0, 0, ...); a
//     breadth-first search gives each newly seen neighbour below (above) the first free tuple that
//     differs from its own with rank + 1 (- 1) in byte 0 and a free value in byte rank + 1 (byte
//     rank); a non-leaf switch's down groups and a non-root's up groups are then sorted by the
//     remote switch's tuple. Leaves are routed in tuple order.
//   * Routing, per leaf in tuple order, per HCA in the leaf's down-group order: the leaf's port,
//     then "down-going by going up" (the least loaded up group of every switch on the way up, by
//     down-counter, then the remote switch whose least loaded down group is lighter, then the lower
//     remote index (tuple); its least loaded port) and from every switch on the way "up-going by
//     going down" (every down group, by up-counter then remote index, its least up-loaded port),
//     counting routes on ports and groups; leaves with fewer compute nodes than the most route
//     dummy HCAs that only count. Then the other CA ports (with a CN file), each from its switch.
//     Then switch LIDs, per switch in GUID table order, without counting. Root-to-root switch LIDs
//     stay unrouted (connect_roots FALSE).
// A fabric ftree cannot route (LMC > 0, fewer than 2 switches or HCAs, an HCA cabled to another
// HCA, a compute node on a switch that is not a leaf, no compute node, a tree rank outside 2..8,
// leaves of unequal shape without a roots file) falls back to minhop, as OpenSM does, with a note
// saying why.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct FtreeOptions {
  // OpenSM's root_guid_file: the root switches' node GUIDs, in the file's order; empty: none given.
  std::vector<Guid> roots;
  // OpenSM's cn_guid_file: the compute nodes' port GUIDs; empty: every CA port is one.
  std::vector<Guid> compute_nodes;
};

// Requires LIDs assigned. If `ca_order` is given it receives what OpenSM writes to
// opensm-ftree-ca-order.dump: "0xLLLL\tNAME" per compute node in routing order, "0xFFFF\tDUMMY" for
// each missing compute node of a leaf (empty when ftree fell back to minhop). If `ranks` is given
// it receives every graph node's ftree rank (0 at the roots; 0xFFFFFFFF for CAs and for switches
// outside the tree; empty when ftree fell back to minhop).
RoutingTables route_ftree(const SubnetGraph& g, const FtreeOptions& options = {}, std::string* ca_order = nullptr,
                          std::vector<std::uint32_t>* ranks = nullptr);

}  // namespace ibfsim
