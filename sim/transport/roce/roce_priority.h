// The priority (802.1p, what PFC pauses) of the RoCE v2 frame an HCA port will send for an
// InfiniBand packet its QP built, before it is reframed: the port's PCP when it tags its frames,
// else the class selector of the frame's DSCP (the GRH's traffic class for a global path, else the
// port's DSCP), as an L3 switch reads it back (frame_priority, l3_forwarding.h). The sender needs
// it to hold a paused priority's packets while the others go.
#pragma once
#include <cstdint>

#include "sim/core/packet.h"
#include "sim/transport/roce/roce_hca_port.h"

namespace ibfsim {

std::uint8_t roce_frame_priority(const Packet& ib, const RocePortConfig& port);

}  // namespace ibfsim
