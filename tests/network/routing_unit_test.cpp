// The switch's routing unit alone (routing_unit.h): every decision and every discard reason, from
// LRH bytes and plain tables, without SystemC.
#include <array>
#include <catch2/catch.hpp>
#include <vector>

#include "sim/network/routing_unit.h"

using namespace ibfsim;

namespace {

using Kind = RouteDecision::Kind;

// Four ports, each with 4 data VLs; port 4 is not cabled.
struct Ports {
  std::vector<bool> cabled{true, true, true, false};
  std::vector<unsigned> vls{4, 4, 4, 4};
  unsigned count() const { return static_cast<unsigned>(cabled.size()); }
  bool connected(PortNum o) const { return cabled.at(o - 1); }
  unsigned op_vls(PortNum o) const { return vls.at(o - 1); }
};

struct Header {
  std::array<std::uint8_t, kLrhBytes> bytes{};
  Header(std::uint8_t vl, std::uint8_t sl, Lid dlid, Lid slid, std::uint8_t lver = 0) {
    encode_lrh({vl, lver, sl, kLnhIbaLocal, dlid, 20, slid}, bytes.data());
  }
};

// The switch has LID 10; LIDs 1-3 go to ports 1-3, LID 4 to the uncabled port 4, LID 5 to port 0,
// LID 6 to port 9 (no such port); LinearFDBTop is 8 (LID 7 unset, LID 8 set but above the top
// after it is lowered in the test that says so).
RoutingUnit make_unit() {
  RoutingUnit r(4, 4, 4096);
  r.set_lid(10);
  for (Lid lid = 1; lid <= 4; ++lid) r.lft().set(lid, static_cast<PortNum>(lid));
  r.lft().set(5, 0);
  r.lft().set(6, 9);
  r.lft().set(8, 2);
  return r;
}

RouteDecision route(const RoutingUnit& r, PortNum in, const Header& h, std::uint32_t payload = 256,
                    const Ports& ports = Ports{}) {
  return r.route(in, h.bytes.data(), payload, ports);
}

void require_discard(const RouteDecision& d, DropReason why) {
  REQUIRE(d.kind == Kind::kDiscard);
  CHECK(d.reason == why);
}

}  // namespace

TEST_CASE("routing unit: unicast goes out of LFT[DLID] on the VL its SL maps to for (input, output)",
          "[network][routing]") {
  RoutingUnit r = make_unit();
  RouteDecision d = route(r, 1, Header(0, 2, 3, 1));
  REQUIRE(d.kind == Kind::kUnicast);
  CHECK(d.out == 3);
  CHECK(d.out_vl == 2);  // the default table: SL s -> VL s mod 4
  CHECK(route(r, 1, Header(0, 6, 3, 1)).out_vl == 2);
  // A table of its own for (1, 3) only.
  SlToVlTable t = SlToVlTable::identity_modulo(4);
  t.set(2, 1);
  r.set_sl_to_vl(1, 3, t);
  CHECK(route(r, 1, Header(0, 2, 3, 1)).out_vl == 1);
  CHECK(route(r, 2, Header(0, 2, 3, 1)).out_vl == 2);
  CHECK(route(r, 1, Header(0, 2, 2, 1)).out_vl == 2);
  // The input VL plays no part: only the SL does.
  CHECK(route(r, 1, Header(3, 2, 3, 1)).out_vl == 1);
  // An SMP routed by LID passes on VL15 whatever its SL.
  d = route(r, 1, Header(kVl15, 2, 3, 1));
  REQUIRE(d.kind == Kind::kUnicast);
  CHECK(d.out == 3);
  CHECK(d.out_vl == kVl15);
}

TEST_CASE("routing unit: R10, a payload above the output's NeighborMTU is discarded", "[network][routing][R10]") {
  RoutingUnit r = make_unit();
  r.set_neighbor_mtu(3, 1024);
  CHECK(route(r, 1, Header(0, 0, 3, 1), 1024).kind == Kind::kUnicast);
  require_discard(route(r, 1, Header(0, 0, 3, 1), 1025), DropReason::kMtuExceeded);
  CHECK(route(r, 1, Header(0, 0, 2, 1), 4096).kind == Kind::kUnicast);  // other outputs keep theirs
  require_discard(route(r, 1, Header(0, 0, 2, 1), 4097), DropReason::kMtuExceeded);
}

TEST_CASE("routing unit: R13, DLID 0 and SLIDs that are not unicast are discarded, but a directed-route "
          "SMP may come from the permissive LID", "[network][routing][R13]") {
  RoutingUnit r = make_unit();
  require_discard(route(r, 1, Header(0, 0, 0, 1)), DropReason::kInvalidLid);
  require_discard(route(r, 1, Header(kVl15, 0, 0, 1)), DropReason::kInvalidLid);
  require_discard(route(r, 1, Header(0, 0, 3, 0)), DropReason::kInvalidLid);       // SLID 0
  require_discard(route(r, 1, Header(0, 0, 3, 0xC001)), DropReason::kInvalidLid);  // multicast SLID
  require_discard(route(r, 1, Header(0, 0, 3, kLidPermissive)), DropReason::kInvalidLid);
  CHECK(route(r, 1, Header(kVl15, 0, kLidPermissive, kLidPermissive)).kind == Kind::kManagement);
  CHECK(route(r, 1, Header(kVl15, 0, 3, kLidPermissive)).kind == Kind::kUnicast);
  CHECK(route(r, 1, Header(0, 0, 3, kLidUnicastMax)).kind == Kind::kUnicast);
}

TEST_CASE("routing unit: R15, a DLID with no route, above LinearFDBTop or to a port that cannot carry it is "
          "discarded", "[network][routing][R15]") {
  RoutingUnit r = make_unit();
  require_discard(route(r, 1, Header(0, 0, 7, 1)), DropReason::kUnknownDlid);   // unset entry
  require_discard(route(r, 1, Header(0, 0, 9, 1)), DropReason::kUnknownDlid);   // beyond the table
  require_discard(route(r, 1, Header(0, 0, 4, 1)), DropReason::kUnknownDlid);   // port 4: not cabled
  require_discard(route(r, 1, Header(0, 0, 5, 1)), DropReason::kUnknownDlid);   // port 0
  require_discard(route(r, 1, Header(0, 0, 6, 1)), DropReason::kUnknownDlid);   // port 9 of 4
  CHECK(route(r, 1, Header(0, 0, 8, 1)).out == 2);
  r.lft().set_top(7);
  require_discard(route(r, 1, Header(0, 0, 8, 1)), DropReason::kUnknownDlid);   // above LinearFDBTop
  // A data packet to the permissive LID is no SMP: it has no route.
  require_discard(route(r, 1, Header(0, 0, kLidPermissive, 1)), DropReason::kUnknownDlid);
}

TEST_CASE("routing unit: R16, an SL mapped to VL15 or to a VL the output does not operate is discarded",
          "[network][routing][R16]") {
  RoutingUnit r = make_unit();
  SlToVlTable t = SlToVlTable::identity_modulo(4);
  t.set(1, kVl15);
  t.set(2, 5);
  r.set_sl_to_vl(1, 3, t);
  require_discard(route(r, 1, Header(0, 1, 3, 1)), DropReason::kSlToVlDrop);
  require_discard(route(r, 1, Header(0, 2, 3, 1)), DropReason::kSlToVlDrop);  // port 3 runs VLs 0-3
  Ports six = Ports{};
  six.vls[2] = 6;
  CHECK(route(r, 1, Header(0, 2, 3, 1), 256, six).out_vl == 5);
  CHECK(r.output_vl(1, 3, 1, 8) == kVl15);
  CHECK(r.output_vl(1, 3, 2, 5) == kVl15);
  CHECK(r.output_vl(1, 3, 2, 6) == 5);
}

TEST_CASE("routing unit: a multicast packet is copied to every cabled port of its group but its input",
          "[network][routing][multicast]") {
  RoutingUnit r = make_unit();
  r.mft().set(0xC001, {1, 2, 3, 4});  // 4 is not cabled
  r.mft().set(0xC002, {2});
  RouteDecision d = route(r, 2, Header(0, 0, 0xC001, 1));
  REQUIRE(d.kind == Kind::kMulticast);
  CHECK(d.group == r.mft().lookup(0xC001));
  CHECK(d.copies == 2);  // ports 1 and 3
  CHECK(route(r, 4, Header(0, 0, 0xC001, 1)).copies == 3);
  // No copy to make: the group is unknown, or holds only the input; VL15 is never multicast.
  require_discard(route(r, 2, Header(0, 0, 0xC003, 1)), DropReason::kUnknownDlid);
  require_discard(route(r, 2, Header(0, 0, 0xC002, 1)), DropReason::kUnknownDlid);
  CHECK(route(r, 1, Header(0, 0, 0xC002, 1)).copies == 1);
  require_discard(route(r, 2, Header(kVl15, 0, 0xC001, 1)), DropReason::kUnknownDlid);
  // R10: the payload is held to the switch's MTU.
  CHECK(route(r, 2, Header(0, 0, 0xC001, 1), 4096).kind == Kind::kMulticast);
  require_discard(route(r, 2, Header(0, 0, 0xC001, 1), 4097), DropReason::kMtuExceeded);
}

TEST_CASE("routing unit: SMPs to the permissive LID or the switch's LIDs, and GMPs to its LIDs, go to the "
          "management port", "[network][routing][management]") {
  RoutingUnit r = make_unit();
  CHECK(route(r, 1, Header(kVl15, 0, kLidPermissive, 1)).kind == Kind::kManagement);
  CHECK(route(r, 1, Header(kVl15, 0, 10, 1)).kind == Kind::kManagement);
  CHECK(route(r, 1, Header(0, 0, 10, 1)).kind == Kind::kManagement);  // a GMP (QP1 behind port 0)
  CHECK(route(r, 2, Header(3, 5, 10, 1), 5000).kind == Kind::kManagement);  // before any MTU check
  // LMC 2: LIDs 8-11 are the switch's own (8 no longer goes to port 2), 12 is not.
  r.set_lid(8, 2);
  r.lft().set(12, 1);
  for (Lid own : {8, 9, 10, 11}) {
    CHECK(r.is_own_lid(own));
    CHECK(route(r, 1, Header(kVl15, 0, own, 1)).kind == Kind::kManagement);
  }
  CHECK_FALSE(r.is_own_lid(12));
  CHECK(route(r, 1, Header(kVl15, 0, 12, 1)).kind == Kind::kUnicast);
  // LID 0: the switch has none yet; a GMP to its old LID is routed by the LFT, which has no entry.
  r.set_lid(0);
  CHECK_FALSE(r.is_own_lid(0));
  require_discard(route(r, 1, Header(0, 0, 10, 1)), DropReason::kUnknownDlid);
  CHECK(route(r, 1, Header(kVl15, 0, kLidPermissive, 1)).kind == Kind::kManagement);
}

TEST_CASE("routing unit: R8 comes first, then R13, R15, R16 and R10 in that order", "[network][routing]") {
  RoutingUnit r = make_unit();
  SlToVlTable t = SlToVlTable::identity_modulo(4);
  t.set(1, kVl15);
  r.set_sl_to_vl(1, 3, t);
  require_discard(route(r, 1, Header(0, 0, 3, 1, 1)), DropReason::kMalformed);      // LVer 1
  require_discard(route(r, 1, Header(0, 0, 0, 0, 1)), DropReason::kMalformed);      // ... even with DLID 0
  require_discard(route(r, 1, Header(0, 1, 0, 1), 9000), DropReason::kInvalidLid);
  require_discard(route(r, 1, Header(0, 1, 7, 1), 9000), DropReason::kUnknownDlid);
  require_discard(route(r, 1, Header(0, 1, 3, 1), 9000), DropReason::kSlToVlDrop);
  require_discard(route(r, 1, Header(0, 0, 3, 1), 9000), DropReason::kMtuExceeded);
}
