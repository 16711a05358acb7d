// Link-level flow control and VL15 (Vol1 ch7): R1, R3, R4, R5, R6, R7.
#include <catch2/catch.hpp>

#include <pcap/pcap.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/flow_control_packet.h"
#include "sim/link/receive_buffer.h"
#include "sim/report/erf_record.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

struct LinkRecord {
  double time_ns;
  std::string link;
  FlowControlPacket fc;
  std::size_t len;
};

// Flow-control packets of a capture (ERF type 25), with the link each crossed.
std::vector<LinkRecord> link_packets(const std::string& dir) {
  std::vector<LinkRecord> out;
  std::map<std::uint64_t, std::string> link_of_frame;
  std::istringstream csv(read_file(dir + "/trace_links.csv"));
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    std::istringstream ls(line);
    std::string frame, t, id, name;
    std::getline(ls, frame, ',');
    std::getline(ls, t, ',');
    std::getline(ls, id, ',');
    std::getline(ls, name, ',');
    link_of_frame[std::stoull(frame)] = name;
  }
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline((dir + "/trace.pcap").c_str(), err);
  if (!pc) throw std::runtime_error(err);
  pcap_pkthdr* h;
  const u_char* data;
  std::uint64_t frame = 0;
  while (pcap_next_ex(pc, &h, &data) == 1) {
    ++frame;
    if (data[8] != kErfTypeInfinibandLink) continue;
    auto fc = decode_flow_control(data + 16);
    REQUIRE(fc.has_value());  // every captured link packet has a good LPCRC and Op 0/1
    out.push_back({h->ts.tv_sec * 1e9 + h->ts.tv_usec, link_of_frame.at(frame), *fc, h->caplen - 16});
  }
  pcap_close(pc);
  return out;
}

}  // namespace

TEST_CASE("R1 (ch7): data never goes out on VL15, an SL mapped to VL15 is dropped before it is sent",
          "[compliance][R1][ch7]") {
  auto r = run_scenario_text("r1",
                             "quickstart.yaml\n"
                             "workload:\n"
                             "  - {name: ok, sources: [h1], destination: h2, sl: 0, load: 0.5}\n"
                             "  - {name: to_vl15, sources: [h3], destination: h4, sl: 1, load: 0.5}\n"
                             "link: {sl_to_vl: [0, 15, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]}\n"
                             "phases: {warmup: 0us, measure: 20us, drain: 10us}\n"
                             // About data on VL15: with the static LIDs no SMP uses VL15 either, so
                             // every VL15 packet counted below would be data (SMPs: sm_bring_up_test).
                             "subnet_manager: static\n");
  CHECK(r["packets"]["dropped"]["sl_to_vl_drop"].get<std::uint64_t>() > 0);
  CHECK(r["flows"][1]["latency"]["count"] == 0);
  CHECK(r["flows"][0]["latency"]["count"].get<std::uint64_t>() > 0);
  for (const auto& p : r["ports"]) CHECK(p["vl15_tx_packets"] == 0);
}

TEST_CASE("R3 (ch7): no flow-control packet ever describes VL15, and flow control covers every data VL",
          "[compliance][R3][ch7]") {
  const std::string dir = scratch_dir("r3");
  const std::string path = dir + "/s.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n"
                      << "workload: {sources: [h1], destination: h2, load: 0.3}\n"
                      << "phases: {warmup: 0us, measure: 10us, drain: 10us}\n"
                      << "outputs: {pcap: true, pcap_link_packets: true}\n";
  REQUIRE(run_ibfsim("run " + path + " -o " + dir + "/out").exit_code == 0);
  auto fcs = link_packets(dir + "/out");
  REQUIRE(fcs.size() > 16 * 8);
  std::map<std::string, std::set<int>> vls_per_link;
  for (const auto& f : fcs) {
    CHECK(f.fc.vl != 15);
    vls_per_link[f.link].insert(f.fc.vl);
  }
  CHECK(vls_per_link.size() == 16);  // 8 cables, both directions
  for (const auto& [link, vls] : vls_per_link) CHECK(vls == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("R4 (ch7): a packet of CR blocks goes only if (FCCL - (FCTBS + CR)) mod 4096 <= 2048",
          "[compliance][R4][ch7]") {
  CreditCounter c;
  CHECK_FALSE(c.can_send(1));
  c.set_limit(33);
  CHECK(c.can_send(33));
  CHECK_FALSE(c.can_send(34));
  c.consume(33);
  CHECK_THROWS_AS(c.consume(1), SimError);  // the simulator refuses to break the rule
  // Around the 12-bit wrap: FCTBS 4090, FCCL 10 (= 4106): 16 blocks may go, 17 may not.
  CreditCounter w;
  for (int i = 0; i < 409; ++i) {
    w.set_limit((w.fctbs() + 10) & 0xFFF);
    w.consume(10);
  }
  w.set_limit(10);
  CHECK(w.can_send(16));
  CHECK_FALSE(w.can_send(17));
}

TEST_CASE("R5 (ch7): FCTBS, ABR and FCCL wrap at 4096, credits are 64-byte blocks, FCCL <= ABR + 2048",
          "[compliance][R5][ch7]") {
  CHECK(credits_for_bytes(64) == 1);
  CHECK(credits_for_bytes(65) == 2);
  ReceiveBuffer b(4000);
  CHECK(b.fccl() == 2048);  // 4000 free, advertised at most 2048 ahead
  for (int i = 0; i < 5; ++i) {
    b.receive(1000);
    b.release(1000);
  }
  CHECK(b.abr() == 5000 % 4096);
  CHECK(b.fccl() == (5000 + 2048) % 4096);
  CHECK(b.resync(904));
  CHECK_FALSE(b.resync(4095));
  CHECK(b.abr() == 4095);
}

TEST_CASE("R6 (ch7): flow-control packets are 6 bytes, Op 1 only at link init, bad LPCRC or Op > 1 discarded",
          "[compliance][R6][ch7]") {
  const std::string dir = scratch_dir("r6");
  const std::string path = dir + "/s.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_switches.yaml\n"
                      << "workload: {load: 0.3}\n"
                      << "phases: {warmup: 0us, measure: 10us, drain: 10us}\n"
                      << "outputs: {pcap: true, pcap_link_packets: true}\n";
  REQUIRE(run_ibfsim("run " + path + " -o " + dir + "/out").exit_code == 0);
  auto fcs = link_packets(dir + "/out");
  std::map<std::string, int> seen;
  for (const auto& f : fcs) {
    CHECK(f.len == 6);
    const int n = seen[f.link]++;
    // The first packet of each operational VL (8) on each link is the init packet; no other is.
    CHECK(f.fc.op == (n < 8 ? 1 : 0));
  }
  // Decoding rejects every single-bit error and a reserved Op.
  const auto good = encode_flow_control({0, 100, 0, 200});
  for (int bit = 0; bit < 48; ++bit) {
    auto bad = good;
    bad[bit / 8] ^= static_cast<std::uint8_t>(0x80 >> (bit % 8));
    CHECK_FALSE(decode_flow_control(bad.data()).has_value());
  }
  CHECK_FALSE(decode_flow_control(encode_flow_control({2, 100, 0, 200}).data()).has_value());
}

TEST_CASE("R7 (ch7): every operational VL gets a flow-control packet at least every 65,536 symbol times, idle or not",
          "[compliance][R7][ch7]") {
  // 1.5 ms, mostly idle: with link packets captured, refreshes are real events and can be timed.
  const std::string body = "workload: {sources: [h1], destination: h2, load: 0.01}\n"
                           "phases: {warmup: 0us, measure: 1500us, drain: 10us}\n";
  const std::string dir = scratch_dir("r7");
  std::ofstream(dir + "/eager.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n"
                                     << body << "outputs: {pcap: true, pcap_link_packets: true}\n";
  std::ofstream(dir + "/lazy.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n" << body;
  REQUIRE(run_ibfsim("run " + dir + "/eager.yaml -o " + dir + "/eager").exit_code == 0);
  REQUIRE(run_ibfsim("run " + dir + "/lazy.yaml -o " + dir + "/lazy").exit_code == 0);
  auto fcs = link_packets(dir + "/eager");
  const double max_gap_ns = 65536 * 2.56;  // EDR edge
  std::map<std::pair<std::string, int>, double> last;
  std::size_t gaps = 0;
  for (const auto& f : fcs) {
    auto key = std::make_pair(f.link, static_cast<int>(f.fc.vl));
    if (last.count(key)) {
      CHECK(f.time_ns - last[key] <= max_gap_ns + 1);
      ++gaps;
    }
    last[key] = f.time_ns;
  }
  CHECK(gaps > 16 * 8 * 8);  // several refresh rounds on every link and VL
  // When nothing captures them, refreshes of idle links are accounted lazily, not simulated; the
  // counts and every other result are the same.
  auto eager = results_and_tables(dir + "/eager");
  auto lazy = results_and_tables(dir + "/lazy");
  for (std::size_t i = 0; i < eager["ports"].size(); ++i) {
    CHECK(eager["ports"][i]["tx_flow_control"] == lazy["ports"][i]["tx_flow_control"]);
    CHECK(eager["ports"][i]["rx_flow_control"] == lazy["ports"][i]["rx_flow_control"]);
  }
  CHECK(eager["latency"] == lazy["latency"]);
  CHECK(eager["simulation"]["actions"].get<std::uint64_t>() > lazy["simulation"]["actions"].get<std::uint64_t>());
}

TEST_CASE("R7 (ch7): over 25 ms of a nearly idle fabric, refreshes and SKIPs accounted in blocks equal those sent "
          "one by one",
          "[compliance][R7][ch7]") {
  // Lazily, a long idle is accounted a block of refresh periods at a time (the SKIP schedule's
  // phase against the refresh period repeats every 9 periods at the default interval); with link
  // packets captured every refresh is an event. Both must count the same packets, SKIPs and busy
  // time on every port: at EDR (a whole number of fs per edge: blocks used), at FDR (not: one by
  // one) and at SDR (8b/10b, 4-edge SKIPs).
  for (const char* speed : {"EDR", "FDR", "SDR"}) {
    INFO(speed);
    const std::string body = std::string("workload: {sources: [h1], destination: h2, load: 0.001}\n"
                                         "phases: {warmup: 0us, measure: 25ms, drain: 10us}\n");
    const std::string dir = scratch_dir(std::string("r7_blocks_") + speed);
    const std::string topo = std::string(" --set topology.defaults.link.speed=") + speed;
    std::ofstream(dir + "/eager.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n"
                                       << body << "outputs: {pcap: true, pcap_link_packets: true}\n";
    std::ofstream(dir + "/lazy.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n" << body;
    REQUIRE(run_ibfsim("run " + dir + "/eager.yaml -o " + dir + "/eager" + topo).exit_code == 0);
    REQUIRE(run_ibfsim("run " + dir + "/lazy.yaml -o " + dir + "/lazy" + topo).exit_code == 0);
    const auto eager = results_and_tables(dir + "/eager");
    const auto lazy = results_and_tables(dir + "/lazy");
    REQUIRE(eager["ports"].size() == 16);
    for (std::size_t i = 0; i < eager["ports"].size(); ++i) {
      const auto& e = eager["ports"][i];
      const auto& l = lazy["ports"][i];
      INFO(e["node"].get<std::string>() << "/" << e["port"]);
      CHECK(e["tx_flow_control"] == l["tx_flow_control"]);
      CHECK(e["rx_flow_control"] == l["rx_flow_control"]);
      CHECK(e["tx_skips"] == l["tx_skips"]);
      CHECK(e["run_busy_fraction"] == l["run_busy_fraction"]);
      // 25 ms is about 150 refresh periods: far more than a block.
      CHECK(e["tx_flow_control"].get<std::uint64_t>() > 140);
    }
    CHECK(eager["latency"] == lazy["latency"]);
  }
}
