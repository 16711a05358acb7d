// The 802.1p priority an HCA port's RoCE frame will carry, read before the packet is reframed:
// the port's PCP when set, else the class selector of the DSCP (the GRH's for a global path, the
// port's otherwise): the same as an L3 switch reads back from the frame (frame_priority).
#include "sim/transport/roce/roce_priority.h"

#include <catch2/catch.hpp>

#include "sim/ethernet/ip_traffic_class.h"
#include "sim/link/lrh.h"
#include "sim/network/grh.h"

using namespace ibfsim;

TEST_CASE("RoCE frame priority: PCP first, else the DSCP's class selector, the GRH's for a global path",
          "[ethernet][roce][pfc]") {
  Packet local, global;
  Lrh l;
  encode_lrh(l, local.header.data());
  l.lnh = kLnhIbaGlobal;
  encode_lrh(l, global.header.data());
  Grh g;
  g.tclass = traffic_class_byte(26, 1);  // AF31: class selector 3
  encode_grh(g, global.header.data() + kLrhBytes);
  RocePortConfig port;
  port.dscp = 46;  // EF: class selector 5
  CHECK(roce_frame_priority(local, port) == 5);
  CHECK(roce_frame_priority(global, port) == 3);
  port.pcp = 6;
  CHECK(roce_frame_priority(local, port) == 6);
  CHECK(roce_frame_priority(global, port) == 6);
}
