// R41 (ch14) in a running fabric: once a switch port 0 has an M_Key, a SubnSet carrying another key
// is ignored (no answer, nothing changed) and counted in M_KeyViolations; the right key works.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/mad/directed_route.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
struct TestSm : SmpReceiver {
  std::vector<Smp> got;
  void on_smp(const Smp& smp, PortNum, Lid) override { got.push_back(smp); }
};
struct SmpSender {
  HcaSma* sma = nullptr;
  Smp smp;
  void fire() { sma->send_from_sm(smp, 1); }
};
}  // namespace

TEST_CASE("R41 (ch14): a SubnSet with a wrong M_Key is ignored by the switch SMA and M_KeyViolations counts it",
          "[compliance][R41][ch14]") {
  FabricOptions o;
  o.link.training_delay = false;
  Fabric& f = build_fabric(
      "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}]\n",
      o);
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  const Lid lid = f.switch_at(0)->lid();
  auto port0 = [&](Lid new_lid, std::uint64_t key_in_smp, std::uint64_t tid) {
    PortInfo pi;
    pi.lid = new_lid;
    pi.m_key = 0xABCD;             // the key the port is to have
    pi.m_key_protect_bits = 2;     // Gets with a wrong key are refused too
    Smp s = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, tid, {1}, key_in_smp);
    s.data = encode_port_info(pi);
    return s;
  };
  std::vector<SmpSender> sends(4);
  for (auto& s : sends) s.sma = f.hca_sma(1);
  sends[0].smp = port0(lid, 0, 1);              // no key yet: accepted, sets M_Key 0xABCD
  sends[1].smp = port0(lid + 100, 0x1111, 2);   // wrong key: ignored
  sends[2].smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0, 3, {1}, 0x1111);  // refused at level 2
  sends[3].smp = port0(lid + 200, 0xABCD, 4);   // right key
  for (std::size_t i = 0; i < sends.size(); ++i) fire_at(*f.hca(1), (1 + 5 * i) * kUs, &sends[i]);
  run_for(f, 30 * kUs);
  REQUIRE(sm.got.size() == 2);  // no answer to the SMPs with the wrong key
  CHECK(sm.got[0].transaction_id == 1);
  CHECK(sm.got[1].transaction_id == 4);
  CHECK(f.switch_at(0)->lid() == lid + 200);
  const PortInfo now = f.switch_sma(0)->state().ports[0].info;
  CHECK(now.m_key_violations == 2);
  CHECK(decode_port_info(sm.got[1].data.data()).m_key_violations == 2);
  CHECK(f.switch_sma(0)->stats().sets_applied == 2);
}
