// QP0 and LIDs in a running fabric (Vol1 ch4, ch14): R2, a packet for QP0 on a data VL is
// discarded before any SMA sees it; R13, DLID 0 and SLIDs that are not unicast are discarded by
// switches and HCAs, except the permissive SLID of directed-route SMPs on VL15. The fabrics use the
// static LIDs; the tests change a source's LID to forge the SLID.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/mad/directed_route.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kOneSwitch =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n";

struct TestSm : SmpReceiver {
  int got = 0;
  void on_smp(const Smp&, PortNum, Lid) override { ++got; }
};

struct SmpSender {
  HcaSma* sma = nullptr;
  Smp smp;
  void fire() { sma->send_from_sm(smp, 1); }
};

FabricOptions no_training() {
  FabricOptions o;
  o.link.training_delay = false;
  return o;
}

}  // namespace

TEST_CASE("R2 (ch14): QP0 discards a packet that arrives on a data VL, and the SMA never sees it", "[compliance][R2][ch14]") {
  Fabric& f = build_fabric(kOneSwitch, no_training());
  struct ToQp0 {
    Hca* h;
    Lid dlid;
    Qpn src;
    void fire() { h->post_ud_send(src, dlid, 0, 0, 256, true); }
  } post;
  post.h = f.hca(1);
  post.dlid = f.hca(2)->lid();
  post.src = f.hca(1)->create_ud_qp(0);
  fire_at(*f.hca(1), 1 * kUs, &post);
  run_for(f, 5 * kUs);
  CHECK(f.ledger().dropped_count(DropReason::kNoQp) == 1);
  CHECK(f.hca_sma(2)->stats().processed == 0);
  CHECK(f.hca_sma(2)->stats().discarded == 0);
}

TEST_CASE("R13 (ch4): DLID 0 and SLIDs that are not unicast are discarded, and 0xFFFF passes only in directed-route SMPs",
          "[compliance][R13][ch4]") {
  Fabric& f = build_fabric(kOneSwitch, no_training());
  Switch& sw = *f.switch_at(0);
  struct Post {
    Post(Hca* h_, Lid d, Lid s, Qpn sq, Qpn dq) : h(h_), dlid(d), slid(s), src(sq), dst(dq) {}
    Hca* h;
    Lid dlid, slid;
    Qpn src, dst;
    void fire() {
      h->set_port_lid(1, slid, 0);
      h->post_ud_send(src, dlid, dst, 0x42, 64, true);
    }
  };
  const Lid h1 = f.hca(1)->lid(), h2 = f.hca(2)->lid();
  const Qpn src = f.hca(1)->create_ud_qp(0x42), dst = f.hca(2)->create_ud_qp(0x42);
  std::vector<Post> posts = {{f.hca(1), 0, h1, src, dst},        // DLID 0
                             {f.hca(1), h2, 0, src, dst},        // SLID 0
                             {f.hca(1), h2, 0xC001, src, dst},   // multicast SLID
                             {f.hca(1), h2, 0xFFFF, src, dst},   // permissive SLID on VL0
                             {f.hca(1), h2, h1, src, dst}};      // a good one
  for (std::size_t i = 0; i < posts.size(); ++i) fire_at(*f.hca(1), (1 + i) * kUs, &posts[i]);
  // A directed-route SMP (DLID = SLID = 0xFFFF on VL15) is accepted by the same switch.
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  SmpSender dr;
  dr.sma = f.hca_sma(1);
  dr.smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 3, {1});
  fire_at(*f.hca(1), 8 * kUs, &dr);
  run_for(f, 12 * kUs);
  CHECK(sw.port_discards(1, DropReason::kInvalidLid) == 4);
  CHECK(f.ledger().dropped_count(DropReason::kInvalidLid) == 4);
  CHECK(f.ledger().delivered_count() == 1);
  CHECK(sm.got == 1);
}

TEST_CASE("R13 (ch4): an HCA discards a packet with DLID 0 or a non-unicast SLID", "[compliance][R13][ch4]") {
  Fabric& f = build_fabric(
      "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: h2/1}]\n",
      no_training());
  struct Post {
    Post(Hca* h_, Lid d, Lid s, Qpn sq, Qpn dq) : h(h_), dlid(d), slid(s), src(sq), dst(dq) {}
    Hca* h;
    Lid dlid, slid;
    Qpn src, dst;
    void fire() {
      h->set_port_lid(1, slid, 0);
      h->post_ud_send(src, dlid, dst, 0x42, 64, true);
    }
  };
  const Lid h1 = f.hca(0)->lid(), h2 = f.hca(1)->lid();
  const Qpn src = f.hca(0)->create_ud_qp(0x42), dst = f.hca(1)->create_ud_qp(0x42);
  std::vector<Post> posts = {{f.hca(0), 0, h1, src, dst},
                             {f.hca(0), h2, 0xC001, src, dst},
                             {f.hca(0), h2, 0xFFFF, src, dst},
                             {f.hca(0), h2, h1, src, dst}};
  for (std::size_t i = 0; i < posts.size(); ++i) fire_at(*f.hca(0), (1 + i) * kUs, &posts[i]);
  run_for(f, 8 * kUs);
  CHECK(f.ledger().dropped_count(DropReason::kInvalidLid) == 3);
  CHECK(f.ledger().delivered_count() == 1);
}
