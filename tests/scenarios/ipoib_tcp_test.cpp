// TCP over IPoIB datagram mode (docs/scenario.md, "TCP over IPoIB"): one connection at full load
// against the bound its headers and the link set, and a capture tshark decodes as TCP.
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

const nlohmann::json& tcp_class(const nlohmann::json& r) {
  for (const auto& f : r["flows"])
    if (f["transport"] == "ipoib_tcp") return f;
  throw std::runtime_error("no ipoib_tcp class in the results");
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

TEST_CASE("TCP over IPoIB, one connection at full load: goodput against the bound of its headers and link",
          "[scenarios][ipoib][tcp]") {
  auto r = run_scenario_text("ipoib_tcp_goodput",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"  // the SM on h1 (the default)
                             "ipoib: {subnet: 10.0.0.0/24}\n"
                             "workload:\n"
                             "  - {name: tcp, pattern: permutation, hosts: [h2, h3], sources: [h2],"
                             " transport: ipoib_tcp, load: 1.0, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 500us, drain: 50us}\n");
  const auto& c = tcp_class(r);
  const auto& t = c["tcp"];
  CHECK(t["connections"] == 1);
  CHECK(t["established"] == 1);
  CHECK(t["mss"] == 2004);
  // Nothing is lost on a lossless fabric: no retransmission of any kind.
  CHECK(t["retransmitted_segments"] == 0);
  CHECK(t["fast_retransmits"] == 0);
  CHECK(t["rtos"] == 0);
  CHECK(t["out_of_order_segments"] == 0);
  // The bound by hand. A full segment carries MSS = 2004 data bytes (IPoIB MTU 2044 - IPv4 20 -
  // TCP 20) as one UD SEND Only:
  //   LRH 8 + BTH 12 + DETH 8 + [IPoIB 4 + IPv4 20 + TCP 20 + data 2004] + ICRC 4 + VCRC 2
  //   = 2082 bytes, + the start and end delimiters = 2084 symbols: 521 ns on 4x QDR (4 symbols
  // per ns). Back to back: 2004 x 8 / 521 = 30.7716 Gb/s.
  const double bound_gbps = 2004.0 * 8 / 521.0;
  CHECK(t["bound_gbps_per_source"].get<double>() == Approx(bound_gbps).epsilon(1e-9));
  // What the sender's link carries besides: the credits of the ACKs it receives, one flow-control
  // packet (8 symbols: 2 ns) per ACK, an ACK per two full segments (delayed ACKs); and a SKIP
  // ordered set of 4 ns every 4608 ns. So two segments take (2 x 521 + 2) / (1 - 4/4608) ns:
  const double line_gbps = 2 * 2004.0 * 8 / ((2 * 521.0 + 2.0) / (1.0 - 4.0 / 4608.0));  // 30.6861
  const double goodput = t["goodput_gbps_per_source"].get<double>();
  CHECK(goodput == Approx(c["accepted"]["payload_gbps"].get<double>()));  // one source
  CHECK(goodput <= bound_gbps);
  CHECK(goodput == Approx(line_gbps).epsilon(0.002));
  CHECK(t["gap"].get<double>() == Approx(1 - goodput / bound_gbps));
  // Lossless: every segment sent arrived.
  CHECK(c["ipoib"]["tcp_segments_received"] == c["ipoib"]["tcp_segments_sent"]);
}

TEST_CASE("tshark decodes TCP over IPoIB in a capture of scenarios/ipoib.yaml: handshake, data, checksums, MSS per mode",
          "[scenarios][ipoib][tcp][capture]") {
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark is not installed: nothing to check");
    return;
  }
  const std::string out = scratch_dir("ipoib_tcp_capture");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/ipoib.yaml -o " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string tshark =
      "/usr/bin/tshark -n -r " + out + "/trace.pcap -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE"
      " -Y tcp -T fields -E separator=';'"
      " -e frame.number -e _ws.malformed -e tcp.flags.syn -e tcp.flags.ack -e tcp.len -e tcp.options.mss_val"
      " -e tcp.options.wscale.shift -e tcp.checksum.status -e ip.checksum.status -e tcp.dstport -e ip.src";
  CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::size_t frames = 0, malformed = 0, syn = 0, syn_ack = 0, data = 0, bad = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, 11);
    ++frames;
    if (!f[1].empty()) ++malformed;
    const bool is_syn = f[2] == "1" || f[2] == "True";
    const bool is_ack = f[3] == "1" || f[3] == "True";
    // The `tcp` class's hosts h6 .. h8 (10.0.0.6 .. 8) are in datagram mode, `tcp_cm`'s h13 ..
    // h15 in connected mode, whose segments' first packets hold only part of them.
    const bool datagram = f[10] == "10.0.0.6" || f[10] == "10.0.0.7" || f[10] == "10.0.0.8";
    if (is_syn) {
      CHECK(f[5] == (datagram ? "2004" : "65480"));  // MSS: the interface's MTU less 40
      CHECK(f[6] == "7");                            // window scale: 6 MiB receive buffer
      if (is_ack) ++syn_ack;
      else ++syn;
    }
    if (!f[4].empty() && f[4] != "0") {
      ++data;
      CHECK(f[9] == "5001");  // data flows from client to server
      CHECK(f[10].rfind("10.0.0.", 0) == 0);
    }
    if (datagram && (f[7] != "1" || f[8] != "1")) ++bad;  // 1: good
  }
  CHECK(malformed == 0);
  CHECK(bad == 0);
  // Three connections in each class (three hosts in a permutation), each packet captured on both
  // links it crosses.
  CHECK(syn == 6 * 2);
  CHECK(syn_ack == 6 * 2);
  CHECK(data > 100);
  CHECK(frames > data);
}

TEST_CASE("tcp: keys are checked: a zero RTO, an unknown key, tcp on a UDP class are refused with the place",
          "[scenarios][ipoib][tcp]") {
  const std::string dir = scratch_dir("ipoib_tcp_bad");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/ipoib_qdr.yaml";
  const std::string path = dir + "/scenario.yaml";
  auto run_with = [&](const std::string& cls) {
    std::ofstream(path) << "topology: " << topo << "\nipoib: {subnet: 10.0.0.0/24}\nworkload:\n  - " << cls << "\n";
    return run_ibfsim("run " + path + " -o " + dir + "/out");
  };
  CommandResult r = run_with("{pattern: uniform, hosts: [h2, h3], transport: ipoib_tcp, tcp: {rto_min: 0us}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:4:") != std::string::npos);
  CHECK(r.output.find("a minimum RTO above 0") != std::string::npos);
  r = run_with("{pattern: uniform, hosts: [h2, h3], transport: ipoib_tcp, tcp: {rto: 1ms}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("rto") != std::string::npos);
  r = run_with("{pattern: uniform, hosts: [h2, h3], transport: ipoib_udp, tcp: {sack: false}}");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("it applies to transport: ipoib_tcp") != std::string::npos);
}
