// The lash routing engine (LAyered SHortest path, Skeie, Lysne et al.), as OpenSM 3.3.23's
// osm_ucast_lash.c computes it, step for step:
//
// Switches are numbered in switch GUID table order; each switch-to-switch port is a link of its own
// (ports ascending; no mesh analysis). For every switch in turn a breadth-first tree is grown from
// it (links in order); every switch of that tree routes each of its descendants down the tree
// unless an earlier tree gave it a route already (through its first link to that child). So every
// switch pair has one shortest path; the path from A to B need not be B to A's reversed.
//
// Layers: for every unordered pair {i, j} (i ascending, then j ascending) the paths i->j and j->i
// are added to the channel dependency graph of layer 0, 1, ... until a layer stays free of cycles
// (a depth-first search from each path's first channel); a pair no layer takes opens a new one.
// The pair's SL is its layer. Then, if more than one layer was needed, the layers are balanced:
// pairs drawn with C's unseeded rand() (glibc_random.h) move from the fullest layer to the emptiest
// while that keeps it free of cycles, until they differ by fewer than 6 paths or every path of the
// fullest layer was tried. OpenSM's bookkeeping is reproduced with its quirks (a dependency's use
// count survives an attempt that was undone), since they decide which moves are tried.
//
// Tables: a switch sends a LID of its own CA ports to that port, its own LID to port 0, and every
// other LID to the port of its route's link to the destination's switch. SL of a path: its switches'
// pair's layer (0 when source and destination hang off the same switch; lash_start_vl 0). SL i maps
// to VL i as OpenSM's default QoS tables program it (routing_tables.h).
//
// More layers needed than the fabric has data VLs (the least OperationalVLs of any switch-to-switch
// link): OpenSM's lash fails and OpenSM routes with minhop instead; so does this, with a note.
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned.
RoutingTables route_lash(const SubnetGraph& g);

}  // namespace ibfsim
