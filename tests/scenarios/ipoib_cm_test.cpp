// IPoIB connected mode (docs/scenario.md, "IPoIB"): TCP over RC connections the CM makes between
// the ib0 interfaces, its goodput against the bound its headers and the link set, the connections'
// set-up, a capture tshark decodes, and the keys' checks.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const nlohmann::json& class_of(const nlohmann::json& r, const std::string& transport) {
  for (const auto& f : r["flows"])
    if (f["transport"] == transport) return f;
  throw std::runtime_error("no " + transport + " class in the results");
}

std::vector<std::string> split(const std::string& line, std::size_t n) {
  std::vector<std::string> f;
  std::string cell;
  std::istringstream ls(line);
  while (std::getline(ls, cell, ';')) f.push_back(cell);
  f.resize(n);
  return f;
}

}  // namespace

TEST_CASE("TCP over IPoIB connected mode, one connection at full load: goodput against its bound, the CM set-up",
          "[scenarios][ipoib][tcp]") {
  auto r = run_scenario_text("ipoib_cm_tcp_goodput",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"  // the SM on h1 (the default)
                             "ipoib: {subnet: 10.0.0.0/24, mode: connected}\n"
                             "workload:\n"
                             "  - {name: tcp, pattern: permutation, hosts: [h2, h3], sources: [h2],"
                             " transport: ipoib_tcp, load: 1.0, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 500us, drain: 50us}\n");
  const auto& c = class_of(r, "ipoib_tcp");
  const auto& t = c["tcp"];
  CHECK(c["ipoib"]["mode"] == "connected");
  CHECK(c["ipoib"]["mtu"] == 65520);
  CHECK(t["connections"] == 1);
  CHECK(t["established"] == 1);
  CHECK(t["mss"] == 65480);  // the connected MTU less IPv4 20 and TCP 20
  CHECK(t["retransmitted_segments"] == 0);
  CHECK(t["rtos"] == 0);
  CHECK(t["out_of_order_segments"] == 0);
  // The bound by hand. A full segment is IPoIB 4 + IPv4 20 + TCP 20 + 65480 data = 65524 bytes, one
  // RC SEND split at the 2 KiB IB MTU into 31 packets of 2048 bytes and a last one of 2036:
  //   LRH 8 + BTH 12 + payload + ICRC 4 + VCRC 2 (no DETH: RC), + 2 delimiters,
  //   31 x (2048 + 26 + 2) + (2036 + 26 + 2) = 31 x 2076 + 2064 = 66420 symbols,
  // 16605 ns on 4x QDR (4 symbols per ns: 10 Gb/s a lane, 8b/10b). Back to back:
  //   65480 x 8 / 16605 = 31.5471 Gb/s (datagram mode's is 30.7716: 2004 x 8 / 521).
  const double per_packet = 8 + 12 + 4 + 2 + 2;
  const double segment_ns = (31 * (2048 + per_packet) + (2036 + per_packet)) / 4.0;
  CHECK(segment_ns == 16605.0);
  const double bound_gbps = 65480.0 * 8 / segment_ns;
  CHECK(t["bound_gbps_per_source"].get<double>() == Approx(bound_gbps).epsilon(1e-9));
  const double goodput = t["goodput_gbps_per_source"].get<double>();
  CHECK(goodput == Approx(c["accepted"]["payload_gbps"].get<double>()));  // one source
  CHECK(goodput <= bound_gbps);
  // 30 whole segments reach the server in order within the 500 us window (it would hold 30.11 back
  // to back): 30 x 65480 x 8 / 500 us = 31.4304 Gb/s, 0.37% under the bound; the rest of the gap
  // is the window's edge (a segment delivered when its last packet is in), the ACKs' credit
  // packets and the SKIP ordered sets, as in datagram mode.
  CHECK(goodput == Approx(30 * 65480.0 * 8 / 500e3).epsilon(1e-9));
  CHECK(t["data_segments_sent"] == 33);
  CHECK(t["gap"].get<double>() == Approx(1 - goodput / bound_gbps));
  // The set-up: h2's SYN opens h2 -> h3 (REQ, REP, RTU), h3's SYN-ACK opens h3 -> h2: two
  // connections, each a REQ, a REP and an RTU.
  const auto& k = c["ipoib"]["connected"];
  CHECK(k["connections_requested"] == 2);
  CHECK(k["connections_accepted"] == 2);
  CHECK(k["established_active"] == 2);
  CHECK(k["established_passive"] == 2);
  CHECK(k["failed"] == 0);
  CHECK(k["receive_errors"] == 0);
  CHECK(k["packets_received"] == k["packets_sent"]);
  const auto& cm = r["connection_management"]["cm"];
  CHECK(cm["sent"]["req"] == 2);
  CHECK(cm["sent"]["rep"] == 2);
  CHECK(cm["sent"]["rtu"] == 2);
  CHECK(cm["received"]["req"] == 2);
  CHECK(cm["received"]["rtu"] == 2);
  CHECK(cm["retries"] == 0);
  // h2's SYN, once ARP resolved h3, asks for the first connection; h3's SYN-ACK waits for the
  // second (h3 -> h2), whose RTU, taken up by h2's agent, is the last step: 9.176 us in all
  // (each MAD taken up in cm.processing, 1 us, and the REQs built in as long).
  CHECK(k["first_requested_ns"].get<double>() == Approx(80272.0));
  CHECK(k["all_established_ns"].get<double>() == Approx(89448.0));
  CHECK(k["packets_waited"] == 2);  // the SYN and the SYN-ACK
  CHECK(c["ipoib"]["tcp_segments_received"] == c["ipoib"]["tcp_segments_sent"]);
}

TEST_CASE("UDP over IPoIB connected mode at full load: 65492-byte datagrams, one RC SEND each", "[scenarios][ipoib]") {
  auto r = run_scenario_text("ipoib_cm_udp_goodput",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"
                             "ipoib: {subnet: 10.0.0.0/24, mode: connected}\n"
                             "workload:\n"
                             "  - {name: udp, pattern: permutation, hosts: [h2, h3], transport: ipoib_udp,"
                             " load: 1.0, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 500us, drain: 50us}\n");
  const auto& c = class_of(r, "ipoib_udp");
  CHECK(c["ipoib"]["mode"] == "connected");
  // The default message: the most data one datagram carries, 65520 - IPv4 20 - UDP 8 = 65492,
  // one RC SEND of 65524 bytes: 16605 ns on 4x QDR as a full TCP segment (the test above), so
  // the bound is 65492 x 8 / 16605 = 31.5529 Gb/s per source.
  const double bound_gbps = 65492.0 * 8 / 16605.0;
  const double goodput = c["accepted"]["payload_gbps"].get<double>() / 2;  // two sources
  CHECK(goodput <= bound_gbps);
  // 60 whole datagrams delivered in the window (the two links would hold 60.2 back to back).
  CHECK(c["accepted"]["payload_bytes"] == 60 * 65492);
  CHECK(goodput == Approx(60 * 65492.0 * 8 / 500e3 / 2).epsilon(1e-9));  // 31.4362 Gb/s
  CHECK(c["messages"]["measured_undelivered"] == 0);
  const auto& k = c["ipoib"]["connected"];
  CHECK(k["connections_requested"] == 2);  // h2 -> h3 and h3 -> h2
  CHECK(k["established_active"] == 2);
  CHECK(k["packets_received"] == k["packets_sent"]);
  CHECK(c["ipoib"]["udp_datagrams_received"] == c["ipoib"]["udp_datagrams_sent"]);
}

TEST_CASE("tshark decodes a capture of scenarios/ipoib.yaml: SA, ARP, CM REQ/REP/RTU, TCP over RC, none malformed",
          "[scenarios][ipoib][capture]") {
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark is not installed: nothing to check");
    return;
  }
  const std::string out = scratch_dir("ipoib_cm_capture");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/ipoib.yaml -o " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string tshark =
      "/usr/bin/tshark -n -r " + out + "/trace.pcap -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE"
      " -T fields -E separator=';'"
      " -e frame.number -e _ws.malformed -e infiniband.bth.opcode -e infiniband.mad.attributeid"
      " -e arp.opcode -e arp.src.hw -e tcp.flags.syn -e tcp.len -e tcp.checksum.status -e ip.checksum.status"
      " -e udp.length -e infiniband.mad.mgmtclass -e arp.src.proto_ipv4";
  CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::size_t frames = 0, malformed = 0, req = 0, rep = 0, rtu = 0, arp = 0, rc_first_tcp = 0, rc_only_tcp = 0,
              rc_udp = 0, bad = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, 13);
    ++frames;
    if (!f[1].empty()) ++malformed;
    if (f[11] == "0x07" || f[11] == "7") {  // a CM MAD
      if (f[3] == "0x0010") ++req;
      if (f[3] == "0x0013") ++rep;
      if (f[3] == "0x0014") ++rtu;
    }
    if (!f[4].empty()) {
      ++arp;
      // The sender's hardware address (20 bytes: flags, QPN, GID) offers connected mode (0x80)
      // from the connected-mode interfaces of h9 .. h15 (10.0.0.9 .. 15) only.
      const int host = std::stoi(f[12].substr(f[12].rfind('.') + 1));
      CHECK(f[5].rfind(host >= 9 && host <= 15 ? "80" : "00", 0) == 0);
      CHECK(f[5].size() == 40);
    }
    // RC SEND First (0) and Only (4): Wireshark's EtherType heuristic reads their payload as IPoIB.
    if (f[2] == "0" && !f[7].empty()) {
      ++rc_first_tcp;
      CHECK(f[7] == "2004");  // a full segment's first packet: 2048 - 44 bytes of headers
    }
    if (f[2] == "4" && !f[7].empty()) {
      ++rc_only_tcp;
      if (f[8] != "1" || f[9] != "1") ++bad;  // the whole segment is there: good checksums
    }
    if (f[2] == "4" && !f[10].empty()) {
      ++rc_udp;
      CHECK(f[10] == "2024");  // UDP length: 8 + 2016
    }
  }
  CHECK(malformed == 0);
  CHECK(bad == 0);
  // Every MAD is captured on both links it crosses (through leaf 2's switch). 4 UDP hosts in a
  // permutation and 3 TCP connections (each two RC connections): 4 + 6 = 10 connections, each a
  // REQ, a REP and an RTU.
  CHECK(req == 10 * 2);
  CHECK(rep == 10 * 2);
  CHECK(rtu == 10 * 2);
  CHECK(arp >= 7);
  CHECK(rc_first_tcp > 10);  // data segments
  CHECK(rc_only_tcp > 10);   // the handshake and ACKs
  CHECK(rc_udp > 100);
  CHECK(frames > rc_first_tcp + rc_only_tcp + rc_udp);
}

TEST_CASE("ipoib: mode and connected_mtu are checked with the place", "[scenarios][ipoib]") {
  const std::string dir = scratch_dir("ipoib_cm_bad");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/ipoib_qdr.yaml";
  const std::string path = dir + "/scenario.yaml";
  auto run_with = [&](const std::string& ipoib, const std::string& cls) {
    std::ofstream(path) << "topology: " << topo << "\nipoib: " << ipoib << "\nworkload:\n  - " << cls << "\n";
    return run_ibfsim("run " + path + " -o " + dir + "/out");
  };
  const std::string udp = "{pattern: uniform, hosts: [h2, h3], transport: ipoib_udp}";
  CommandResult r = run_with("{subnet: 10.0.0.0/24, mode: connected, connected_mtu: 65521}", udp);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:2:") != std::string::npos);
  CHECK(r.output.find("65520") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, mode: connected, connected_mtu: 2043}", udp);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("2044") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, mode: cm}", udp);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("datagram or connected") != std::string::npos);
  r = run_with("{subnet: 10.0.0.0/24, connected_mtu: 4000}", udp);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("it applies to mode: connected") != std::string::npos);
  // A datagram of 4000 bytes fits connected mode, not datagram mode's 2044.
  r = run_with("{subnet: 10.0.0.0/24}", "{pattern: uniform, hosts: [h2, h3], transport: ipoib_udp, message_size: 4000}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:4:") != std::string::npos);
  CHECK(r.output.find("at most 2016") != std::string::npos);
}
