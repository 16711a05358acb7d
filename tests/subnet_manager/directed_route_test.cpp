// The directed-route walk: HopPointer, ReturnPath and the verdict at every hop of round trips,
// mixed LID-routed/directed paths, and the SMPs a node must drop.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/node_info.h"

using namespace ibfsim;

namespace {
const DrNode kCa{false, 1};
const DrNode kSwitch36{true, 36};

DrDecision forward(PortNum p) { return {DrAction::kForward, p, 0, DrDropReason::kNone}; }
DrDecision process() { return {DrAction::kProcess, 0, 0, DrDropReason::kNone}; }
DrDecision by_lid(Lid lid) { return {DrAction::kRouteByLid, 0, lid, DrDropReason::kNone}; }
DrDecision dropped(DrDropReason r) { return {DrAction::kDrop, 0, 0, r}; }

// The SMP as the next node reads it off the wire.
Smp over_the_wire(const Smp& s) { return *decode_smp(encode_smp(s).data()); }
}  // namespace

TEST_CASE("A 3-hop directed-route Get goes out through two switches and its GetResp comes back",
          "[subnet_manager][directed_route]") {
  // SM on CA A port 1 -> S1 port 3; S1 port 10 -> S2 port 4; S2 port 17 -> CA B port 1.
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 0xABC, {1, 10, 17});
  REQUIRE(smp.hop_count == 3);
  REQUIRE(smp.hop_pointer == 0);
  REQUIRE_FALSE(smp.direction);
  REQUIRE(smp.dr_slid == kLidPermissive);
  REQUIRE(smp.dr_dlid == kLidPermissive);

  // A originates it: HopPointer 0 -> 1, out InitialPath[1].
  CHECK(dr_route(smp, kCa, kDrLocal) == forward(1));
  CHECK(smp.hop_pointer == 1);
  CHECK(smp.return_path == SmpPath{});

  smp = over_the_wire(smp);  // S1 receives it on port 3: records it, 1 -> 2, out InitialPath[2].
  CHECK(dr_route(smp, kSwitch36, 3) == forward(10));
  CHECK(smp.hop_pointer == 2);
  CHECK(smp.return_path[1] == 3);

  smp = over_the_wire(smp);  // S2 on port 4: 2 -> 3, out InitialPath[3].
  CHECK(dr_route(smp, kSwitch36, 4) == forward(17));
  CHECK(smp.hop_pointer == 3);
  CHECK(smp.return_path[2] == 4);

  smp = over_the_wire(smp);  // B on port 1: the last hop, 3 -> 4 = HopCount + 1, for B's SMA.
  CHECK(dr_route(smp, kCa, 1) == process());
  CHECK(smp.hop_pointer == 4);
  SmpPath expected_return{};
  expected_return[1] = 3;
  expected_return[2] = 4;
  expected_return[3] = 1;
  CHECK(smp.return_path == expected_return);

  // B answers. The response walks ReturnPath backwards.
  Smp resp = make_smp_response(smp);
  NodeInfo ni;
  ni.node_guid = 0xB;
  resp.data = encode_node_info(ni);
  CHECK(resp.direction);
  CHECK(resp.method == IB_MAD_METHOD_GET_RESP);
  CHECK(dr_route(resp, kCa, kDrLocal) == forward(1));  // 4 -> 3, out ReturnPath[3]
  CHECK(resp.hop_pointer == 3);

  resp = over_the_wire(resp);  // S2 gets it on port 17: 3 -> 2, out ReturnPath[2].
  CHECK(dr_route(resp, kSwitch36, 17) == forward(4));
  CHECK(resp.hop_pointer == 2);

  resp = over_the_wire(resp);  // S1 on port 10: 2 -> 1, out ReturnPath[1].
  CHECK(dr_route(resp, kSwitch36, 10) == forward(3));
  CHECK(resp.hop_pointer == 1);

  resp = over_the_wire(resp);  // A on port 1: 1 -> 0, DrSLID permissive: for A's SM.
  CHECK(dr_route(resp, kCa, 1) == process());
  CHECK(resp.hop_pointer == 0);
  CHECK(resp.return_path == expected_return);
  CHECK(resp.transaction_id == 0xABC);
  CHECK(decode_node_info(resp.data.data()).node_guid == 0xB);
}

TEST_CASE("HopCount 0 addresses the SM's own node: processed there, answered there",
          "[subnet_manager][directed_route]") {
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 1, {});
  CHECK(dr_route(smp, kCa, kDrLocal) == process());
  CHECK(smp.hop_pointer == 1);
  Smp resp = make_smp_response(smp);
  CHECK(dr_route(resp, kCa, kDrLocal) == process());
  CHECK(resp.hop_pointer == 0);
  CHECK(resp.return_path == SmpPath{});
}

TEST_CASE("A 63-hop walk uses the last entry of both paths: HopCount 64 is dropped everywhere",
          "[subnet_manager][directed_route]") {
  std::vector<PortNum> path(63);
  for (std::size_t i = 0; i < path.size(); ++i) path[i] = static_cast<PortNum>(1 + i % 36);
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 2, path);
  CHECK(dr_route(smp, kCa, kDrLocal) == forward(1));
  for (unsigned hop = 1; hop < 63; ++hop) {  // 62 switches, each entered on port 36
    INFO("hop " << hop);
    REQUIRE(dr_route(smp, kSwitch36, 36) == forward(path[hop]));
  }
  CHECK(dr_route(smp, kCa, 1) == process());
  CHECK(smp.hop_pointer == 64);
  CHECK(smp.return_path[63] == 1);
  CHECK(smp.return_path[62] == 36);

  CHECK_THROWS_AS(make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 3,
                                  std::vector<PortNum>(64, 1)),
                  std::invalid_argument);
  Smp too_long = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 3, {1});
  too_long.hop_count = 64;
  for (std::uint8_t hop_ptr : {0, 1, 63, 64, 65}) {
    too_long.hop_pointer = hop_ptr;
    for (bool d : {false, true}) {
      too_long.direction = d;
      Smp copy = too_long;
      CHECK(dr_route(copy, kSwitch36, 2) == dropped(DrDropReason::kHopCountTooLarge));
      CHECK(dr_route(copy, kCa, kDrLocal) == dropped(DrDropReason::kHopCountTooLarge));
      CHECK(copy.hop_pointer == hop_ptr);  // untouched
    }
  }
}

TEST_CASE("Only a switch passes a directed-route SMP on, and only through ports it has",
          "[subnet_manager][directed_route]") {
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 4, {1, 2, 3});
  smp.hop_pointer = 1;
  Smp out = smp;
  CHECK(dr_route(out, kCa, 1) == dropped(DrDropReason::kNotASwitch));
  Smp back = make_smp_response(smp);
  back.hop_pointer = 2;
  CHECK(dr_route(back, kCa, 1) == dropped(DrDropReason::kNotASwitch));

  const DrNode small_switch{true, 8};
  smp.initial_path[2] = 9;  // no such port
  out = smp;
  CHECK(dr_route(out, small_switch, 1) == dropped(DrDropReason::kBadPort));
  smp.initial_path[2] = 0;  // the management port is no egress
  out = smp;
  CHECK(dr_route(out, small_switch, 1) == dropped(DrDropReason::kBadPort));
  Smp first = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 5, {2});
  CHECK(dr_route(first, kCa, kDrLocal) == dropped(DrDropReason::kBadPort));  // a 1-port CA
}

TEST_CASE("A HopPointer that fits no step of the walk, or not where the SMP came from, is dropped",
          "[subnet_manager][directed_route]") {
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 6, {1, 2, 3});
  Smp s = smp;  // HopPointer 0 arriving over a link: the sender did not increment it
  CHECK(dr_route(s, kSwitch36, 5) == dropped(DrDropReason::kBadHopPointer));
  s = smp;
  s.hop_pointer = 5;  // beyond HopCount + 1
  CHECK(dr_route(s, kSwitch36, 5) == dropped(DrDropReason::kBadHopPointer));
  s = smp;
  s.hop_pointer = 2;  // an intermediate hop that did not come in over a link
  CHECK(dr_route(s, kSwitch36, kDrLocal) == dropped(DrDropReason::kBadHopPointer));
  s = smp;
  s.hop_pointer = 4;  // HopCount + 1 over a link: only a LID-routed delivery gets here
  CHECK(dr_route(s, kCa, 1) == dropped(DrDropReason::kBadHopPointer));

  Smp r = make_smp_response(smp);
  r.hop_pointer = 4;  // the responder's own start, but arriving over a link
  CHECK(dr_route(r, kSwitch36, 3) == dropped(DrDropReason::kBadHopPointer));
  r.hop_pointer = 9;
  CHECK(dr_route(r, kSwitch36, 3) == dropped(DrDropReason::kBadHopPointer));
  r.hop_pointer = 1;  // back at the start, but not over a link
  CHECK(dr_route(r, kCa, kDrLocal) == dropped(DrDropReason::kBadHopPointer));
  r.hop_pointer = 0;  // 0 over a link: the previous node should have kept it
  CHECK(dr_route(r, kCa, 1) == dropped(DrDropReason::kBadHopPointer));

  Smp lid_routed = smp;
  lid_routed.mgmt_class = IB_MCLASS_SUBN_LID;
  CHECK(dr_route(lid_routed, kSwitch36, 1) == dropped(DrDropReason::kNotDirectedRoute));
}

TEST_CASE("A directed part that ends in a LID-routed part: the last switch routes to DrDLID",
          "[subnet_manager][directed_route]") {
  // A -> S1 (port 3 in, 10 out) -> S2 (port 4 in), then by LID to DrDLID 0x0042.
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 7, {1, 10});
  smp.dr_dlid = 0x0042;
  CHECK(dr_route(smp, kCa, kDrLocal) == forward(1));
  CHECK(dr_route(smp, kSwitch36, 3) == forward(10));
  CHECK(dr_route(smp, kSwitch36, 4) == by_lid(0x0042));
  CHECK(smp.hop_pointer == 3);
  CHECK(smp.return_path[2] == 4);
  Smp at_ca = smp;  // a CA cannot start a LID-routed part
  at_ca.hop_pointer = 2;
  CHECK(dr_route(at_ca, kCa, 1) == dropped(DrDropReason::kNotASwitch));

  // The destination gets it by LID (HopPointer = HopCount + 1) and processes it. Its response
  // goes by LID back to S2, which resumes the directed walk as a local arrival.
  CHECK(dr_route(smp, kCa, kDrLocal) == process());
  Smp resp = make_smp_response(smp);
  CHECK(dr_route(resp, kSwitch36, kDrLocal) == forward(4));  // S2: 3 -> 2, out ReturnPath[2]
  CHECK(dr_route(resp, kSwitch36, 10) == forward(3));         // S1: 2 -> 1
  CHECK(dr_route(resp, kCa, 1) == process());                 // A: 1 -> 0, DrSLID permissive
  CHECK(resp.hop_pointer == 0);
}

TEST_CASE("A directed part that starts after a LID-routed part: its first switch routes the "
          "response on to DrSLID",
          "[subnet_manager][directed_route]") {
  // The SM (LID 1) sends the SMP by LID to S1; S1's port 5 leads to CA C (port 1).
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 8, {5});
  smp.dr_slid = 0x0001;
  CHECK(dr_route(smp, kSwitch36, kDrLocal) == forward(5));  // S1 starts the directed part
  CHECK(smp.hop_pointer == 1);
  CHECK(dr_route(smp, kCa, 1) == process());                // C: 1 -> 2
  Smp resp = make_smp_response(smp);
  CHECK(dr_route(resp, kCa, kDrLocal) == forward(1));       // C: 2 -> 1, out ReturnPath[1]
  Smp at_ca = resp;
  CHECK(dr_route(at_ca, kCa, 1) == dropped(DrDropReason::kNotASwitch));
  CHECK(dr_route(resp, kSwitch36, 5) == by_lid(0x0001));    // S1: 1 -> 0, on by LID to the SM
  CHECK(resp.hop_pointer == 0);
  CHECK(dr_route(resp, kCa, kDrLocal) == process());        // the SM's node, by LID
}
