// scenarios/ipoib.yaml: UDP and TCP over IPoIB in datagram mode (leaf 1 of fat_tree_16) and in
// connected mode (leaf 2) side by side. Each class's goodput against the bound computed by hand,
// its exact counts, and the connections connected mode made.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const nlohmann::json& class_named(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no class " + name + " in the results");
}

// 4x EDR: each lane carries 64b/66b blocks of 8 bytes at 25.78125 Gb/s, one block in 2.56 ns; a
// packet and its two delimiters take whole blocks on the four lanes: 32 bytes per 2.56 ns.
double edr_packet_ns(double bytes) { return std::ceil((bytes + 2) / 32) * 2.56; }

}  // namespace

TEST_CASE("scenarios/ipoib.yaml: UDP and TCP in datagram and connected mode, each against its bound",
          "[scenarios][ipoib][tcp]") {
  const std::string out = scratch_dir("ipoib_both_modes");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/ipoib.yaml -o " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = results_and_tables(out);
  const double window_ns = 100e3;

  // --- udp: datagram mode. A 2016-byte datagram is a UD SEND Only of LRH 8 + BTH 12 + DETH 8 +
  // IPoIB 4 + IPv4 20 + UDP 8 + 2016 + ICRC 4 + VCRC 2 = 2082 bytes: 66 blocks, 168.96 ns.
  {
    const auto& c = class_named(r, "udp");
    CHECK(c["ipoib"]["mode"] == "datagram");
    CHECK(c["ipoib"]["mtu"] == 2044);
    CHECK(edr_packet_ns(2082) == Approx(168.96));
    const double bound = 2016 * 8 / edr_packet_ns(2082);  // 95.4545 Gb/s per source
    const double goodput = c["accepted"]["payload_gbps"].get<double>() / 4;
    CHECK(goodput <= bound);
    // Offered 90% of each source's link: 4 x 100 us x 0.9 / 168.96 ns = 2130.7 datagrams in the
    // window; 2131 arrive whole in it (the backlog of the interfaces' start has drained in the
    // warm-up), 85.9219 Gb/s per source, within 0.02% of 0.9 x the bound.
    CHECK(4 * window_ns * 0.9 / edr_packet_ns(2082) == Approx(2130.68).epsilon(1e-5));
    CHECK(c["accepted"]["payload_bytes"] == 2131 * 2016);
    CHECK(goodput == Approx(0.9 * bound).epsilon(2e-4));
    CHECK(c["messages"]["measured_undelivered"] == 0);
    CHECK(c["ipoib"]["udp_datagrams_received"] == c["ipoib"]["udp_datagrams_sent"]);
    CHECK(c["ipoib"]["udp_datagrams_too_long"] == 0);
    CHECK(c["ipoib"].count("connected") == 0);
  }
  // --- tcp: datagram mode, MSS 2004: a full segment is 2082 bytes as the datagram above.
  {
    const auto& c = class_named(r, "tcp");
    const auto& t = c["tcp"];
    CHECK(t["mss"] == 2004);
    const double bound = 2004 * 8 / edr_packet_ns(2082);  // 94.8864 Gb/s
    CHECK(t["bound_gbps_per_source"].get<double>() == Approx(bound).epsilon(1e-9));
    CHECK(t["goodput_gbps_per_source"].get<double>() <= bound);
    // 1445 whole segments in order in the window: 77.2208 Gb/s per source, 18.6% under the bound
    // (the sources' links also carry the ACKs they send for their own receivers, and slow start).
    CHECK(c["accepted"]["payload_bytes"] == 1445 * 2004);
    CHECK(t["goodput_gbps_per_source"].get<double>() == Approx(1445 * 2004 * 8 / window_ns / 3).epsilon(1e-9));
    CHECK(t["established"] == 3);
    CHECK(t["retransmitted_segments"] == 0);
    CHECK(t["out_of_order_segments"] == 0);
    CHECK(c["ipoib"].count("connected") == 0);
  }
  // --- udp_cm: connected mode, each 2016-byte datagram one RC SEND Only of LRH 8 + BTH 12 +
  // IPoIB 4 + IPv4 20 + UDP 8 + 2016 + ICRC 4 + VCRC 2 = 2074 bytes: 65 blocks, 166.4 ns.
  {
    const auto& c = class_named(r, "udp_cm");
    CHECK(c["ipoib"]["mode"] == "connected");
    CHECK(c["ipoib"]["mtu"] == 65520);
    const double bound = 2016 * 8 / edr_packet_ns(2074);  // 96.9231 Gb/s per source
    const double goodput = c["accepted"]["payload_gbps"].get<double>() / 4;
    CHECK(goodput <= bound);
    // Offered 40%: 4 x 100 us x 0.4 / 166.4 ns = 961.5 datagrams; 961 arrive in the window,
    // 38.7475 Gb/s per source, within 0.1% of 0.4 x the bound. (At 90% it carries 97.7%: the
    // RC ACKs a host sends back no longer stall its next SEND's payload DMA.)
    CHECK(4 * window_ns * 0.4 / edr_packet_ns(2074) == Approx(961.54).epsilon(1e-5));
    CHECK(c["accepted"]["payload_bytes"] == 961 * 2016);
    CHECK(goodput == Approx(0.4 * bound).epsilon(1e-3));
    CHECK(c["messages"]["measured_undelivered"] == 0);
    const auto& k = c["ipoib"]["connected"];
    CHECK(k["connections_requested"] == 4);  // one per source of the permutation
    CHECK(k["connections_accepted"] == 4);
    CHECK(k["established_active"] == 4);
    CHECK(k["failed"] == 0);
    CHECK(k["receive_errors"] == 0);
    CHECK(k["packets_received"] == k["packets_sent"]);
    CHECK(k["packets_sent"] == c["ipoib"]["udp_datagrams_sent"]);
  }
  // --- tcp_cm: connected mode, MSS 65480: a full segment (65524 bytes with its 44 bytes of
  // headers) is one RC SEND of 31 packets of 2048 payload bytes and one of 2036, each with LRH 8 +
  // BTH 12 + ICRC 4 + VCRC 2: 2074 and 2062 bytes, 65 blocks each: 32 x 166.4 = 5324.8 ns.
  {
    const auto& c = class_named(r, "tcp_cm");
    const auto& t = c["tcp"];
    CHECK(t["mss"] == 65480);
    const double segment_ns = 31 * edr_packet_ns(2074) + edr_packet_ns(2062);
    CHECK(segment_ns == Approx(5324.8));
    const double bound = 65480 * 8 / segment_ns;  // 98.3774 Gb/s
    CHECK(t["bound_gbps_per_source"].get<double>() == Approx(bound).epsilon(1e-9));
    CHECK(t["goodput_gbps_per_source"].get<double>() <= bound);
    // 54 whole segments in the window: 94.2912 Gb/s per source, 4.2% under the bound.
    CHECK(c["accepted"]["payload_bytes"] == 54 * 65480);
    CHECK(t["goodput_gbps_per_source"].get<double>() == Approx(54 * 65480 * 8 / window_ns / 3).epsilon(1e-9));
    CHECK(t["gap"].get<double>() < 0.06);
    CHECK(t["established"] == 3);
    CHECK(t["retransmitted_segments"] == 0);
    const auto& k = c["ipoib"]["connected"];
    CHECK(k["connections_requested"] == 6);  // each TCP connection: its data one way, its ACKs the other
    CHECK(k["established_active"] == 6);
    CHECK(k["failed"] == 0);
    CHECK(k["receive_errors"] == 0);
    // Offered the full link, the connections still carry segments when the drain ends.
    CHECK(k["packets_received"] <= k["packets_sent"]);
  }
  // The CM: 4 + 6 connections, each a REQ, a REP and an RTU; datagram mode makes none.
  const auto& cm = r["connection_management"]["cm"];
  CHECK(cm["sent"]["req"] == 10);
  CHECK(cm["sent"]["rep"] == 10);
  CHECK(cm["sent"]["rtu"] == 10);
  CHECK(cm["retries"] == 0);
}
