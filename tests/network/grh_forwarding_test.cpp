// A router's forwarding alone (grh_forwarding.h, routing_unit.h in router mode): every decision on
// the GRH, and the LRH rebuilt for the next subnet, from header bytes and plain tables, without
// SystemC.
#include <array>
#include <catch2/catch.hpp>
#include <vector>

#include "sim/link/vcrc.h"
#include "sim/network/routing_unit.h"
#include "sim/transport/icrc.h"
#include "sim/transport/transport_packet.h"

using namespace ibfsim;

namespace {

using Kind = RouteDecision::Kind;

constexpr std::uint64_t kPrefixA = 0xfec0000000000000ull, kPrefixB = 0xfec0000000000001ull,
                        kPrefixC = 0xfec0000000000002ull;
constexpr Guid kHostB = 0x0002c90301000008ull;  // a port in subnet B (behind port 2)

struct Ports {
  std::vector<bool> cabled{true, true, false};
  unsigned count() const { return static_cast<unsigned>(cabled.size()); }
  bool connected(PortNum o) const { return cabled.at(o - 1); }
  unsigned op_vls(PortNum) const { return 4; }
};

// A router with three ports: port 1 LID 2 in subnet A, port 2 LID 2 in subnet B (whose port
// kHostB has LID 4), port 3 uncabled; subnet C is reached through port 2, at the next router's
// LID 9 there.
GrhForwarding make_tables() {
  GrhForwarding f(3);
  f.set_port_lid(1, 2, 0);
  f.set_port_lid(2, 2, 0);
  f.set_route(kPrefixA, {1, 0});
  f.set_route(kPrefixB, {2, 0});
  f.set_route(kPrefixC, {2, 9});
  f.set_host(2, kHostB, 4);
  return f;
}

// LRH (LNH 3 unless `local`) + GRH to (prefix, guid) with HopLmt `hops`.
std::array<std::uint8_t, kLrhBytes + kGrhBytes> header(std::uint8_t vl, std::uint8_t sl, Lid dlid, std::uint64_t prefix,
                                                       Guid guid, std::uint8_t hops, bool local = false) {
  std::array<std::uint8_t, kLrhBytes + kGrhBytes> h{};
  encode_lrh({vl, 0, sl, local ? kLnhIbaLocal : kLnhIbaGlobal, dlid, 30, 1}, h.data());
  Grh g;
  g.hop_lmt = hops;
  g.sgid = make_gid(kPrefixA, 0x0002c90301000002ull);
  g.dgid = make_gid(prefix, guid);
  encode_grh(g, h.data() + kLrhBytes);
  return h;
}

}  // namespace

TEST_CASE("router: a packet to the input port's LID goes out of the port its DGID's subnet prefix names",
          "[network][router]") {
  const GrhForwarding f = make_tables();
  RoutingUnit r(3, 4, 4096);
  r.set_grh_forwarding(&f);
  const auto h = header(0, 2, 2, kPrefixB, kHostB, 64);
  const RouteDecision d = r.route(1, h.data(), 256, Ports{});
  REQUIRE(d.kind == Kind::kUnicast);
  CHECK(d.out == 2);
  CHECK(d.out_vl == 2);  // SL 2 -> VL 2 (SL mod 4 on 4 VLs)
  // Subnet C: out of port 2 too, towards the next router.
  CHECK(r.route(1, header(0, 0, 2, kPrefixC, 0x1234, 64).data(), 256, Ports{}).out == 2);
}

TEST_CASE("router: SMPs and packets without a GRH to its port's LID are its own, the rest is a relay error",
          "[network][router]") {
  const GrhForwarding f = make_tables();
  RoutingUnit r(3, 4, 4096);
  r.set_grh_forwarding(&f);
  const Ports ports;
  // An SMP by LID or directed route, and a GMP (no GRH), go to the management port.
  CHECK(r.route(1, header(15, 0, 2, kPrefixB, kHostB, 64, true).data(), 256, ports).kind == Kind::kManagement);
  CHECK(r.route(1, header(15, 0, kLidPermissive, kPrefixB, kHostB, 64, true).data(), 256, ports).kind ==
        Kind::kManagement);
  CHECK(r.route(1, header(0, 0, 2, kPrefixB, kHostB, 64, true).data(), 256, ports).kind == Kind::kManagement);
  // Not its LID (an end port takes only its own), an SMP included: discarded.
  auto discarded = [&](const RouteDecision& d, DropReason why) { return d.kind == Kind::kDiscard && d.reason == why; };
  CHECK(discarded(r.route(1, header(0, 0, 3, kPrefixB, kHostB, 64).data(), 256, ports), DropReason::kUnknownDlid));
  CHECK(discarded(r.route(1, header(15, 0, 3, kPrefixB, kHostB, 64, true).data(), 256, ports), DropReason::kUnknownDlid));
  // HopLmt 1 or 0: it would expire here.
  CHECK(discarded(r.route(1, header(0, 0, 2, kPrefixB, kHostB, 1).data(), 256, ports), DropReason::kUnknownDlid));
  CHECK(discarded(r.route(1, header(0, 0, 2, kPrefixB, kHostB, 0).data(), 256, ports), DropReason::kUnknownDlid));
  // No route for the prefix, no such port GUID in the destination subnet, back out of the input.
  CHECK(discarded(r.route(1, header(0, 0, 2, 0xfe80000000000000ull, kHostB, 64).data(), 256, ports),
                  DropReason::kUnknownDlid));
  CHECK(discarded(r.route(1, header(0, 0, 2, kPrefixB, 0x99, 64).data(), 256, ports), DropReason::kUnknownDlid));
  CHECK(discarded(r.route(1, header(0, 0, 2, kPrefixA, 0x99, 64).data(), 256, ports), DropReason::kUnknownDlid));
  // The output's MTU and SL-to-VL, as in a switch.
  CHECK(discarded(r.route(1, header(0, 0, 2, kPrefixB, kHostB, 64).data(), 5000, ports), DropReason::kMtuExceeded));
  RoutingUnit r15 = r;
  r15.set_sl_to_vl(1, 2, SlToVlTable::from(std::array<std::uint8_t, 16>{15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}));
  CHECK(discarded(r15.route(1, header(0, 0, 2, kPrefixB, kHostB, 64).data(), 256, ports), DropReason::kSlToVlDrop));
}

TEST_CASE("router: leaving, the LRH is rebuilt for the next subnet and HopLmt drops, the ICRC still holds",
          "[network][router]") {
  const GrhForwarding f = make_tables();
  // A real UD SEND with a GRH, as an HCA builds it.
  TransportHeaders h;
  h.lrh = Lrh{0, 0, 3, kLnhIbaGlobal, 2, 0, 1};
  Grh g;
  g.hop_lmt = 64;
  g.sgid = make_gid(kPrefixA, 0x0002c90301000002ull);
  g.dgid = make_gid(kPrefixB, kHostB);
  h.grh = g;
  h.bth.opcode = 0x64;
  h.bth.dest_qp = 0x100;
  h.deth = Deth{0x11111111, 0x101};
  Packet p;
  build_transport_packet(p, h, 100, nullptr);
  REQUIRE(icrc_ok(p));
  const auto before = p.header;
  CHECK(f.rebuild(p, 2));
  const Lrh l = decode_lrh(p.header.data());
  CHECK(l.dlid == 4);  // kHostB's LID in subnet B
  CHECK(l.slid == 2);  // the router's port 2
  CHECK(l.sl == 3);
  CHECK(l.lnh == kLnhIbaGlobal);
  CHECK(l.pkt_len == decode_lrh(before.data()).pkt_len);
  CHECK(decode_grh(p.header.data() + kLrhBytes).hop_lmt == 63);
  // Nothing else changed: only the LRH's DLID and SLID and the GRH's HopLmt.
  for (std::size_t i = 0; i < p.header_len; ++i) {
    const bool lid = i == 2 || i == 3 || i == 6 || i == 7, hops = i == kLrhBytes + 7;
    if (!lid && !hops) CHECK(p.header[i] == before[i]);
  }
  // The ICRC masks all three: still valid. The VCRC is the output stage's to rewrite.
  CHECK(icrc_ok(p));
  CHECK_FALSE(vcrc_ok(p));
  write_vcrc(p);
  CHECK(vcrc_ok(p));
  // Towards subnet C the DLID is the next router's.
  p.header = before;
  store_be64(p.header.data() + kLrhBytes + 24, kPrefixC);
  CHECK(f.rebuild(p, 2));
  CHECK(decode_lrh(p.header.data()).dlid == 9);
}
