// Ethernet cables in a topology (`speed: 25GbE` .. `400GbE`, for fabric: roce): the speed, its FEC
// and length read from the file, what an Ethernet cable may not say, each cable's own rate and
// propagation in the Ethernet plan (fabric/ethernet_topology.h), and the YAML writer's round trip.
// Pure: no SystemC.
#include <catch2/catch.hpp>

#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/core/error.h"
#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/topology_summary.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/topology_yaml_writer.h"

using namespace ibfsim;

namespace {

std::string topology_error(const std::string& text) {
  try {
    parse_topology(YAML::Load(text), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kNodes =
    "nodes:\n  - {name: sw1, type: switch, ports: 2}\n  - {name: h1, type: hca}\n  - {name: h2, type: hca}\ncables:\n";

// h1 on 25GbE over 3 m, h2 on a cable that says nothing (the scenario's rate and cable delay).
const std::string kMixed = kNodes + "  - {from: h1/1, to: sw1/1, speed: 25GbE, length: 3m}\n  - {from: h2/1, to: sw1/2}\n";

}  // namespace

TEST_CASE("a cable's speed may be an Ethernet speed, with its FEC and length", "[fabric][topology][ethernet]") {
  const Topology t = parse_topology(
      YAML::Load(kNodes + "  - {from: h1/1, to: sw1/1, speed: 25GbE, length: 3m, fec: off}\n"
                          "  - {from: h2/1, to: sw1/2, speed: 400g}\n"),
      "t.yaml");
  REQUIRE(t.cables.size() == 2);
  CHECK(t.cables[0].ethernet_speed == EthernetSpeed::k25G);
  CHECK(t.cables[0].fec == false);
  CHECK(t.cables[0].length_mm == 3000);
  CHECK(t.cables[1].ethernet_speed == EthernetSpeed::k400G);
  CHECK(t.cables[1].fec == std::nullopt);
  CHECK(t.cables[1].length_mm == 2000);
  // An InfiniBand cable stays one.
  const Topology ib = parse_topology(YAML::Load(kNodes + "  - {from: h1/1, to: sw1/1, speed: HDR}\n"), "t.yaml");
  CHECK(ib.cables[0].ethernet_speed == std::nullopt);
  CHECK(ib.cables[0].rate.speed == LinkSpeed::kHdr);
}

TEST_CASE("topology error: a bad cable speed names both kinds, and an Ethernet cable's FEC and lanes are checked",
          "[fabric][topology][ethernet]") {
  CHECK(topology_error(kNodes + "  - {from: h1/1, to: sw1/1, speed: 30GbE}\n") ==
        "t.yaml:6:36: expected a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) or an Ethernet speed "
        "(25GbE, 50GbE, 100GbE, 200GbE, 400GbE), got '30GbE'");
  CHECK(topology_error(kNodes + "  - {from: h1/1, to: sw1/1, speed: 50GbE, fec: off}\n") ==
        "t.yaml:6:48: expected fec: on at 50GbE, which always runs RS(544,514), got 'off'");
  CHECK(topology_error(kNodes + "  - {from: h1/1, to: sw1/1, speed: 25GbE, fec: rs}\n") ==
        "t.yaml:6:48: expected fec: on or off, got 'rs'");
  CHECK(topology_error(kNodes + "  - {from: h1/1, to: sw1/1, speed: 25GbE, width: 4x}\n") ==
        "t.yaml:6:50: expected no width on a cable of an Ethernet speed (the speed fixes its lanes: 1 at 25GbE), "
        "got `width:`");
  CHECK(topology_error(kNodes + "  - {from: h1/1, to: sw1/1, speed: 100GbE, failed_lanes: [1]}\n") ==
        "t.yaml:6:58: expected no failed_lanes on a cable of an Ethernet speed (the speed fixes its lanes: 4 at "
        "100GbE), got `failed_lanes:`");
  CHECK(topology_error("defaults: {link: {fec: off}}\n" + kNodes + "  - {from: h1/1, to: sw1/1, speed: 200GbE}\n") ==
        "t.yaml:7:36: expected an Ethernet speed where FEC is optional (25GbE, 100GbE), or fec: on on the cable "
        "(defaults.link.fec is off), got '200GbE', which always runs RS(544,514)");
  // defaults.link.fec: off is fine where the speed lets FEC be off.
  const Topology t = parse_topology(
      YAML::Load("defaults: {link: {fec: off}}\n" + kNodes + "  - {from: h1/1, to: sw1/1, speed: 100GbE}\n"), "t.yaml");
  CHECK(t.cables[0].fec == false);
}

TEST_CASE("each Ethernet cable's own rate and propagation, the others the fabric's", "[fabric][ethernet][roce]") {
  const Topology t = parse_topology(YAML::Load(kMixed), "t.yaml");
  const EthernetRate fabric{EthernetSpeed::k100G, true};
  const EthernetCableOwn own = ethernet_cable_own(t, 0, fabric);
  REQUIRE(own.rate);
  CHECK(own.rate->speed == EthernetSpeed::k25G);
  CHECK(own.rate->fec);  // as roce.fec
  CHECK(own.propagation == 15 * kNs);  // 3 m x 5 ns/m
  const EthernetCableOwn none = ethernet_cable_own(t, 1, fabric);
  CHECK_FALSE(none.rate);
  CHECK_FALSE(none.propagation);
  // roce.fec false reaches a cable that says nothing of FEC where its speed allows it ...
  CHECK_FALSE(ethernet_cable_own(t, 0, EthernetRate{EthernetSpeed::k100G, false}).rate->fec);
  // ... and is an error where it does not.
  const Topology t200 = parse_topology(YAML::Load(kNodes + "  - {from: h1/1, to: sw1/1, speed: 200GbE}\n"), "t.yaml");
  CHECK(ethernet_cable_own(t200, 0, fabric).rate->fec);
  CHECK_THROWS_WITH(ethernet_cable_own(t200, 0, EthernetRate{EthernetSpeed::k100G, false}),
                    "t.yaml:6:5: fabric: roce: expected fec: on on a cable of 200GbE (it always runs RS(544,514); "
                    "roce.fec is false), got a 200GbE cable that says nothing of FEC");

  // The plan's cables (switch links first, then the hosts' in topology order) carry them.
  const EthernetFabricPlan plan = ethernet_plan_from_topology(t, 1, fabric);
  REQUIRE(plan.cables.size() == 2);
  const EthernetCablePlan& c1 = plan.cables[0];
  CHECK(plan.nodes[c1.b].name == "h1");
  REQUIRE(c1.own.rate);
  CHECK(c1.own.rate->speed == EthernetSpeed::k25G);
  const EthernetRate r1 = cable_rate(c1, fabric);
  CHECK(r1.speed == EthernetSpeed::k25G);
  // 15 ns of 320 ps edges: 46.875, the nearest 47.
  CHECK(cable_propagation_edges(c1, r1, 125) == 47);
  const EthernetCablePlan& c2 = plan.cables[1];
  CHECK(plan.nodes[c2.b].name == "h2");
  CHECK(cable_rate(c2, fabric).speed == EthernetSpeed::k100G);
  CHECK(cable_propagation_edges(c2, fabric, 125) == 125);
  // A half edge rounds up: 15 ns of 80 ps edges is 187.5.
  CHECK(nearest_edges(15 * kNs, fabric) == 188);
}

TEST_CASE("the topology writer keeps an Ethernet cable's speed, length and FEC", "[fabric][topology][ethernet]") {
  const Topology t = parse_topology(
      YAML::Load(kNodes + "  - {from: h1/1, to: sw1/1, speed: 25GbE, length: 3m, fec: off}\n"
                          "  - {from: h2/1, to: sw1/2, speed: 400GbE}\n"),
      "t.yaml");
  const std::string text = write_topology_yaml(t);
  CHECK_THAT(text, Catch::Contains("{from: h1/1, to: sw1/1, speed: 25GbE"));
  const Topology back = parse_topology(YAML::Load(text), "back.yaml");
  REQUIRE(back.cables.size() == 2);
  CHECK(back.cables[0].ethernet_speed == EthernetSpeed::k25G);
  CHECK(back.cables[0].length_mm == 3000);
  CHECK(back.cables[0].fec == false);
  CHECK(back.cables[1].ethernet_speed == EthernetSpeed::k400G);
  CHECK(back.cables[1].fec == std::nullopt);
}

TEST_CASE("the topology summary counts Ethernet cables by their speed, ahead of InfiniBand rates",
          "[fabric][topology][ethernet]") {
  const Topology t = parse_topology(
      YAML::Load("nodes:\n  - {name: sw1, type: switch, ports: 3}\n  - {name: h1, type: hca}\n  - {name: h2, type: hca}\n"
                 "  - {name: h3, type: hca}\ncables:\n  - {from: h1/1, to: sw1/1, speed: 400GbE}\n"
                 "  - {from: h2/1, to: sw1/2, speed: 25GbE}\n  - {from: h3/1, to: sw1/3}\n"),
      "t.yaml");
  const TopologySummary s = summarize_topology(t);
  CHECK_THAT(format_topology_summary(t, s), Catch::Contains("link rates: 1 x 25GbE, 1 x 400GbE, 1 x 4x EDR\n"));
  // Reports (bisection, the summary's bandwidth warnings) count each cable at its own data rate.
  CHECK(t.cables[0].data_gbps() == 400.0);
  CHECK(t.cables[1].data_gbps() == 25.0);
  CHECK(t.cables[2].data_gbps() == 100.0);
}
