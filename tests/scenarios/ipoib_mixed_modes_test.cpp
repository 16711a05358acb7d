// IPoIB interfaces of one class in different modes (`ipoib.interfaces`, docs/scenario.md "Mixed
// modes"): a connection only between two connected-mode interfaces, UD with the datagram MTU
// otherwise (a datagram too long for its path dropped at its sender), TCP's MSS the smaller of its
// two ends', and the key's checks.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const nlohmann::json& class_of(const nlohmann::json& r, const std::string& transport) {
  for (const auto& f : r["flows"])
    if (f["transport"] == transport) return f;
  throw std::runtime_error("no " + transport + " class in the results");
}

}  // namespace

TEST_CASE("IPoIB mixed modes: UDP between two connected-mode interfaces over RC, the other pairs over UD",
          "[scenarios][ipoib]") {
  // h3 and h4 in connected mode, h2 in datagram mode; a permutation of three hosts is a cycle, so
  // exactly one of its three pairs (h3 -> h4 or h4 -> h3) has both ends in connected mode.
  auto r = run_scenario_text("ipoib_mixed_udp",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"
                             "ipoib: {subnet: 10.0.0.0/24, interfaces: {h3: {mode: connected}, h4: {mode: connected}}}\n"
                             "workload:\n"
                             "  - {name: udp, pattern: permutation, hosts: [h2, h3, h4], transport: ipoib_udp,"
                             " load: 0.5, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 100us, drain: 50us}\n");
  const auto& c = class_of(r, "ipoib_udp");
  const auto& i = c["ipoib"];
  CHECK(i["mode"] == "mixed");
  CHECK(i["connected_interfaces"] == nlohmann::json::array({"h3", "h4"}));
  CHECK(i["mtu"] == 65520);  // the largest of the class's interfaces'
  // The default size in a mixed class fits every path: the datagram mode's 2016.
  CHECK(c["accepted"]["payload_bytes"].get<std::uint64_t>() % 2016 == 0);
  const auto& k = i["connected"];
  CHECK(k["connections_requested"] == 1);
  CHECK(k["connections_accepted"] == 1);
  CHECK(k["established_active"] == 1);
  CHECK(k["failed"] == 0);
  // One source of three sends over the connection, the two others as UD SENDs. Each offers half
  // its link in its own mode (constant arrivals: an RC SEND Only of 2076 symbols, a UD SEND of
  // 2084, within 0.4% of each other), so the connection carries a third, within a few datagrams.
  const auto sent = i["udp_datagrams_sent"].get<std::uint64_t>();
  const auto over_rc = k["packets_sent"].get<std::uint64_t>();
  CHECK(over_rc > 0);
  CHECK(over_rc * 3 >= sent - 6);
  CHECK(over_rc * 3 <= sent + 6);
  CHECK(sent == 432);  // this run's: 145 of them over the connection
  CHECK(over_rc == 145);
  CHECK(k["packets_received"] == k["packets_sent"]);
  CHECK(i["udp_datagrams_received"] == i["udp_datagrams_sent"]);
  CHECK(i["udp_datagrams_too_long"] == 0);
  CHECK(c["messages"]["measured_undelivered"] == 0);
}

TEST_CASE("IPoIB mixed modes: a datagram larger than the UD path's MTU is dropped at its sender", "[scenarios][ipoib]") {
  // 4000-byte datagrams: within the connected MTU, beyond the datagram MTU of 2044. Only the pair
  // of connected-mode interfaces carries them; the two others drop every one (Linux's ipoib_send
  // does, sending ICMP "fragmentation needed", not modelled).
  auto r = run_scenario_text("ipoib_mixed_too_long",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"
                             "ipoib: {subnet: 10.0.0.0/24, interfaces: {h3: {mode: connected}, h4: {mode: connected}}}\n"
                             "workload:\n"
                             "  - {name: udp, pattern: permutation, hosts: [h2, h3, h4], transport: ipoib_udp,"
                             " message_size: 4000, load: 0.5, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 100us, drain: 50us}\n");
  const auto& c = class_of(r, "ipoib_udp");
  const auto& i = c["ipoib"];
  const auto& k = i["connected"];
  const auto too_long = i["udp_datagrams_too_long"].get<std::uint64_t>();
  CHECK(too_long > 0);
  // What was sent went over the connection; all of it arrived.
  CHECK(i["udp_datagrams_sent"] == k["packets_sent"]);
  CHECK(i["udp_datagrams_received"] == i["udp_datagrams_sent"]);
  // Every offered message was either sent or dropped; two sources of three dropped theirs.
  CHECK(c["messages"]["offered"].get<std::uint64_t>() == too_long + i["udp_datagrams_sent"].get<std::uint64_t>());
  CHECK(too_long >= 2 * k["packets_sent"].get<std::uint64_t>() - 4);
  CHECK(too_long <= 2 * k["packets_sent"].get<std::uint64_t>() + 4);
  CHECK(too_long == 145);  // this run's: 73 sent over the connection
  CHECK(k["packets_sent"] == 73);
  CHECK(c["accepted"]["payload_bytes"].get<std::uint64_t>() % 4000 == 0);
}

TEST_CASE("IPoIB mixed modes: TCP from a connected-mode to a datagram-mode interface goes over UD with MSS 2004",
          "[scenarios][ipoib][tcp]") {
  auto r = run_scenario_text("ipoib_mixed_tcp",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"
                             "ipoib: {subnet: 10.0.0.0/24, interfaces: {h2: {mode: connected}}}\n"
                             "workload:\n"
                             "  - {name: tcp, pattern: permutation, hosts: [h2, h3], sources: [h2],"
                             " transport: ipoib_tcp, load: 1.0, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 500us, drain: 50us}\n");
  const auto& c = class_of(r, "ipoib_tcp");
  const auto& t = c["tcp"];
  CHECK(c["ipoib"]["mode"] == "mixed");
  CHECK(t["established"] == 1);
  CHECK(t["mss"] == 65480);  // what h2 advertises; h3 advertises 2004, and h2 sends segments of that
  // h3's address does not offer connected mode: no connection at all, every segment a UD SEND.
  CHECK(c["ipoib"]["connected"]["connections_requested"] == 0);
  CHECK(c["ipoib"]["connected"]["connections_accepted"] == 0);
  CHECK(c["ipoib"]["connected"]["packets_sent"] == 0);
  CHECK(r["connection_management"]["cm"]["sent"]["req"] == 0);
  // The bound is datagram mode's: 2004 data bytes in a UD SEND of 2082 bytes + 2 delimiters,
  // 521 ns on 4x QDR: 2004 x 8 / 521 = 30.7716 Gb/s.
  const double bound_gbps = 2004.0 * 8 / 521.0;
  CHECK(t["bound_gbps_per_source"].get<double>() == Approx(bound_gbps).epsilon(1e-9));
  const double goodput = t["goodput_gbps_per_source"].get<double>();
  CHECK(goodput <= bound_gbps);
  CHECK(goodput >= bound_gbps * 0.99);
  CHECK(goodput == Approx(956 * 2004 * 8 / 500e3).epsilon(1e-9));  // 956 segments in the window, 0.38% under
  CHECK(t["retransmitted_segments"] == 0);
  CHECK(c["ipoib"]["tcp_segments_received"] == c["ipoib"]["tcp_segments_sent"]);
}

TEST_CASE("ipoib.interfaces: unknown HCAs, modes and keys are refused with the place", "[scenarios][ipoib]") {
  const std::string dir = scratch_dir("ipoib_interfaces_bad");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/ipoib_qdr.yaml";
  const std::string path = dir + "/scenario.yaml";
  auto run_with = [&](const std::string& ipoib) {
    std::ofstream(path) << "topology: " << topo << "\nipoib: " << ipoib
                        << "\nworkload:\n  - {pattern: uniform, hosts: [h2, h3], transport: ipoib_udp}\n";
    return run_ibfsim("run " + path + " -o " + dir + "/out");
  };
  CommandResult r = run_with("{subnet: 10.0.0.0/24, interfaces: {h9: {mode: connected}}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:2:") != std::string::npos);
  CHECK(r.output.find("the name of an HCA of the topology") != std::string::npos);
  CHECK(r.output.find("'h9'") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, interfaces: {sw1: {mode: connected}}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("'sw1'") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, interfaces: {h2: {mode: cm}}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("datagram or connected") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, interfaces: {h2: {mtu: 4000}}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("unknown key 'mtu'") != std::string::npos);
  // A connected_mtu with every interface in datagram mode (the default and the listed ones).
  r = run_with("{subnet: 10.0.0.0/24, connected_mtu: 4000, interfaces: {h2: {mode: datagram}}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("it applies to mode: connected") != std::string::npos);
  // With one interface in connected mode it is accepted, and so is a datagram as large as it allows.
  std::ofstream(path) << "topology: " << topo
                      << "\nipoib: {subnet: 10.0.0.0/24, connected_mtu: 4000, interfaces: {h3: {mode: connected}}}"
                         "\nworkload:\n  - {pattern: uniform, hosts: [h2, h3], transport: ipoib_udp, message_size: 3973}\n"
                         "phases: {warmup: 20us, measure: 1us, drain: 1us}\n";
  r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("at most 3972") != std::string::npos);
  CHECK(r.output.find("mixed mode") != std::string::npos);
}
