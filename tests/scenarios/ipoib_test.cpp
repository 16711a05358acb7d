// UDP over IPoIB datagram mode (docs/scenario.md, "IPoIB"): the interfaces join their broadcast
// group through the SA, resolve each other with ARP, and carry UDP at the rate the headers allow.
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

const nlohmann::json& ipoib_class(const nlohmann::json& r) {
  for (const auto& f : r["flows"])
    if (f["transport"] == "ipoib_udp") return f;
  throw std::runtime_error("no ipoib_udp class in the results");
}

}  // namespace

TEST_CASE("UDP over IPoIB at full load: goodput within 0.5% of the bound the headers and the link set",
          "[scenarios][ipoib]") {
  auto r = run_scenario_text("ipoib_goodput",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"  // the SM on h1 (the default)
                             "ipoib: {subnet: 10.0.0.0/24}\n"
                             "workload:\n"
                             "  - {name: udp, pattern: permutation, hosts: [h2, h3], transport: ipoib_udp,"
                             " message_size: 2016, load: 1.0, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 500us, drain: 50us}\n");
  const auto& c = ipoib_class(r);
  // The bound by hand. A datagram of 2016 data bytes fills the IPoIB MTU of 2044 (2 KiB IB MTU - 4):
  // IPv4 20 + UDP 8 + 2016 = 2044. On the wire it is one UD SEND Only:
  //   LRH 8 + BTH 12 + DETH 8 + [IPoIB 4 + IPv4 20 + UDP 8 + data 2016] + pad 0 + ICRC 4 + VCRC 2
  //   = 2082 bytes, + the start and end delimiters = 2084 symbols.
  // 4x QDR: 10 Gb/s per lane, 8b/10b: 1 symbol per lane per ns, 4 per ns over the 4 lanes, so the
  // packet holds the link 2084 / 4 = 521 ns, and the most UDP data a link carries is
  //   2016 bytes x 8 / 521 ns = 30.9559 Gb/s per source (h2 and h3 each send to the other).
  // What the link carries besides: each host also receives the other's packets and returns their
  // credits, one flow-control packet per packet (6 bytes + 2 delimiters = 8 symbols: 2 ns), and a
  // SKIP ordered set of 4 ns every 4608 ns. So the line really runs a packet every
  //   (521 + 2) / (1 - 4/4608) = 523.454 ns: 2016 x 8 / 523.454 = 30.8107 Gb/s,
  // 0.47% under the headers' bound: within 0.5% of it, and within 0.05% of this figure (the rest is
  // the window's edges: a whole number of packets in it).
  const double bound_gbps = 2016.0 * 8 / 521.0;
  const double line_gbps = 2016.0 * 8 / ((521.0 + 2.0) / (1.0 - 4.0 / 4608.0));
  const double goodput = c["accepted"]["payload_gbps"].get<double>() / 2;  // two sources
  CHECK(goodput <= bound_gbps);
  CHECK(goodput >= bound_gbps * 0.995);
  CHECK(goodput == Approx(line_gbps).epsilon(0.0005));
  CHECK(c["accepted"]["load"].get<double>() > 0.99);
  // Both interfaces joined and resolved each other. The SA serves h2's join first; h2 asks for h3
  // at once, before sw1's MFT knows the group: sw1 drops that request (unknown DLID, the run's only
  // drop). h3's request, after its own join, reaches h2 through the MFT; h2 learns h3 from it and
  // answers, h3 learns h2 from the reply, and h2's retry finds h3 known: 2 requests, 1 reply.
  CHECK(c["ipoib"]["all_joined"] == true);
  CHECK(c["ipoib"]["arp_requests_sent"] == 2);
  CHECK(c["ipoib"]["arp_requests_received"] == 1);
  CHECK(c["ipoib"]["arp_replies_sent"] == 1);
  CHECK(c["ipoib"]["arp_replies_received"] == 1);
  CHECK(c["ipoib"]["arp_retries"] == 0);
  CHECK(r["packets"]["dropped_total"] == 1);
  CHECK(r["packets"]["dropped"]["unknown_dlid"] == 1);
  CHECK(c["ipoib"]["udp_datagrams_received"] == c["ipoib"]["udp_datagrams_sent"]);
}

TEST_CASE("tshark decodes a capture of scenarios/ipoib.yaml: ARP and UDP over IPoIB, nothing malformed",
          "[scenarios][ipoib][capture]") {
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark is not installed: nothing to check");
    return;
  }
  const std::string out = scratch_dir("ipoib_capture");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/ipoib.yaml -o " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string tshark =
      "/usr/bin/tshark -n -r " + out + "/trace.pcap -T fields -E separator=';'"
      " -e frame.number -e _ws.malformed -e infiniband.bth.destqp -e arp.opcode -e arp.src.proto_ipv4"
      " -e arp.dst.proto_ipv4 -e ip.src -e ip.dst -e udp.dstport -e udp.length";
  CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::size_t frames = 0, malformed = 0, arp_requests = 0, arp_replies = 0, udp = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ';')) f.push_back(cell);
    f.resize(10);
    ++frames;
    if (!f[1].empty()) ++malformed;
    if (f[3] == "1") ++arp_requests;
    if (f[3] == "2") ++arp_replies;
    if (f[3] == "1" || f[3] == "2") {
      CHECK(f[4].rfind("10.0.0.", 0) == 0);
      CHECK(f[5].rfind("10.0.0.", 0) == 0);
    }
    if (!f[8].empty()) {
      ++udp;
      CHECK(f[6].rfind("10.0.0.", 0) == 0);
      CHECK(f[7].rfind("10.0.0.", 0) == 0);
      CHECK(f[8] == "5001");
      CHECK(f[9] == "2024");  // UDP length: 8 + 2016
    }
  }
  CHECK(malformed == 0);
  // Every packet is captured on each link it crosses: a unicast two times within a leaf (host to
  // switch, switch to host), a broadcast ARP request on every link of the group's tree. Each of the
  // 14 hosts (4 + 4 in the UDP classes, 3 + 3 in the TCP classes) asks for one address at least.
  CHECK(arp_requests >= 14);
  // Not every ask needs a reply of its own: a host the destination asked first already knows it;
  // every reply answers a request.
  CHECK(arp_replies >= 8 * 2);
  CHECK(arp_replies <= arp_requests);
  CHECK(udp > 100);
  CHECK(frames > udp + arp_requests + arp_replies);  // the SM's SMPs and the SA's MADs too
}

TEST_CASE("ipoib_udp without its section, or with the SM on one of its hosts, is refused with the place",
          "[scenarios][ipoib]") {
  const std::string dir = scratch_dir("ipoib_bad");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/ipoib_qdr.yaml";
  const std::string path = dir + "/scenario.yaml";
  std::ofstream(path) << "topology: " << topo
                      << "\nworkload:\n  - {pattern: uniform, hosts: [h2, h3], transport: ipoib_udp}\n";
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:1:1") != std::string::npos);
  CHECK(r.output.find("an `ipoib:` section") != std::string::npos);
  std::ofstream(path) << "topology: " << topo
                      << "\nipoib: {subnet: 10.0.0.0/24}\nworkload:\n"
                         "  - {pattern: uniform, hosts: [h1, h2], transport: ipoib_udp}\n";
  r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("an SM host that is no host of IPoIB traffic class") != std::string::npos);
  CHECK(r.output.find("'h1'") != std::string::npos);
  std::ofstream(path) << "topology: " << topo << "\nipoib: {subnet: 10.0.0.0/30}\nworkload:\n"
                         "  - {pattern: uniform, hosts: [h2, h3], transport: ipoib_udp}\n";
  r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("scenario.yaml:2:17") != std::string::npos);
  CHECK(r.output.find("room for the topology's 4 HCAs") != std::string::npos);
}

TEST_CASE("UDP over IPoIB with the SM on the switch: the joins reach that switch's own MFT", "[scenarios][ipoib]") {
  // The SA's MFT Sets for the broadcast group are SMPs from sw1's management port to sw1 itself,
  // served by sw1's SMA: the group forwards, both interfaces resolve each other and every
  // datagram arrives. As with the SM on an HCA, the first ARP request leaves before the second
  // join is in the MFT and is the run's one drop.
  auto r = run_scenario_text("ipoib_sm_on_switch",
                             "../tests/scenarios/data/ipoib_qdr.yaml\n"
                             "subnet_manager: {host: sw1}\n"
                             "ipoib: {subnet: 10.0.0.0/24}\n"
                             "workload:\n"
                             "  - {name: udp, pattern: permutation, hosts: [h1, h2], transport: ipoib_udp,"
                             " message_size: 2016, load: 0.5, arrival: constant}\n"
                             "phases: {warmup: 50us, measure: 200us, drain: 50us}\n");
  const auto& c = ipoib_class(r);
  CHECK(c["ipoib"]["all_joined"] == true);
  CHECK(c["ipoib"]["arp_requests_sent"] == 2);
  CHECK(c["ipoib"]["arp_replies_received"] == 1);
  CHECK(c["ipoib"]["udp_datagrams_sent"].get<std::uint64_t>() > 0);
  CHECK(c["ipoib"]["udp_datagrams_received"] == c["ipoib"]["udp_datagrams_sent"]);
  CHECK(r["packets"]["dropped_total"] == 1);
  CHECK(r["packets"]["dropped"]["unknown_dlid"] == 1);
}
