// The events a Wire schedules on its far port, as they cross between MPI ranks
// (core/rank_event_codec.h): a packet's head (the packet by value; the sending rank lets go of its
// copy once the tail has arrived), a tail verdict (by value) and a flow-control packet.
#pragma once

namespace ibfsim {

// Registers the three codecs (once; every Wire calls it).
void register_wire_rank_events();

}  // namespace ibfsim
