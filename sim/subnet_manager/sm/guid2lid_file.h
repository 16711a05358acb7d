// OpenSM's LID cache file guid2lid (OSM_CACHE_DIR/guid2lid), byte for byte: one entry per port
// with LIDs, "0xPPPPPPPPPPPPPPPP 0xFFFF 0xLLLL" (port GUID, first and last LID) followed by a blank
// line, in the order OpenSM's string hash table (its st.c, used by osm_db) walks them. That order
// follows from the hash function, the table's growth and the insertion order, which for a fresh
// subnet is the LID assignment order (lid_assignment.h): the table starts with 11 bins, grows to
// the next size in the sequence 19, 37, 67, 131, 283, ... whenever an insertion finds more than 5
// entries per bin on average (integer division), every insertion goes to the head of its bin's
// list, and growing re-inserts bin by bin from the head. The hash of the key string is
// h = h * 997 + c over its bytes (32-bit signed arithmetic), then h + (h >> 5), taken modulo the
// bin count as an unsigned 32-bit value. Checked byte for byte against all 37 golden guid2lid files.
#pragma once
#include <ostream>

#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned.
void write_guid2lid(std::ostream& out, const SubnetGraph& g);

}  // namespace ibfsim
