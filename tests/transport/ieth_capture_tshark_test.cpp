// The IETH on the wire as Wireshark sees it: SEND First + SEND Last with Invalidate and SEND Only
// with Invalidate, built by the transport's codecs, written to a capture as a run writes one
// (ERF records of type InfiniBand), decoded by tshark (stock Debian 12 Wireshark): the opcodes, the
// IETH's R_Key, the payload lengths, and no malformed packet.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"
#include "sim/transport/opcode.h"
#include "sim/transport/transport_packet.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

Packet send_packet(std::uint8_t opcode, std::uint32_t psn, std::uint32_t ieth, std::uint32_t len) {
  TransportHeaders h;
  h.lrh.dlid = 2;
  h.lrh.slid = 1;
  h.bth.opcode = opcode;
  h.bth.p_key = 0xFFFF;
  h.bth.dest_qp = 0x101;
  h.bth.psn = psn;
  h.bth.ack_req = opcode != op::kSendFirst;
  h.ieth = {ieth};
  std::vector<std::uint8_t> payload(len);
  for (std::uint32_t i = 0; i < len; ++i) payload[i] = static_cast<std::uint8_t>(i * 5 + 3);
  Packet p;
  build_transport_packet(p, h, len, payload.data());
  return p;
}

}  // namespace

TEST_CASE("tshark decodes SEND Last and SEND Only with Invalidate and their IETH, with no malformed packet",
          "[transport][capture]") {
  REQUIRE(std::filesystem::exists("/usr/bin/tshark"));
  const std::string dir = scratch_dir("ieth_capture");
  const std::string pcap = dir + "/trace.pcap";
  {
    PcapWriter w(pcap);
    // A 300-byte SEND with Invalidate at PMTU 256 (First: 256 bytes; Last with Invalidate: 44),
    // then a 5-byte one (Only with Invalidate).
    const Packet packets[] = {send_packet(op::kSendFirst, 10, 0, 256),
                              send_packet(op::kSendLastInvalidate, 11, 0x00012AB6, 44),
                              send_packet(op::kSendOnlyInvalidate, 12, 0xFEDCBA98, 5)};
    Time t = 1 * kUs;
    for (const Packet& p : packets) {
      std::vector<std::uint8_t> frame;
      p.write_frame(frame);
      w.add(t, kErfTypeInfiniband, frame.data(), frame.size(), 1);
      t += 1 * kUs;
    }
    w.close();
  }
  const std::string cmd =
      "/usr/bin/tshark -n -r '" + pcap + "' -T fields -E separator=';'"
      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma --disable-heuristic sdp_infiniband"
      " --disable-heuristic lnet_ib --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
      " --disable-heuristic eth_over_ib"
      " -e frame.len -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.ieth -e infiniband.bth.padcnt"
      " -e _ws.malformed -e _ws.expert";
  CommandResult ts = run_command("(" + cmd + " 2>/dev/null)");  // a root warning goes to stderr
  INFO(ts.output);
  REQUIRE(ts.exit_code == 0);
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split(ts.output, '\n'))
    if (!line.empty()) rows.push_back(split(line, ';'));
  REQUIRE(rows.size() == 3);
  // LRH 8 + BTH 12 + payload 256 + ICRC 4 + VCRC 2.
  CHECK(rows[0][0] == "282");
  CHECK(rows[0][1] == "0");  // SEND First
  CHECK(rows[0][3].empty());
  // LRH 8 + BTH 12 + IETH 4 + 44 + ICRC 4 + VCRC 2.
  CHECK(rows[1][0] == "74");
  CHECK(rows[1][1] == "22");  // RC SEND Last with Invalidate
  CHECK(rows[1][2] == "11");
  // tshark 4.0 prints the IETH field's four bytes in hex, twice (the header and its RKey item).
  CHECK(rows[1][3] == "00012ab6,00012ab6");
  CHECK(rows[1][4] == "0");
  // LRH 8 + BTH 12 + IETH 4 + 5 + 3 pad + ICRC 4 + VCRC 2.
  CHECK(rows[2][0] == "38");
  CHECK(rows[2][1] == "23");  // RC SEND Only with Invalidate
  CHECK(rows[2][3] == "fedcba98,fedcba98");
  CHECK(rows[2][4] == "3");
  for (const auto& r : rows) {
    REQUIRE(r.size() == 7);
    CHECK(r[5].empty());  // not malformed
    CHECK(r[6].empty());  // no expert warning either
  }
}
