// `outputs.pcap` with `fabric: roce`: scenarios/roce_perftest_write_bw.yaml (shortened) writes
// trace.pcap (Ethernet frames, destination MAC to FCS, every port's) and trace_links.csv, and
// tshark decodes every frame as Ethernet / IPv4 / UDP / InfiniBand, none malformed, FCS and IPv4
// checksum good on every hop.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
constexpr const char* kTshark = "/usr/bin/tshark";

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  std::string cell;
  while (std::getline(in, cell, sep)) cells.push_back(cell);
  if (!line.empty() && line.back() == sep) cells.emplace_back();
  return cells;
}
}  // namespace

TEST_CASE("fabric: roce captures every frame of every hop, and tshark decodes each as eth/ip/udp/infiniband",
          "[scenarios][roce][capture]") {
  const std::string dir = scratch_dir("roce_capture");
  // Four WRITEs of 64 KiB: 64 WRITE frames and 4 ACKs, each sent by its host and by both switches.
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/roce_perftest_write_bw.yaml -o " +
                                     dir + " --set outputs.pcap=true --set workload.0.iterations=4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/results.json"));
  const std::uint64_t sent = j["ethernet"]["tx_frames"].get<std::uint64_t>();
  CHECK(j["packets"]["created"] == 68);
  CHECK(sent == 3 * 68);

  // The sidecar: one row per frame, in time order, each naming its cable direction.
  std::vector<std::string> rows = split(read_file(dir + "/trace_links.csv"), '\n');
  if (!rows.empty() && rows.back().empty()) rows.pop_back();  // the last line's newline
  REQUIRE(rows.size() == sent + 1);
  CHECK(rows[0] == "frame,time_ns,link_id,link");
  std::map<std::string, std::uint64_t> per_link;
  double last = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> c = split(rows[i], ',');
    REQUIRE(c.size() == 4);
    CHECK(std::stoull(c[0]) == i);
    CHECK(std::stod(c[1]) >= last);
    last = std::stod(c[1]);
    ++per_link[c[3]];
  }
  // h1's WRITEs through sw1 and sw2 to h2, h2's ACKs back.
  const std::map<std::string, std::uint64_t> want{{"h1/1->sw1/1", 64}, {"sw1/2->sw2/1", 64}, {"sw2/2->h2/1", 64},
                                                  {"sw1/1->h1/1", 4},  {"sw2/1->sw1/2", 4},  {"h2/1->sw2/2", 4}};
  CHECK(per_link == want);

  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it): the capture is not decoded");
    return;
  }
  const std::string cmd = std::string(kTshark) + " -n -r " + dir + "/trace.pcap" +
                          " -o eth.fcs:Always -o eth.check_fcs:TRUE -o ip.check_checksum:TRUE"
                          " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
                          " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma"
                          " --disable-heuristic sdp_infiniband --disable-heuristic lnet_ib"
                          " --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
                          " --disable-heuristic eth_over_ib"
                          " -T fields -E separator=';' -e frame.protocols -e eth.fcs.status"
                          " -e ip.checksum.status -e udp.dstport -e infiniband.bth.opcode -e _ws.malformed 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");
  INFO(cmd << "\n" << ts.output.substr(0, 3000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::uint64_t frames = 0;
  std::map<std::string, std::uint64_t> opcodes;
  while (std::getline(in, line)) {
    std::vector<std::string> c = split(line, ';');
    while (c.size() < 6) c.emplace_back();
    INFO("frame " << frames + 1 << ": " << line);
    CHECK(c[0].rfind("eth:ethertype:ip:udp:infiniband", 0) == 0);
    CHECK(c[1] == "1");  // FCS good
    CHECK(c[2] == "1");  // IPv4 checksum good
    CHECK(c[3] == "4791");
    CHECK(c[5].empty());  // not malformed
    ++opcodes[c[4]];
    ++frames;
  }
  CHECK(frames == sent);
  // RC RDMA WRITE First (6), Middle (7), Last (8), Acknowledge (17), on three hops each.
  const std::map<std::string, std::uint64_t> want_opcodes{{"6", 12}, {"7", 168}, {"8", 12}, {"17", 12}};
  CHECK(opcodes == want_opcodes);
}

namespace {

// tshark's protocols, FCS status, malformed flag and BTH opcode of every frame of `pcap`, counted.
std::map<std::string, std::uint64_t> decoded(const std::string& pcap) {
  const std::string cmd = std::string(kTshark) + " -n -r " + pcap +
                          " -o eth.fcs:Always -o eth.check_fcs:TRUE -o ip.check_checksum:TRUE"
                          " -T fields -E separator=';' -e frame.protocols -e eth.fcs.status -e _ws.malformed"
                          " -e infiniband.bth.opcode 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");
  INFO(cmd);
  REQUIRE(ts.exit_code == 0);
  std::map<std::string, std::uint64_t> n;
  std::istringstream in(ts.output);
  for (std::string line; std::getline(in, line);) ++n[line];
  return n;
}

std::string run_capture(const std::string& name, const std::string& scenario, const std::string& extra) {
  const std::string dir = scratch_dir(name);
  std::string set = " --set outputs.pcap=true";
  for (int i = 0; i < 5; ++i) set += " --set workload." + std::to_string(i) + ".duration=200us";
  const CommandResult r =
      run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/" + scenario + " -o " + dir + set + " " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return dir + "/trace.pcap";
}

}  // namespace

TEST_CASE("tshark decodes the captures of roce_incast_victim (PFC frames) and ib_vs_roce on RoCE (CNPs), none malformed",
          "[scenarios][roce][capture]") {
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  // The incast with PFC alone, 200 us: WRITE First/Middle/Last (6, 7, 8) and ACKs (17) on every hop,
  // and 10 PFC frames (MAC control), every FCS good.
  const std::map<std::string, std::uint64_t> pfc{{"eth:ethertype:ip:udp:infiniband:data;1;;6", 288},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;7", 4032},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;8", 288},
                                                 {"eth:ethertype:ip:udp:infiniband;1;;17", 288},
                                                 {"eth:ethertype:macc;1;;", 10}};
  CHECK(decoded(run_capture("roce_incast_capture", "roce_incast_victim.yaml", "")) == pfc);
  // ib_vs_roce's RoCE point with DCQCN, 200 us: 18 CNPs (opcode 0x81 = 129), each on its 4 hops.
  const std::map<std::string, std::uint64_t> cnp{{"eth:ethertype:ip:udp:infiniband:data;1;;6", 324},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;7", 4536},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;8", 324},
                                                 {"eth:ethertype:ip:udp:infiniband;1;;17", 324},
                                                 {"eth:ethertype:ip:udp:infiniband;1;;129", 72}};
  CHECK(decoded(run_capture("ib_vs_roce_capture", "ib_vs_roce.yaml",
                            "--set fabric=roce --set congestion_control.enabled=true")) == cnp);
}
