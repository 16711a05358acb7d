// A run with captures on: tshark (stock Debian 12 Wireshark) decodes every frame, the decoded
// headers of every first-hop frame match what the simulator says each source sent (packets.csv),
// and the ICRC and VCRC of every captured frame are recomputed from the captured bytes.
#include <catch2/catch.hpp>

#include <pcap/pcap.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "tests/support/csv_rows.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

std::uint64_t num(const std::string& s) { return std::stoull(s, nullptr, 0); }

}  // namespace

TEST_CASE("tshark decodes every captured packet as sent, and every frame's ICRC and VCRC recompute",
          "[scenarios][capture]") {
  const std::string out = scratch_dir("capture");
  CommandResult run = run_ibfsim("run " + data_path("capture.yaml") + " -o " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  // What the sources say they sent, keyed by (SLID, PSN): unique per source QP in this run.
  auto sent_rows = csv_rows(read_file(out + "/packets.csv"));
  REQUIRE(sent_rows.size() > 20);
  REQUIRE(sent_rows[0][0] == "packet_id");
  REQUIRE(sent_rows[0][1] == "inject_time_ns");  // ns, as every other table
  // No table of the results folder counts time in another unit than ns.
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    if (entry.path().extension() != ".csv") continue;
    const std::string header = read_file(entry.path().string()).substr(0, read_file(entry.path().string()).find('\n'));
    INFO(entry.path().filename().string() << ": " << header);
    CHECK(header.find("_fs") == std::string::npos);
    CHECK(header.find("_ps") == std::string::npos);
    CHECK(header.find("_us") == std::string::npos);
  }
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::string>> sent;
  for (std::size_t i = 1; i < sent_rows.size(); ++i) sent[{num(sent_rows[i][3]), num(sent_rows[i][8])}] = sent_rows[i];
  REQUIRE(sent.size() == sent_rows.size() - 1);

  auto links = csv_rows(read_file(out + "/trace_links.csv"));
  REQUIRE(links[0] == std::vector<std::string>{"frame", "time_ns", "link_id", "link"});

  const std::string tshark =
      "/usr/bin/tshark -r " + out + "/trace.pcap -T fields -E separator=';'"
      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma --disable-heuristic sdp_infiniband"
      " -e frame.number -e frame.len -e infiniband.lrh.dlid -e infiniband.lrh.slid -e infiniband.bth.opcode"
      " -e infiniband.bth.destqp -e infiniband.deth.srcqp -e infiniband.bth.psn -e infiniband.deth.q_key"
      " -e _ws.malformed";
  CommandResult ts = run_command("(" + tshark + " 2>/dev/null)");  // root warning on stderr
  INFO(ts.output.substr(0, 2000));
  REQUIRE(ts.exit_code == 0);
  auto frames = csv_rows(ts.output, ';');
  REQUIRE(frames.size() == links.size() - 1);

  // Every port's transmitted data packets appear once in the capture.
  std::uint64_t tx_total = 0;
  auto ports = csv_rows(read_file(out + "/ports.csv"));
  REQUIRE(ports[0][5] == "tx_packets");
  // The whole run's busy fraction has its own name; busy_fraction is the measurement window's
  // (port_utilization.csv, results.json "window").
  CHECK(std::find(ports[0].begin(), ports[0].end(), "run_busy_fraction") != ports[0].end());
  CHECK(std::find(ports[0].begin(), ports[0].end(), "busy_fraction") == ports[0].end());
  for (std::size_t i = 1; i < ports.size(); ++i) tx_total += num(ports[i][5]);
  CHECK(frames.size() == tx_total);

  std::size_t first_hops = 0, smps = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    REQUIRE(f.size() == 10);
    INFO("frame " << f[0] << " on " << links[i + 1][3]);
    CHECK(num(f[0]) == i + 1);
    CHECK(f[9].empty());  // not malformed
    if (num(f[5]) == 0) {  // an SMP of the subnet manager's bring-up (QP0), in no packet log
      ++smps;
      continue;
    }
    const auto key = std::make_pair(num(f[3]), num(f[7]));
    REQUIRE(sent.count(key) == 1);
    const auto& s = sent.at(key);
    // Every hop carries the same header fields the source wrote.
    CHECK(num(f[1]) == num(s[11]));  // frame length = wire bytes
    CHECK(num(f[2]) == num(s[4]));   // DLID
    CHECK(num(f[4]) == num(s[5]));   // opcode (UD SEND Only = 100)
    CHECK(num(f[5]) == num(s[6]));   // DestQP
    CHECK(num(f[6]) == num(s[7]));   // SrcQP
    CHECK(num(f[8]) == num(s[9]));   // Q_Key
    // The first hop leaves the source's port: its capture time is the injection time.
    const std::string& link = links[i + 1][3];
    if (link.rfind(s[2] + "/1->", 0) == 0) {
      ++first_hops;
      CHECK(links[i + 1][1] == s[1]);  // inject_time_ns, exact to the fs, in the same notation
    }
  }
  CHECK(first_hops == sent.size());
  CHECK(smps > 0);

  // Recompute ICRC and VCRC from the captured bytes (after the 16-byte ERF header).
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline((out + "/trace.pcap").c_str(), err);
  REQUIRE(pc != nullptr);
  CHECK(pcap_datalink(pc) == DLT_ERF);
  pcap_pkthdr* h;
  const u_char* data;
  std::size_t checked = 0;
  while (pcap_next_ex(pc, &h, &data) == 1) {
    REQUIRE(h->caplen > 16 + 30);
    const std::uint8_t* frame = data + 16;
    const std::size_t len = h->caplen - 16;
    const std::uint16_t vcrc = vcrc16({ByteRun{frame, len - 2}});
    CHECK(frame[len - 2] == (vcrc & 0xFF));
    CHECK(frame[len - 1] == (vcrc >> 8));
    const std::uint32_t icrc = compute_icrc(frame, 28, {ByteRun{frame + 28, len - 28 - 6}});
    for (int b = 0; b < 4; ++b) CHECK(frame[len - 6 + b] == ((icrc >> (8 * b)) & 0xFF));
    ++checked;
  }
  pcap_close(pc);
  CHECK(checked == frames.size());
}
