// Two subnets joined by a router (topologies/two_subnets.yaml, docs/routers.md): each subnet's SM
// brings its own LIDs up, hosts address the other subnet by GID, the router forwards on the DGID
// and rebuilds the LRH. Checked: the zero-load latency of an RC WRITE ping-pong across the router
// (scenarios/router_write_lat.yaml) by hand to the femtosecond; a UD SEND and RC WRITEs delivered intact (data checked); the bytes on
// both sides of the router as tshark decodes them (LRH rebuilt, HopLmt one less, ICRC the same, the
// VCRC of every frame recomputed); `ibfsim topo` and the topology formats with a router.
#include <catch2/catch.hpp>

#include <pcap/pcap.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const std::string kTopology = std::string(IBFSIM_SOURCE_DIR) + "/topologies/two_subnets.yaml";

// 4x EDR: an edge is 2.56 ns and carries 32 bytes (perftest_test.cpp).
constexpr std::int64_t kEdgeFs = 2'560'000;
constexpr std::int64_t edges_for(std::int64_t bytes) { return (bytes + 2 + 31) / 32; }
std::int64_t twice_fs(double ns) { return std::llround(ns * 2e6); }

std::vector<std::vector<std::string>> rows(const std::string& text, char sep) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    for (std::string cell; std::getline(ls, cell, sep);) cells.push_back(cell);
    if (!line.empty() && line.back() == sep) cells.emplace_back();
    out.push_back(cells);
  }
  return out;
}

// Runs `workload` on two_subnets.yaml into `out`; its results.json.
nlohmann::json run(const std::string& out, const std::string& workload) {
  std::ofstream(out + "/s.yaml") << "topology: " << kTopology << "\nseed: 1\n" << workload;
  const CommandResult r = run_ibfsim("run " + out + "/s.yaml -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(out + "/results.json"));
}

}  // namespace

TEST_CASE("router: an RC WRITE ping-pong across two subnets, t_typical by hand to the femtosecond",
          "[scenarios][router][timing]") {
  // ib_write_lat h1 <-> h3: h1 - sw1 - r1 - sw2 - h3, every cable 4x EDR 2 m (4 edges), switches
  // and the router 100 ns port to port (39.0625 edges). The WRITE carries a GRH:
  //   LRH 8 + GRH 40 + BTH 12 + RETH 16 + 2 + pad 2 + ICRC 4 + VCRC 2 = 86 B -> 3 edges.
  // From h1's first edge c: sw1 has the LRH at c + 4 + 1 (ceil(9/32) = 1 edge in) and the tail at
  //   c + 7; it starts at the first edge >= c + 5 + 39.0625 -> c + 45 (its end c + 48 is past the
  //   tail + 39.0625, so cut-through is not held back);
  //   r1: LRH at c + 50, starts at c + 90 (it routes on the GRH, in one edge after the LRH: long
  //   before its 100 ns are over), its LRH rebuilt for subnet 2;
  //   sw2: LRH at c + 95, starts at c + 135; h3 has the tail at c + 135 + 4 + 3 = c + 142.
  // The turn at each side is perftest_test.cpp's: the 2-byte DMA (138,855 fs), wire_to_completion
  // and doorbell_to_wire (250 ns each): the answer's first edge 196 edges after the data's last.
  // Every one-way trip, and so every half round trip after the first: (196 + 142) edges.
  const std::int64_t packet = edges_for(8 + 40 + 12 + 16 + 2 + 2 + 4 + 2);
  REQUIRE(packet == 3);
  const std::int64_t hop = 4 + 1, latency_edges = 40;  // 39.0625 rounded up to the next edge
  const std::int64_t wire = 3 * (hop + latency_edges) + 4 + packet;
  REQUIRE(wire == 142);
  const std::int64_t steady = (196 + wire) * kEdgeFs;
  REQUIRE(steady == 865'280'000);
  const std::string dir = scratch_dir("router_write_lat");
  const CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/router_write_lat.yaml -o " +
                                       dir + " --set phy.skip_interval_edges=0");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  const auto& f = r["flows"][0];
  CHECK(f["completions"]["IBV_WC_SUCCESS"] == 1000);
  CHECK(f["retransmitted_packets"] == 0);
  const auto& l = f["latency"];
  CHECK(l["count"] == 999);
  CHECK(twice_fs(l["typical_ns"].get<double>()) == 2 * steady);
  CHECK(twice_fs(l["p99_ns"].get<double>()) == 2 * steady);
  // The periodic flow-control refresh (every 65,536 edges, one flow-control packet per VL) of a
  // link the packet is about to start on goes first: over the run's ~680,000 edges a few samples
  // meet one on one of their eight hops, by whole edges.
  const std::int64_t extra_x2 = twice_fs(l["max_ns"].get<double>()) - 2 * steady;
  CHECK(extra_x2 >= 0);
  CHECK(extra_x2 % kEdgeFs == 0);
  CHECK(extra_x2 <= 2 * 8 * kEdgeFs);
}

TEST_CASE("router: a UD SEND and RC WRITEs cross two subnets intact, tshark sees the LRH rebuilt and HopLmt less one",
          "[scenarios][router][capture]") {
  const std::string out = scratch_dir("router_capture");
  const nlohmann::json r =
      run(out,
          "workload:\n"
          "  - {name: ud, transport: ud, verb: send, test: bw, from: h2, to: h4, message_size: 200, iterations: 4}\n"
          "  - {name: write, transport: rc, verb: write, test: bw, from: h1, to: h3, message_size: 300, iterations: 4,"
          " start: 20us}\n"
          "outputs: {data_check: true, pcap: true}\n");
  REQUIRE(r["flows"].size() == 2);
  for (const auto& f : r["flows"]) {
    INFO(f["name"]);
    CHECK(f["messages_completed"] == 4);
    CHECK(f["data_check"]["passed"] == true);
  }
  auto links = rows(read_file(out + "/trace_links.csv"), ',');
  const std::string tshark =
      "/usr/bin/tshark -r " + out + "/trace.pcap -T fields -E separator=';'"
      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma --disable-heuristic sdp_infiniband"
      " -e frame.number -e infiniband.lrh.lnh -e infiniband.lrh.dlid -e infiniband.lrh.slid -e infiniband.grh.hoplmt"
      " -e infiniband.grh.sgid -e infiniband.grh.dgid -e infiniband.bth.opcode -e infiniband.bth.psn -e _ws.malformed";
  const CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  const auto frames = rows(ts.output, ';');
  REQUIRE(frames.size() == links.size() - 1);
  // LIDs (docs/routers.md): subnet 1 h1 1, r1/1 2, sw1 3, h2 4; subnet 2 h3 1, r1/2 2, sw2 3, h4 4.
  // Per (opcode, PSN) of the data packets, what each side of the router saw.
  std::size_t before = 0, after = 0, acks_back = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    REQUIRE(f.size() == 10);
    const std::string& link = links[i + 1][3];
    INFO("frame " << f[0] << " on " << link);
    CHECK(f[9].empty());
    if (f[1] != "0x03") continue;  // only GRH packets (LNH 3) cross the router; SMPs stay
    const int opcode = std::stoi(f[7]);
    if (opcode == 100) {  // UD SEND Only h2 -> h4
      CHECK(f[5] == "fec0::2:c903:100:3");  // h2: subnet 1, port GUID 0x0002c90301000003
      CHECK(f[6] == "fec0::1:2:c903:100:8");  // h4: subnet 2 (fec0:0:0:1::/64), port GUID 0x0002c90301000008
      if (link == "h2/1->sw1/2") {
        ++before;
        CHECK(f[2] == "2");   // DLID: the router's port in subnet 1
        CHECK(f[3] == "4");   // SLID: h2
        CHECK(f[4] == "64");  // HopLmt as sent
      } else if (link == "r1/2->sw2/8") {
        ++after;
        CHECK(f[2] == "4");   // DLID: h4 in subnet 2
        CHECK(f[3] == "2");   // SLID: the router's port in subnet 2
        CHECK(f[4] == "63");  // one router crossed
      }
    }
    if (opcode == 17 && link == "r1/1->sw1/8") {  // the RC ACKs h3 -> h1, back through the router
      ++acks_back;
      CHECK(f[2] == "1");   // h1
      CHECK(f[3] == "2");   // r1/1
      CHECK(f[4] == "63");
    }
  }
  CHECK(before == 4);
  CHECK(after == 4);
  CHECK(acks_back >= 1);

  // The bytes: every frame's VCRC recomputes; a packet's ICRC is the same on both sides of the
  // router (it masks the LRH and HopLmt), and valid.
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline((out + "/trace.pcap").c_str(), err);
  REQUIRE(pc != nullptr);
  pcap_pkthdr* h;
  const u_char* data;
  std::map<std::string, std::vector<std::vector<std::uint8_t>>> ud_frames;  // by link
  std::size_t i = 0;
  while (pcap_next_ex(pc, &h, &data) == 1) {
    const std::uint8_t* frame = data + 16;
    const std::size_t len = h->caplen - 16;
    const std::uint16_t vcrc = vcrc16({ByteRun{frame, len - 2}});
    CHECK(frame[len - 2] == (vcrc & 0xFF));
    CHECK(frame[len - 1] == (vcrc >> 8));
    if (frames[i][1] == "0x03" && frames[i][7] == "100") ud_frames[links[i + 1][3]].emplace_back(frame, frame + len);
    ++i;
  }
  pcap_close(pc);
  REQUIRE(ud_frames["h2/1->sw1/2"].size() == 4);
  REQUIRE(ud_frames["r1/2->sw2/8"].size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& a = ud_frames["h2/1->sw1/2"][k];
    const auto& b = ud_frames["r1/2->sw2/8"][k];
    REQUIRE(a.size() == b.size());
    const std::size_t len = a.size();
    // ICRC: LRH 8 + GRH 40 + BTH 12 + DETH 8 = 68 header bytes.
    CHECK(std::equal(a.end() - 6, a.end() - 2, b.end() - 6));
    const std::uint32_t icrc = compute_icrc(b.data(), 68, {ByteRun{b.data() + 68, len - 68 - 6}});
    for (int byte = 0; byte < 4; ++byte) CHECK(b[len - 6 + byte] == ((icrc >> (8 * byte)) & 0xFF));
    // Beyond the LRH's LIDs, HopLmt and the VCRC (and VL 0 both sides), the bytes are the same.
    for (std::size_t j = 0; j < len - 2; ++j)
      if (j != 2 && j != 3 && j != 6 && j != 7 && j != 8 + 7) CHECK(a[j] == b[j]);
  }
}

TEST_CASE("ibfsim topo knows routers and their subnets, writes them in every format, routes each subnet",
          "[scenarios][router][topo]") {
  const CommandResult t = run_ibfsim("topo " + kTopology);
  INFO(t.output);
  REQUIRE(t.exit_code == 0);
  CHECK(t.output.find("routers: 1, joining 2 subnets: fec0:0:0:0::/64 (4 nodes), fec0:0:0:1::/64 (4 nodes)\n") !=
        std::string::npos);
  const std::string dir = scratch_dir("router_topo");
  REQUIRE(run_ibfsim("topo " + kTopology + " --ibnetdiscover " + dir + "/t.ibnd --yaml " + dir + "/t.yaml --ibsim " + dir +
                     "/t.net --dot " + dir + "/t.dot")
              .exit_code == 0);
  CHECK(read_file(dir + "/t.ibnd").find("rtguid=0x2c90302000400\nRt\t2 \"R-0002c90302000400\"") != std::string::npos);
  CHECK(read_file(dir + "/t.net").find("rtguid=0x2c90302000400\nRt\t2 \"r1\"") != std::string::npos);
  CHECK(read_file(dir + "/t.dot").find("shape=hexagon") != std::string::npos);
  // Each subnet's SM, offline: LIDs as OpenSM assigns them, the router port an end port ("Router").
  const CommandResult routes = run_ibfsim("routes --topology " + kTopology + " --sm-host h3 --guid2lid");
  INFO(routes.output);
  CHECK(routes.exit_code == 0);
  CHECK(routes.output.find("Unicast lids [0-4] of switch Lid 3 guid 0x0002c90300000005 ('sw2'):\n"
                           "0x0001 001 # Channel Adapter portguid 0x0002c90301000007: 'h3'\n"
                           "0x0002 008 # Router portguid 0x0002c90302000402: 'r1'\n") != std::string::npos);
  // Each written form reads back as the same fabric: a router with the same GUID, the same cables.
  for (const char* f : {"t.ibnd", "t.yaml", "t.net"}) {
    const CommandResult back = run_ibfsim("topo " + dir + "/" + f);
    INFO(f << "\n" << back.output);
    CHECK(back.exit_code == 0);
    CHECK(back.output.find("routers: 1, joining 2 subnets") != std::string::npos);
  }
}
