// The one event an EthernetWire schedules on its far port, as it crosses between MPI ranks
// (core/rank_event_codec.h): a frame's head (EthernetPort::head_arrives: the frame by value, data,
// PFC pause and CNP alike; the sending rank lets go of its copy once the tail has arrived).
#pragma once

namespace ibfsim {

// Registers the codec (once; every EthernetWire calls it).
void register_ethernet_wire_rank_events();

}  // namespace ibfsim
