// The ftree (fat-tree) routing engine, following OpenSM 3.3's osm_ucast_ftree.c (Zahavi's
// algorithm) with its default options (no root, compute-node or I/O GUID files, connect_roots
// FALSE, LMC 0). Facts, as OpenSM has them:
//   * Ranking: every switch cabled to an HCA gets rank 0, in HCA GUID table order; a
//     breadth-first search from them (ports ascending) ranks the rest by distance; then ranks are
//     reversed (max - rank), so the roots have rank 0 and the leaves the highest rank. Every HCA is
//     a compute node and must hang off a leaf-rank switch.
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
//     down-counter, then the least loaded remote switch, then the larger remote port GUID in
//     GUID table order; its least loaded port) and from every switch on the way "up-going by going
//     down" (every down group, in up-counter order, its least up-loaded port), counting routes on
//     ports and groups; leaves with fewer HCAs than the most route dummy HCAs that only count.
//     Then switch LIDs, per switch in GUID table order, without counting. Root-to-root switch LIDs
//     stay unrouted (connect_roots FALSE).
// A fabric ftree cannot route (LMC > 0, fewer than 2 switches or HCAs, an HCA cabled to another
// HCA, an HCA on a switch that is not a leaf, a tree rank outside 2..8, leaves of unequal shape)
// falls back to minhop, as OpenSM does, with a note saying why.
#pragma once
#include <string>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned. If `ca_order` is given it receives what OpenSM writes to
// opensm-ftree-ca-order.dump: "0xLLLL\tNAME" per HCA in routing order, "0xFFFF\tDUMMY" for each
// missing HCA of a leaf (empty when ftree fell back to minhop).
RoutingTables route_ftree(const SubnetGraph& g, std::string* ca_order = nullptr);

}  // namespace ibfsim
