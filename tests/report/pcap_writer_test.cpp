#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scratch_dir.h"
#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

// UD SEND Only reference packet (docs/compliance.md, "Reference packets"): DLID 2, SLID 1,
// DestQP 0x12, SrcQP 0x11.
const std::vector<std::uint8_t> kUdSend = {
    0x00, 0x02, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x01,                          // LRH
    0x64, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x01,  // BTH
    0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x11,                          // DETH
    0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x66, 0x61, 0x62, 0x72, 0x69,  // "hello, fabric"
    0x63, 0x00, 0x00, 0x00,                                                  // + pad
    0x7f, 0xac, 0x31, 0x01,                                                  // ICRC
    0x4d, 0x3e,                                                              // VCRC
};

// Flow-control packet Op 0, FCTBS 100, VL 0, FCCL 200, LPCRC 0x9C5F least significant byte first.
const std::vector<std::uint8_t> kFlowControl = {0x00, 0x64, 0x00, 0xc8, 0x5f, 0x9c};

constexpr const char* kTshark = "/usr/bin/tshark";

// Payload heuristics can claim synthetic payloads and mark them malformed (docs/scenario.md, "Outputs").
const char* const kNoHeuristics =
    " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
    " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma"
    " --disable-heuristic lnet_ib --disable-heuristic smcr_infiniband"
    " --disable-heuristic sdp_infiniband --disable-heuristic fc_infiniband"
    " --disable-heuristic eth_over_ib";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// Runs tshark on `pcap` printing `fields` tab-separated, one line per frame. tshark must be
// installed: the capture format is only proven by a real decoder.
std::vector<std::vector<std::string>> tshark_fields(const ScratchDir& dir, const std::string& pcap,
                                                    const std::vector<std::string>& fields) {
  REQUIRE(fs::exists(kTshark));
  const std::string err_file = dir.file("tshark.stderr");
  std::string cmd = std::string(kTshark) + " -n -r '" + pcap + "'" + kNoHeuristics + " -T fields";
  for (const auto& f : fields) cmd += " -e " + f;
  cmd += " 2>'" + err_file + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  INFO("command: " << cmd << "\nstderr: " << slurp(err_file));
  REQUIRE(status == 0);
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : split(out, '\n')) {
    if (!line.empty()) rows.push_back(split(line, '\t'));
  }
  return rows;
}

}  // namespace

TEST_CASE("tshark decodes out-of-order pcap records in time order", "[report]") {
  ScratchDir dir("pcap-roundtrip");
  const std::string path = dir.file("trace.pcap");
  PcapWriter w(path);
  w.add(300 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 7);
  w.add(100 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 5);
  w.flush_until(150 * kNs);  // writes the 100 ns record only
  CHECK(w.frames_written() == 1);
  CHECK(w.pending() == 1);
  w.add(200 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 6);  // >= watermark: allowed
  w.flush_until(250 * kNs);
  CHECK(w.frames_written() == 2);
  w.close();
  CHECK(w.frames_written() == 3);

  const auto rows = tshark_fields(
      dir, path,
      {"frame.time_epoch", "infiniband.lrh.dlid", "infiniband.lrh.slid", "infiniband.bth.opcode",
       "infiniband.bth.destqp", "infiniband.deth.srcqp", "_ws.malformed"});
  REQUIRE(rows.size() == 3);
  const char* times[] = {"0.000000100", "0.000000200", "0.000000300"};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("frame " << i + 1);
    REQUIRE(rows[i].size() == 7);
    CHECK(rows[i][0] == times[i]);
    CHECK(rows[i][1] == "2");
    CHECK(rows[i][2] == "1");
    CHECK(rows[i][3] == "100");  // UD SEND Only
    CHECK(std::strtoul(rows[i][4].c_str(), nullptr, 0) == 0x12);
    CHECK(std::strtoul(rows[i][5].c_str(), nullptr, 0) == 0x11);
    CHECK(rows[i][6].empty());  // not malformed
  }

  // The sidecar maps Wireshark's frame numbers to links.
  CHECK(slurp(dir.file("trace_links.csv")) ==
        "frame,time_ns,link_id,link\n"
        "1,100,5,\n"
        "2,200,6,\n"
        "3,300,7,\n");
}

TEST_CASE("pcap appears under its final name only after close", "[report]") {
  ScratchDir dir("pcap-atomic");
  const std::string path = dir.file("trace.pcap");
  const std::string csv = dir.file("trace_links.csv");
  PcapWriter w(path);
  CHECK(w.path() == path);
  CHECK(w.links_csv_path() == csv);
  w.add(10 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0);
  w.flush_until(20 * kNs);
  CHECK(fs::exists(atomic_temp_path(path)));
  CHECK(fs::exists(atomic_temp_path(csv)));
  CHECK_FALSE(fs::exists(path));
  CHECK_FALSE(fs::exists(csv));
  w.close();
  CHECK(fs::exists(path));
  CHECK(fs::exists(csv));
  CHECK(dir.entries() == std::vector<std::string>{"trace.pcap", "trace_links.csv"});
  // 24-byte pcap header, 16-byte record header, 16-byte ERF header, the frame.
  CHECK(fs::file_size(path) == 24 + 16 + 16 + kUdSend.size());
  w.close();  // idempotent
}

TEST_CASE("a pcap writer destroyed without close leaves no files", "[report]") {
  ScratchDir dir("pcap-abandon");
  {
    PcapWriter w(dir.file("trace.pcap"));
    w.add(10 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0);
    w.flush_until(20 * kNs);
    CHECK(dir.entries().size() == 2);
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("a pcap record earlier than the flush watermark is refused", "[report]") {
  ScratchDir dir("pcap-contract");
  PcapWriter w(dir.file("trace.pcap"));
  w.flush_until(100 * kNs);
  w.flush_until(50 * kNs);  // going back is a no-op, the watermark stays at 100 ns
  CHECK_THROWS_AS(w.add(99 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0),
                  std::logic_error);
  CHECK_NOTHROW(w.add(100 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0));
  std::vector<std::uint8_t> huge(kErfMaxFrameBytes + 1);
  CHECK_THROWS_AS(w.add(200 * kNs, kErfTypeInfiniband, huge.data(), huge.size(), 0),
                  std::invalid_argument);
  w.close();
  CHECK_THROWS_AS(w.add(300 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0),
                  std::logic_error);
}

TEST_CASE("pcap links CSV names links, keeps insertion order on ties, prints exact ns", "[report]") {
  ScratchDir dir("pcap-links");
  const std::string csv = dir.file("links.csv");
  PcapWriter w(dir.file("capture"), csv);
  CHECK(PcapWriter::default_links_csv_path("capture") == "capture_links.csv");
  CHECK(PcapWriter::default_links_csv_path("a/b.pcap") == "a/b_links.csv");
  w.set_link_name(1, "leaf0/p1-spine0/p1");
  w.set_link_name(2, "odd, \"name\"");
  w.add(kSec + 1'500'000, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 2);  // +1.5 ns
  w.add(kSec + 1'500'000, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 1);  // same time
  w.add(kSec + 1'000'001, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 3);  // +1.000001 ns
  w.close();
  CHECK(slurp(csv) ==
        "frame,time_ns,link_id,link\n"
        "1,1000000001.000001,3,\n"
        "2,1000000001.5,2,\"odd, \"\"name\"\"\"\n"
        "3,1000000001.5,1,leaf0/p1-spine0/p1\n");
}

TEST_CASE("tshark: 6-byte flow-control link packets are malformed, 8-byte ones decode", "[report]") {
  // Characterises Wireshark 4.0's InfiniBand Link dissector (ERF type 25): it treats a link packet
  // like an LRH when filling columns and reads 8 bytes, so the real 6-byte packet is malformed and
  // yields no infiniband_link fields; with 2 bytes of padding it decodes, reading LPCRC big-endian.
  ScratchDir dir("pcap-link");
  const std::string path = dir.file("link.pcap");
  PcapWriter w(path);
  std::vector<std::uint8_t> padded = kFlowControl;
  padded.push_back(0);
  padded.push_back(0);
  w.add(100 * kNs, kErfTypeInfinibandLink, kFlowControl.data(), kFlowControl.size(), 0);
  w.add(200 * kNs, kErfTypeInfinibandLink, padded.data(), padded.size(), 0);
  w.close();
  const auto rows = tshark_fields(
      dir, path,
      {"frame.time_epoch", "frame.len", "_ws.malformed", "infiniband_link.op",
       "infiniband_link.fctbs", "infiniband_link.vl", "infiniband_link.fccl",
       "infiniband_link.lpcrc"});
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].size() == 8);
  REQUIRE(rows[1].size() == 8);
  CHECK(rows[0][0] == "0.000000100");
  CHECK(rows[0][1] == "6");
  CHECK_THAT(rows[0][2], Catch::Contains("Malformed Packet: InfiniBand Link"));
  CHECK(rows[0][3].empty());
  CHECK(rows[1][0] == "0.000000200");
  CHECK(rows[1][1] == "8");
  CHECK(rows[1][2].empty());
  CHECK(rows[1][3] == "0");
  CHECK(rows[1][4] == "100");
  CHECK(rows[1][5] == "0");
  CHECK(rows[1][6] == "200");
  CHECK(rows[1][7] == "0x5f9c");
}

TEST_CASE("a pcap writer that cannot create its file names the path", "[report]") {
  ScratchDir dir("pcap-nodir");
  const std::string path = dir.file("missing/trace.pcap");
  try {
    PcapWriter w(path);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains(path));
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("an Ethernet capture is LINKTYPE_ETHERNET, each record the frame's bytes alone", "[report]") {
  ScratchDir dir("pcap-ethernet");
  const std::string path = dir.file("eth.pcap");
  std::vector<std::uint8_t> frame(64);
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<std::uint8_t>(i);
  PcapWriter w(path, PcapLinkType::kEthernet);
  CHECK(w.links_csv_path() == dir.file("eth_links.csv"));
  w.add_ethernet(200 * kNs, frame.data(), frame.size(), 4);
  w.add_ethernet(100 * kNs, frame.data(), 60, 3);
  // Records of the other kind are refused.
  CHECK_THROWS_AS(w.add(300 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 0), std::logic_error);
  w.close();
  CHECK(slurp(dir.file("eth_links.csv")) == "frame,time_ns,link_id,link\n1,100,3,\n2,200,4,\n");
  // 24-byte file header, then per record 16 bytes of header and the frame.
  CHECK(fs::file_size(path) == 24 + 16 + 60 + 16 + 64);
  const std::string bytes = slurp(path);
  CHECK(static_cast<unsigned char>(bytes[20]) == 1);  // network: LINKTYPE_ETHERNET (little-endian)
  CHECK(bytes.substr(24 + 16 + 60 + 16) == std::string(frame.begin(), frame.end()));

  PcapWriter erf(dir.file("ib.pcap"));
  CHECK_THROWS_AS(erf.add_ethernet(0, frame.data(), frame.size(), 0), std::logic_error);
  erf.close();
}

namespace {
std::uint32_t le32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}
std::uint32_t be16(const std::string& b, std::size_t at) {
  return (static_cast<unsigned char>(b[at]) << 8) | static_cast<unsigned char>(b[at + 1]);
}
}  // namespace

TEST_CASE("a snap length keeps each frame's first bytes and its length on the wire", "[report]") {
  ScratchDir dir("pcap-snaplen");
  const std::string path = dir.file("trace.pcap");
  PcapWriter w(path, PcapLinkType::kErf, 40);
  w.add(100 * kNs, kErfTypeInfiniband, kUdSend.data(), kUdSend.size(), 1);         // 50 bytes: cut to 40
  w.add(200 * kNs, kErfTypeInfinibandLink, kFlowControl.data(), kFlowControl.size(), 1);  // 6: whole
  w.close();
  const std::string b = slurp(path);
  CHECK(le32(b, 16) == 40 + 16);  // the file's snap length covers the ERF header
  // Record 1: pcap caplen 56 of len 66; ERF rlen 56, wlen 50; then the first 40 frame bytes.
  CHECK(le32(b, 24 + 8) == 16 + 40);
  CHECK(le32(b, 24 + 12) == 16 + 50);
  CHECK(be16(b, 24 + 16 + 10) == 16 + 40);
  CHECK(be16(b, 24 + 16 + 14) == 50);
  CHECK(b.substr(24 + 16 + 16, 40) == std::string(kUdSend.begin(), kUdSend.begin() + 40));
  // Record 2, shorter than the snap length: whole.
  const std::size_t r2 = 24 + 16 + 56;
  CHECK(le32(b, r2 + 8) == 16 + 6);
  CHECK(le32(b, r2 + 12) == 16 + 6);
  CHECK(b.size() == r2 + 16 + 22);

  // tshark reads the cut frame's headers (LRH, BTH, DETH lie in the first 40 bytes) and takes the
  // frame's lengths from the ERF header: 50 bytes on the wire, 40 captured.
  const auto rows = tshark_fields(dir, path,
                                  {"frame.len", "frame.cap_len", "infiniband.lrh.dlid", "infiniband.deth.srcqp"});
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].size() == 4);
  CHECK(rows[0][0] == "50");
  CHECK(rows[0][1] == "40");
  CHECK(rows[0][2] == "2");
  CHECK(std::strtoul(rows[0][3].c_str(), nullptr, 0) == 0x11);
}

TEST_CASE("an Ethernet capture with a snap length", "[report]") {
  ScratchDir dir("pcap-snaplen-eth");
  const std::string path = dir.file("eth.pcap");
  std::vector<std::uint8_t> frame(100);
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<std::uint8_t>(i);
  PcapWriter w(path, PcapLinkType::kEthernet, 64);
  w.add_ethernet(100 * kNs, frame.data(), frame.size(), 0);
  w.close();
  const std::string b = slurp(path);
  CHECK(le32(b, 16) == 64);
  CHECK(le32(b, 24 + 8) == 64);    // caplen
  CHECK(le32(b, 24 + 12) == 100);  // len
  CHECK(b.size() == 24 + 16 + 64);
  CHECK(b.substr(24 + 16) == std::string(frame.begin(), frame.begin() + 64));
  CHECK_THROWS_AS(PcapWriter(dir.file("x.pcap"), PcapLinkType::kEthernet, 65536), std::invalid_argument);
}
