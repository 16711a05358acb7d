// nue's search for the paths to one destination (route_via_modified_dijkstra_on_ccdg in
// osm_ucast_nue.c): Dijkstra over the complete channel dependency graph from the destination
// switch's fake channel, taking a turn only if it closes no cycle among the turns in use (checked
// by colour: a turn inside one coloured subgraph needs a search for a path back; a turn joining
// two subgraphs merges them), first over turns already in use, then over unused ones; a switch the
// search cannot reach is tried by local backtracking (an alternative channel into a neighbour) and,
// failing that, the escape paths carry the destination. Then the colours of the turns actually
// used are made permanent and the rest undone.
#pragma once
#include "sim/subnet_manager/routing/nue_graph.h"

namespace ibfsim::nue {

// Leaves every switch's used_link on its path to the destination switch `dest_switch_lid`
// (none at that switch). `color` is the destination's own colour slot. Returns false on an
// inconsistency OpenSM would crash on (it never happened on the golden fabrics).
bool search_paths(Network& net, Ccdg& cdg, Lid dest_switch_lid, int color, bool& used_escape_paths);

}  // namespace ibfsim::nue
