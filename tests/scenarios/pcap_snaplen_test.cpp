// outputs.pcap_snaplen: the same capture with every frame cut to its first bytes. tshark reads
// the same frames, with the same lengths on the wire and the same headers, from a smaller file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/csv_rows.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// frame.len, frame.cap_len, LRH DLID and SLID, BTH opcode and PSN of every frame, one line each.
std::string tshark_lines(const std::string& pcap) {
  const CommandResult r = run_command("(/usr/bin/tshark -n -r " + pcap +
                                      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
                                      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma"
                                      " --disable-heuristic sdp_infiniband --disable-heuristic fc_infiniband"
                                      " --disable-heuristic lnet_ib --disable-heuristic smcr_infiniband"
                                      " --disable-heuristic eth_over_ib"
                                      " -T fields -e frame.len -e frame.cap_len -e infiniband.lrh.dlid"
                                      " -e infiniband.lrh.slid -e infiniband.bth.opcode -e infiniband.bth.psn 2>/dev/null)");  // tshark's notes on stderr
  REQUIRE(r.exit_code == 0);
  return r.output;
}

}  // namespace

TEST_CASE("outputs.pcap_snaplen cuts every frame and keeps its length on the wire and its headers",
          "[scenarios][capture]") {
  REQUIRE(std::filesystem::exists("/usr/bin/tshark"));
  const std::string whole = scratch_dir("snaplen_whole"), cut = scratch_dir("snaplen_cut");
  const std::string scenario = data_path("capture.yaml") + " --set outputs.packet_log=false --set outputs.data_check=false";
  REQUIRE(run_ibfsim("run " + scenario + " -o " + whole).exit_code == 0);
  const CommandResult r = run_ibfsim("run " + scenario + " --set outputs.pcap_snaplen=48 -o " + cut);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);

  const auto a = csv_rows(tshark_lines(whole + "/trace.pcap"), '\t');
  const auto b = csv_rows(tshark_lines(cut + "/trace.pcap"), '\t');
  REQUIRE(a.size() > 20);
  REQUIRE(a.size() == b.size());
  std::uint64_t cut_frames = 0, saved = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("frame " << i + 1);
    REQUIRE(a[i].size() == 6);
    REQUIRE(b[i].size() == 6);
    const std::uint64_t len = std::stoull(a[i][0]);
    CHECK(a[i][1] == a[i][0]);  // whole: every byte captured
    CHECK(b[i][0] == a[i][0]);  // cut: the same length on the wire
    CHECK(std::stoull(b[i][1]) == std::min<std::uint64_t>(len, 48));
    for (int f = 2; f < 6; ++f) CHECK(b[i][f] == a[i][f]);  // LRH and BTH lie in the first 48 bytes
    if (len > 48) ++cut_frames, saved += len - 48;
  }
  CHECK(cut_frames > 0);
  // The file is shorter by exactly the bytes not kept; the links CSV is the same.
  CHECK(std::filesystem::file_size(whole + "/trace.pcap") - std::filesystem::file_size(cut + "/trace.pcap") == saved);
  CHECK(read_file(whole + "/trace_links.csv") == read_file(cut + "/trace_links.csv"));
}

TEST_CASE("outputs.pcap_snaplen without a capture, or out of 1..65535, is an input error", "[scenarios][input]") {
  const std::string dir = scratch_dir("snaplen_bad");
  const std::string path = dir + "/bad.yaml";
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  std::ofstream(path) << "topology: " << topo << "\noutputs: {pcap_snaplen: 64}\n";
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":2:") != std::string::npos);
  CHECK(r.output.find("outputs.pcap: true") != std::string::npos);
  for (const char* v : {"0", "65536"}) {
    std::ofstream(path) << "topology: " << topo << "\noutputs: {pcap: true, pcap_snaplen: " << v << "}\n";
    r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + ":2:") != std::string::npos);
    CHECK(r.output.find("65535") != std::string::npos);
  }
}
