// Link training at fabric build: a failed lane takes a 4x link down to 1x (and the link then
// serialises at 1x), lane reversal is found and changes nothing else, a dead lane 0 keeps the
// link down.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/run_command.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
Fabric& two_hosts(const std::string& cable_extra, const std::string& node_extra = "") {
  return build_fabric("defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
                      "nodes: [{name: h1, type: hca" + node_extra + "}, {name: h2, type: hca" + node_extra + "}]\n"
                      "cables: [{from: h1/1, to: h2/1" + cable_extra + "}]\n");
}
// Posts one packet at 1 us, while the link still trains: it waits in h1's send queue.
void send_one(Fabric& f, Poster& p, Recorder& rec) {
  aim(p, *f.hca(0), *f.hca(1), 2048);
  f.hca(1)->set_delivery_observer(&rec);
  f.hca(0)->set_send_observer(&rec);
  fire_at(*f.hca(0), 1 * kUs, &p);
}
}  // namespace

TEST_CASE("a failed lane trains a 4x link down to 2x where both ends enable 2x, at 2x serialization",
          "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [2]");
  REQUIRE(f.training(0).up);
  CHECK(f.training(0).lanes == 2);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, f.training(0).duration + 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  // 2084 slots over 2 lanes of 8-byte blocks: 131 edges; 2 m = 4 edges of 2.56 ns.
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (131 + 4) * 2'560'000ull);
}

TEST_CASE("a failed lane trains a 4x link down to 1x when the ends enable 1x and 4x, at 1x serialization",
          "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [2]", ", widths: [1x, 4x]");
  const TrainingResult& t = f.training(0);
  REQUIRE(t.up);
  CHECK(t.lanes == 1);
  CHECK(t.speed == LinkSpeed::kEdr);
  CHECK(f.hca(0)->port().rate().lanes == 1);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, f.training(0).duration + 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  // 2082 bytes + 2 delimiters on 1 lane of 8-byte blocks: 261 edges; 2 m = 4 edges of 2.56 ns.
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (261 + 4) * 2'560'000ull);
}

TEST_CASE("lane reversal is found by training and leaves the timing unchanged", "[scenarios][training]") {
  Fabric& f = two_hosts(", lanes_reversed: true");
  CHECK(f.training(0).lane_reversed);
  CHECK(f.training(0).lanes == 4);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, f.training(0).duration + 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (66 + 4) * 2'560'000ull);
}

TEST_CASE("a dead lane 0 keeps the link down: nothing is sent", "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [0]");
  CHECK_FALSE(f.training(0).up);
  CHECK(f.hca(0)->port().state() == PortState::kDown);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, f.training(0).duration + 20 * kUs);
  CHECK(rec.delivered.empty());
  CHECK(f.hca(0)->queued_packets() == 1);
}

namespace {
// Records h1's port state when its action runs.
struct StateProbe {
  LinkPort* port = nullptr;
  std::vector<PortState> seen;
  void fire() { seen.push_back(port->state()); }
};
}  // namespace

TEST_CASE("a link is Down while it trains and Active at exactly the training time, and a packet posted earlier waits "
          "in the send queue, not as a credit stall, and leaves once the link is up",
          "[scenarios][training]") {
  Fabric& f = two_hosts("");
  const TrainingResult& t = f.training(0);
  REQUIRE(t.up);
  // 4x EDR: (256 TS1 + 16 TS2) x 16 SDR symbols of 4 ns, then 272 training blocks of 2.56 ns.
  const Time up = t.duration;
  CHECK(up == 272 * 16 * 4 * kNs + 272 * 2'560'000ull);
  StateProbe before, at;
  before.port = at.port = &f.hca(0)->port();
  fire_at(*f.hca(0), up - 1, &before);
  fire_at(*f.hca(0), up, &at);  // runs after the link-up event, scheduled when the fabric was built
  Poster p;
  Recorder rec;
  send_one(f, p, rec);  // posted at 1 us
  run_for(f, up + 20 * kUs);
  CHECK(before.seen == std::vector<PortState>{PortState::kDown});
  CHECK(at.seen == std::vector<PortState>{PortState::kActive});
  CHECK(f.link_up_times(0) == std::vector<Time>{up});
  REQUIRE(rec.injected.size() == 1);
  REQUIRE(rec.delivered.size() == 1);
  // At link up h1 first sends its 8 initialising flow-control packets (one per VL, 1 edge each);
  // h2's first one arrives after 1 + 4 edges (2 m). The packet starts when both are done: 8 edges.
  constexpr Time kEdge = 2'560'000;
  CHECK(rec.injected[0] == up + 8 * kEdge);
  CHECK(rec.delivered[0].created == 1 * kUs);
  CHECK(rec.delivered[0].delivered == rec.injected[0] + (66 + 4) * kEdge);
  // Waiting for the link is not waiting for credits.
  CHECK(f.hca(0)->port().vl_stats(0).credit_stall == 0);
}

TEST_CASE("link training can be switched off: every link is Active at time 0", "[scenarios][training]") {
  FabricOptions o;
  o.link.training_delay = false;
  Fabric& f = build_fabric("defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
                           "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
                           "cables: [{from: h1/1, to: h2/1}]\n",
                           o);
  CHECK(f.hca(0)->port().state() == PortState::kActive);
  CHECK(f.link_up_times(0) == std::vector<Time>{0});
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, 20 * kUs);
  REQUIRE(rec.injected.size() == 1);
  CHECK(rec.injected[0] == 391 * 2'560'000ull);  // first edge at or after 1 us
}

TEST_CASE("results.json reports per link its training time and when it became Active, and traffic starts then",
          "[scenarios][training]") {
  const std::string scenario = "quickstart.yaml\n"
                               "workload: {sources: [h1], destination: h2, message_size: 2048, load: 0.1, arrival: constant}\n"
                               "phases: {warmup: 0us, measure: 30us, drain: 10us}\n";
  auto r = run_scenario_text("training_json", scenario);
  REQUIRE(r["links"].size() == 8);
  const double up = r["phases"]["fabric_up_ns"];
  for (const auto& l : r["links"]) {
    CHECK(l["trained"] == "4x EDR");
    CHECK(l["training_ns"] == 18104.32);  // 4,352 SDR edges of 4 ns + 272 EDR edges of 2.56 ns
    CHECK(l["up_ns"] == l["training_ns"]);
    // The ports wait in Init for the subnet manager, which activates them before traffic starts.
    CHECK(l["active_ns"].get<double>() > l["up_ns"].get<double>());
    CHECK(l["active_ns"].get<double>() <= up);
    CHECK_FALSE(l.contains("down_ns"));
  }
  CHECK(r["phases"]["start_ns"] == up);
  CHECK(r["subnet_manager"]["bring_up_ns"] == up);
  // Without the training delay the links are up at 0 and the SM starts there. The training time is
  // a whole number of EDR edges, so the bring-up and the run are the same, 18.10432 us later.
  auto off = run_scenario_text("training_json_off", scenario, "--set link.training_delay=false");
  for (const auto& l : off["links"]) CHECK(l["up_ns"] == 0.0);
  CHECK(r["phases"]["start_ns"].get<double>() == Approx(off["phases"]["start_ns"].get<double>() + 18104.32));
  CHECK(r["subnet_manager"]["bring_up_smps"] == off["subnet_manager"]["bring_up_smps"]);
  CHECK(r["latency"] == off["latency"]);
  CHECK(r["packets"] == off["packets"]);
  CHECK(r["phases"]["end_ns"].get<double>() == Approx(off["phases"]["end_ns"].get<double>() + 18104.32));
  // Traffic from time 0 instead, with the static LIDs (an SM would not have assigned any yet):
  // what h1 posts while its link trains waits in its send queue.
  auto early = run_scenario_text("training_json_early", scenario, "--set phases.start=0us --set subnet_manager=static");
  CHECK(early["phases"]["start_ns"] == 0.0);
  for (const auto& l : early["links"]) CHECK(l["active_ns"] == l["training_ns"]);  // Active straight after training
  // The first message goes within one mean gap (2084 bytes in 66 edges at 10%: 1689.6 ns) of 0.
  CHECK(early["latency"]["max_ns"].get<double>() >= 18104.32 - 1689.6);
  CHECK(early["packets"]["dropped_total"] == 0);
  CHECK(port_of(early, "h1", 1)["vls"][0]["credit_stall_ns"] == 0.0);
  // With the SM, traffic before the fabric is up is refused: it would have no LIDs.
  const std::string bad_dir = scratch_dir("training_json_bad");
  std::ofstream(bad_dir + "/scenario.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/" << scenario;
  CommandResult bad = run_ibfsim("run " + bad_dir + "/scenario.yaml -o " + bad_dir + "/out --set phases.start=0us");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("is before the subnet manager brought the fabric up") != std::string::npos);
}

TEST_CASE("a fault during training cuts it short, and the next up event trains again from its own time",
          "[scenarios][training]") {
  Fabric& f = two_hosts("");
  const TrainingResult& t = f.training(0);
  // Down at 5 us (mid-training: the link never comes up then), up at 30 us, down at 60 us, up at 61 us.
  f.schedule_faults({{5 * kUs, 0, 1, false}, {30 * kUs, 0, 1, true}, {60 * kUs, 1, 1, false}, {61 * kUs, 1, 1, true}});
  StateProbe probe;
  probe.port = &f.hca(1)->port();
  fire_at(*f.hca(0), t.duration, &probe);  // the first training would have ended here
  run_for(f, 100 * kUs);
  CHECK(probe.seen == std::vector<PortState>{PortState::kDown});
  CHECK(f.link_up_times(0) == std::vector<Time>{training_done_at(t, 30 * kUs), training_done_at(t, 61 * kUs)});
  CHECK(f.link_down_times(0) == std::vector<Time>{5 * kUs, 60 * kUs});
  CHECK(f.hca(0)->port().state() == PortState::kActive);
  // 30 us and 61 us are SDR edges; 47.408 us and 78.408 us are not EDR edges (18,518.75 and
  // 30,628.125 edges of 2.56 ns): the EDR phase starts on the next one.
  CHECK(f.link_up_times(0)[0] == (18'519 + 272) * 2'560'000ull);
  CHECK(f.link_up_times(0)[1] == (30'629 + 272) * 2'560'000ull);
}
