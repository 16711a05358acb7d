// `outputs.pcap` on every RoCE scenario of issue 18: scenarios/roce_perftest_write_bw.yaml
// (shortened) writes trace.pcap (Ethernet frames, destination MAC to FCS, every port's) and
// trace_links.csv, and tshark decodes every frame as Ethernet / IPv4 / UDP / InfiniBand, none
// malformed, FCS and IPv4 checksum good on every hop; roce_incast_victim (PFC frames as MAC
// control), ib_vs_roce on both fabrics (CNPs on RoCE; LRH/BTH with ICRC and VCRC on InfiniBand) and
// pfc_deadlock (until the deadlock stops it) likewise. Besides tshark's verdicts, every frame's
// FCS and RoCE ICRC (or IB ICRC and VCRC) are recomputed here from the captured bytes.
#include <catch2/catch.hpp>

#include <pcap/pcap.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/ethernet/ethernet_fcs.h"
#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "sim/transport/roce/roce_icrc.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
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

// Every frame of an Ethernet capture, checked from its bytes: FCS, and for RoCE v2 (IPv4, UDP 4791)
// the ICRC (the 4 bytes ending the IP datagram). Counted: all, RoCE, PFC (MAC control, EtherType
// 0x8808), and frames whose FCS or ICRC is wrong.
struct EthernetCheck {
  std::uint64_t frames = 0, roce = 0, pfc = 0, bad_fcs = 0, bad_icrc = 0;
};
EthernetCheck check_ethernet_pcap(const std::string& pcap) {
  EthernetCheck c;
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline(pcap.c_str(), err);
  REQUIRE(pc != nullptr);
  CHECK(pcap_datalink(pc) == DLT_EN10MB);
  pcap_pkthdr* h;
  const u_char* f;
  while (pcap_next_ex(pc, &h, &f) == 1) {
    ++c.frames;
    const std::size_t len = h->caplen;
    REQUIRE(len >= 64);
    if (!ethernet_fcs_ok(f, len)) ++c.bad_fcs;
    std::size_t at = 12;
    std::uint16_t type = static_cast<std::uint16_t>(f[at] << 8 | f[at + 1]);
    if (type == 0x8100) {  // 802.1Q tag
      at += 4;
      type = static_cast<std::uint16_t>(f[at] << 8 | f[at + 1]);
    }
    at += 2;
    if (type == 0x8808) ++c.pfc;
    if (type != 0x0800 || f[at + 9] != 17 || (f[at + 22] << 8 | f[at + 23]) != 4791) continue;
    ++c.roce;
    const std::size_t ip_len = static_cast<std::size_t>(f[at + 2] << 8 | f[at + 3]);
    const std::size_t headers = 20 + 8 + 12;  // IPv4, UDP, BTH: the masked ones
    REQUIRE(at + ip_len + 4 <= len);
    const std::uint32_t icrc =
        compute_roce_icrc(f + at, headers, {ByteRun{f + at + headers, ip_len - headers - kIcrcBytes}});
    const std::uint8_t* got = f + at + ip_len - kIcrcBytes;
    bool ok = true;
    for (int b = 0; b < 4; ++b) ok = ok && got[b] == ((icrc >> (8 * b)) & 0xFF);
    if (!ok) ++c.bad_icrc;
  }
  pcap_close(pc);
  return c;
}
// Every packet of an InfiniBand capture (ERF records: a 16-byte ERF header, then LRH .. VCRC), its
// ICRC and VCRC recomputed from the captured bytes (local packets: LRH and BTH are the masked
// headers). Counted: all, and those whose ICRC or VCRC is wrong.
struct InfinibandCheck {
  std::uint64_t packets = 0, bad_icrc = 0, bad_vcrc = 0;
};
InfinibandCheck check_infiniband_pcap(const std::string& pcap) {
  InfinibandCheck c;
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline(pcap.c_str(), err);
  REQUIRE(pc != nullptr);
  CHECK(pcap_datalink(pc) == DLT_ERF);
  pcap_pkthdr* h;
  const u_char* data;
  while (pcap_next_ex(pc, &h, &data) == 1) {
    ++c.packets;
    REQUIRE(h->caplen >= 16 + 26);  // LRH, BTH, ICRC, VCRC at least
    const std::uint8_t* p = data + 16;
    const std::size_t len = h->caplen - 16;
    const std::uint16_t vcrc = vcrc16({ByteRun{p, len - 2}});
    if (p[len - 2] != (vcrc & 0xFF) || p[len - 1] != (vcrc >> 8)) ++c.bad_vcrc;
    REQUIRE((p[1] & 3) == 2);  // LNH: local (IBA), no GRH in these fabrics
    const std::uint32_t icrc = compute_icrc(p, 20, {ByteRun{p + 20, len - 20 - 6}});
    bool ok = true;
    for (int b = 0; b < 4; ++b) ok = ok && p[len - 6 + b] == ((icrc >> (8 * b)) & 0xFF);
    if (!ok) ++c.bad_icrc;
  }
  pcap_close(pc);
  return c;
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
  // Every frame's FCS and ICRC recompute from the captured bytes.
  const EthernetCheck bytes = check_ethernet_pcap(dir + "/trace.pcap");
  CHECK(bytes.frames == sent);
  CHECK(bytes.roce == sent);
  CHECK(bytes.bad_fcs == 0);
  CHECK(bytes.bad_icrc == 0);

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
  std::string all;
  for (const auto& [k, v] : n) all += "{\"" + k + "\", " + std::to_string(v) + "}, ";
  UNSCOPED_INFO("decoded: " << all);
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
  const std::string incast = run_capture("roce_incast_capture", "roce_incast_victim.yaml", "");
  CHECK(decoded(incast) == pfc);
  const EthernetCheck incast_bytes = check_ethernet_pcap(incast);
  CHECK(incast_bytes.frames == 4906);
  CHECK(incast_bytes.pfc == 10);
  CHECK(incast_bytes.roce == 4896);
  CHECK(incast_bytes.bad_fcs == 0);
  CHECK(incast_bytes.bad_icrc == 0);
  // ib_vs_roce's RoCE point with DCQCN, 200 us: 18 CNPs (opcode 0x81 = 129), each on its 4 hops.
  const std::map<std::string, std::uint64_t> cnp{{"eth:ethertype:ip:udp:infiniband:data;1;;6", 324},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;7", 4536},
                                                 {"eth:ethertype:ip:udp:infiniband:data;1;;8", 324},
                                                 {"eth:ethertype:ip:udp:infiniband;1;;17", 324},
                                                 {"eth:ethertype:ip:udp:infiniband;1;;129", 72}};
  const std::string roce = run_capture("ib_vs_roce_capture", "ib_vs_roce.yaml",
                                       "--set fabric=roce --set congestion_control.enabled=true");
  CHECK(decoded(roce) == cnp);
  const EthernetCheck roce_bytes = check_ethernet_pcap(roce);
  CHECK(roce_bytes.frames == 5580);
  CHECK(roce_bytes.roce == 5580);
  CHECK(roce_bytes.bad_fcs == 0);
  CHECK(roce_bytes.bad_icrc == 0);
}

// ib_vs_roce's other half: the same workload on InfiniBand with Annex A10 (200 us). The capture is
// InfiniBand (ERF): tshark decodes every packet as erf/infiniband, none malformed, and every
// packet's ICRC and VCRC recompute.
TEST_CASE("tshark decodes the capture of ib_vs_roce on InfiniBand, none malformed, ICRC and VCRC good",
          "[scenarios][roce][capture]") {
  const std::string pcap = run_capture("ib_vs_roce_ib_capture", "ib_vs_roce.yaml",
                                       "--set fabric=infiniband --set congestion_control.enabled=true");
  const InfinibandCheck bytes = check_infiniband_pcap(pcap);
  CHECK(bytes.packets == 8072);
  CHECK(bytes.bad_icrc == 0);
  CHECK(bytes.bad_vcrc == 0);
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  // RC WRITE First/Middle/Last (6, 7, 8) and ACKs (17) on every hop, management datagrams (UD SEND
  // Only, 100), and Annex A10's congestion notification packets (CNP, 128).
  const std::map<std::string, std::uint64_t> want{{"erf:infiniband:data;;;6", 260},  {"erf:infiniband:data;;;7", 3640},
                                                  {"erf:infiniband:data;;;8", 260},  {"erf:infiniband;;;100", 932},
                                                  {"erf:infiniband;;;128", 2720},    {"erf:infiniband;;;17", 260}};
  CHECK(decoded(pcap) == want);
}

// pfc_deadlock.yaml with captures: the run stops at the deadlock (exit status 4) and trace.pcap
// holds every frame until then: RoCE WRITEs and ACKs, and the PFC frames (MAC control) that built
// the cycle, every FCS and ICRC good, none malformed.
TEST_CASE("tshark decodes the capture of pfc_deadlock until the deadlock: RoCE frames and PFC frames",
          "[scenarios][roce][capture]") {
  const std::string dir = scratch_dir("pfc_deadlock_capture");
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/pfc_deadlock.yaml -o " + dir +
                                     " --set outputs.pcap=true");
  INFO(r.output);
  REQUIRE(r.exit_code == 4);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/results.json"));
  const EthernetCheck bytes = check_ethernet_pcap(dir + "/trace.pcap");
  CHECK(bytes.frames == j["ethernet"]["tx_frames"].get<std::uint64_t>());
  CHECK(bytes.pfc == j["ethernet"]["pause_frames_sent"].get<std::uint64_t>());
  CHECK(bytes.frames == 360);
  CHECK(bytes.pfc == 24);
  CHECK(bytes.roce == bytes.frames - bytes.pfc);
  CHECK(bytes.bad_fcs == 0);
  CHECK(bytes.bad_icrc == 0);
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  // Tagged (PCP 3) WRITE First/Middle/Last, no ACK yet, and 24 PFC frames.
  const std::map<std::string, std::uint64_t> want{{"eth:ethertype:macc;1;;", 24},
                                                  {"eth:ethertype:vlan:ethertype:ip:udp:infiniband:data;1;;6", 30},
                                                  {"eth:ethertype:vlan:ethertype:ip:udp:infiniband:data;1;;7", 300},
                                                  {"eth:ethertype:vlan:ethertype:ip:udp:infiniband:data;1;;8", 6}};
  CHECK(decoded(dir + "/trace.pcap") == want);
}
