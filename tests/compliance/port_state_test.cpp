// Port states (Vol1 ch7): R20 filtering in Init and Armed, R21 Armed -> Active on data.
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
const char* kTwoHosts =
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n";

// Links up from time 0 (no training), so the states set here are not overwritten when they come up.
FabricOptions links_up() {
  FabricOptions o;
  o.link.training_delay = false;
  return o;
}

void post(Fabric& f, Poster& p, std::size_t from, std::size_t to, int count, Time at) {
  aim(p, *f.hca(from), *f.hca(to), 512, count);
  fire_at(*f.hca(from), at, &p);
}
}  // namespace

TEST_CASE("R20 (ch7): a port in Init accepts no data packet: they are discarded and counted",
          "[compliance][R20][ch7]") {
  Fabric& f = build_fabric(kTwoHosts, links_up());
  f.switch_at(0)->port(1).set_state(PortState::kInit);  // the switch port facing h1
  Poster p;
  post(f, p, 1, 2, 4, 1 * kUs);
  Recorder rec;
  f.hca(2)->set_delivery_observer(&rec);
  run_for(f, 20 * kUs);
  CHECK(rec.delivered.empty());
  CHECK(f.switch_at(0)->port_discards(1, DropReason::kPortState) == 4);
  CHECK(f.ledger().dropped_count(DropReason::kPortState) == 4);
  CHECK(f.switch_at(0)->port(1).state() == PortState::kInit);  // data does not activate a port in Init
}

TEST_CASE("R20 (ch7): a port in Armed sends no data packet: what waits for it is discarded",
          "[compliance][R20][ch7]") {
  Fabric& f = build_fabric(kTwoHosts, links_up());
  f.switch_at(0)->port(2).set_state(PortState::kArmed);  // the switch port facing h2
  Poster p;
  post(f, p, 1, 2, 4, 1 * kUs);
  Recorder rec;
  f.hca(2)->set_delivery_observer(&rec);
  run_for(f, 20 * kUs);
  CHECK(rec.delivered.empty());
  CHECK(f.switch_at(0)->port(2).stats().tx_packets == 0);
  CHECK(f.switch_at(0)->port_discards(2, DropReason::kPortState) == 4);
}

TEST_CASE("R21 (ch7): a switch external port in Armed accepts data and goes Active on the first data packet",
          "[compliance][R21][ch7]") {
  Fabric& f = build_fabric(kTwoHosts, links_up());
  LinkPort& armed = f.switch_at(0)->port(1);
  armed.set_state(PortState::kArmed);
  Poster p;
  post(f, p, 1, 2, 3, 1 * kUs);
  Recorder rec;
  f.hca(2)->set_delivery_observer(&rec);
  run_for(f, 20 * kUs);
  CHECK(armed.state() == PortState::kActive);
  CHECK(rec.delivered.size() == 3);
  CHECK(f.ledger().dropped_total() == 0);
}
