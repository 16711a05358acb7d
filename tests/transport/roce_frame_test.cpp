// RoCE v2 frames: the bytes a NIC sent (a ConnectX-4 Lx's CNP, captured with its ICRC), a frame
// computed by scapy's RoCE layer (an independent implementation of the ICRC), the ICRC's masks
// against a bit-serial reference, round trips through the parser, and every parse error.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/big_endian.h"
#include "sim/core/crc32.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/ethernet/internet_checksum.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_cnp.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/roce/roce_icrc.h"
#include "sim/transport/roce/roce_udp_port.h"

using namespace ibfsim;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Bit-serial CRC-32: an independent reference.
std::uint32_t ref_crc32(const Bytes& bytes) {
  std::uint32_t reg = 0xFFFFFFFF;
  for (std::uint8_t b : bytes) {
    reg ^= b;
    for (int i = 0; i < 8; ++i) reg = (reg >> 1) ^ ((reg & 1u) ? 0xEDB88320u : 0u);
  }
  return ~reg;
}

Bytes slice(const Bytes& b, std::size_t from, std::size_t to) { return Bytes(b.begin() + from, b.begin() + to); }

// After changing bytes of a frame, its FCS again, so that only the ICRC can object.
void refresh_fcs(Bytes& f) { store_crc32(f.data() + f.size() - 4, ethernet_fcs({ByteRun{f.data(), f.size() - 4}})); }

// A RoCE CNP a ConnectX-4 Lx sent (10.0.17.1 -> 10.0.18.1, DSCP 48, ECT(0), UDP source port 0,
// DestQP 0x118), as captured without its FCS: 74 bytes ending in the NIC's ICRC 82 fd 00 2a.
const Bytes kNicCnp = {
    0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45, 0xc2,
    0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00,
    0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
    0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a};

RoceAddressing nic_cnp_addressing() {
  RoceAddressing a;
  a.dst_mac = {0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2};
  a.src_mac = {0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32};
  a.src_ip = IpAddress::v4(10, 0, 17, 1);
  a.dst_ip = IpAddress::v4(10, 0, 18, 1);
  a.dscp = 48;
  a.ecn = ecn::kEct0;
  a.ttl = 64;
  a.ip_identification = 0x718c;
  a.udp_src_port = 0;
  return a;
}

RoceAddressing v6_addressing() {
  RoceAddressing a;
  a.dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  a.src_mac = {0x02, 0, 0, 0, 0, 0x01};
  a.vlan = VlanTag{3, false, 100};
  a.src_ip = *parse_ip_address("fd00::1");
  a.dst_ip = *parse_ip_address("fd00::2");
  a.dscp = 26;
  a.ecn = ecn::kEct0;
  a.ttl = 64;
  a.flow_label = roce_flow_label(0x11, 0x12);
  a.udp_src_port = roce_udp_source_port(0x11, 0x12);
  return a;
}

TransportHeaders rc_write_first() {
  TransportHeaders h;
  h.bth.opcode = kOpcodeRcBase + op::kRdmaWriteFirst;
  h.bth.dest_qp = 0x12;
  h.bth.psn = 0x123456;
  h.bth.ack_req = true;
  h.reth.va = 0x0000'7f00'1234'5000;
  h.reth.r_key = 0xCAFE;
  h.reth.dma_len = 65536;
  return h;
}

}  // namespace

TEST_CASE("RoCE CNP: byte for byte the CNP a ConnectX-4 Lx sent, ICRC included", "[transport][roce]") {
  const Bytes f = build_roce_cnp(nic_cnp_addressing(), 0x118);
  // 78 bytes: the NIC's 74 and the FCS its capture left out.
  REQUIRE(f.size() == 78);
  CHECK(slice(f, 0, 74) == kNicCnp);
  CHECK(ethernet_fcs_ok(f.data(), f.size()));
  const ParsedRoceFrame p = parse_roce_frame(f.data(), f.size());
  INFO(roce_frame_error_name(p.error));
  REQUIRE(p.ok());
  CHECK(p.cnp);
  CHECK(p.h.bth.opcode == kOpcodeRoceCnp);
  CHECK(p.h.bth.becn);
  CHECK_FALSE(p.h.bth.fecn);
  CHECK(p.h.bth.dest_qp == 0x118);
  CHECK(p.h.bth.p_key == 0xFFFF);
  CHECK(p.h.bth.psn == 0);
  CHECK(p.payload_len == 0);
  CHECK(p.layout.icrc_at == 70);
  // The ICRC over the NIC's own bytes.
  CHECK(compute_roce_icrc(kNicCnp.data() + 14, 20 + 8 + 12 + 16, {}) == load_crc32(kNicCnp.data() + 70));
}

TEST_CASE("RoCE v2 UC SEND: IPv4 checksum, UDP checksum and ICRC as scapy's RoCE layer computes them",
          "[transport][roce]") {
  // scapy's RoCE unit test: Ether / IP(tos=1, id=1144, DF, ttl=64, 192.168.0.7 -> 192.168.0.7) /
  // UDP(49152 -> 4791) / BTH(UC SEND Only, MigReq, PadCnt 2, DestQP 211, PSN 13571856) / 18 bytes
  // and 2 of pad; scapy gives IP checksum 0xb4d5, UDP checksum 0xaca2, ICRC 78 f3 53 f3.
  RoceAddressing a;
  a.dst_mac = a.src_mac = {0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22};
  a.src_ip = a.dst_ip = IpAddress::v4(192, 168, 0, 7);
  a.ecn = ecn::kEct1;  // ToS 0x01
  a.ip_identification = 1144;
  a.udp_src_port = 49152;
  a.udp_checksum_ipv4 = true;
  TransportHeaders h;
  h.bth.opcode = kOpcodeUcBase + op::kSendOnly;
  h.bth.m = true;
  h.bth.dest_qp = 211;
  h.bth.psn = 13571856;
  const Bytes payload = {'F', '0', 0x81, 0x8b, 0xe2, 0x89, '5', 0xd9, 0x0e,
                         0x9a, 0x95, 'P', 'T', 0x01, 0xbe, 0x88, '^', 'P'};
  const Bytes f = build_roce_frame(a, h, static_cast<std::uint32_t>(payload.size()), payload.data());
  // 14 + 20 + 8 + 12 + 18 + 2 + 4 = 78 bytes, then the FCS.
  REQUIRE(f.size() == 82);
  CHECK(load_be16(f.data() + 16) == 64);      // IP Total Length
  CHECK(load_be16(f.data() + 24) == 0xb4d5);  // IP checksum
  CHECK(load_be16(f.data() + 38) == 44);      // UDP Length
  CHECK(load_be16(f.data() + 40) == 0xaca2);  // UDP checksum
  CHECK(f[43] == 0x60);                       // BTH byte 1: MigReq, PadCnt 2
  CHECK(slice(f, 74, 78) == Bytes{0x78, 0xf3, 0x53, 0xf3});
  const ParsedRoceFrame p = parse_roce_frame(f.data(), f.size());
  INFO(roce_frame_error_name(p.error));
  REQUIRE(p.ok());
  CHECK(p.payload_len == 18);
  CHECK(p.h.bth.pad_cnt == 2);
  CHECK(slice(f, p.layout.payload_at, p.layout.payload_at + 18) == payload);
}

TEST_CASE("RoCE v2 ICRC over IPv6: 8 bytes of 1s, then the masked IP, UDP and BTH", "[transport][roce]") {
  const Bytes f = build_roce_frame(v6_addressing(), rc_write_first(), 40, nullptr);
  // 18 (tagged) + 40 + 8 + 12 + 16 (RETH) + 40 + 4 + 4 = 142 bytes.
  REQUIRE(f.size() == 142);
  const std::size_t ip = 18;
  Bytes masked(8 + 134 - ip, 0xFF);  // 8 bytes of 1s, then IP .. pad
  std::copy(f.begin() + ip, f.begin() + 134, masked.begin() + 8);
  std::uint8_t* m = masked.data() + 8;
  m[0] |= 0x0F;                      // traffic class (high nibble) ..
  m[1] = m[2] = m[3] = 0xFF;         // .. and flow label
  m[7] = 0xFF;                       // hop limit
  m[40 + 6] = m[40 + 7] = 0xFF;      // UDP checksum
  m[48 + 4] = 0xFF;                  // BTH FECN, BECN, reserved
  CHECK(load_crc32(f.data() + 134) == ref_crc32(masked));
  // The UDP checksum over IPv6 is never 0, and it is right.
  CHECK(load_be16(f.data() + ip + 46) != 0);
  CHECK(load_be16(f.data() + ip + 46) ==
        udp_checksum(v6_addressing().src_ip, v6_addressing().dst_ip, f.data() + ip + 40,
                     {ByteRun{f.data() + ip + 48, 138 - ip - 48}}));
  CHECK(f[ip + 6] == kIpProtocolUdp);
  CHECK(load_be16(f.data() + ip + 4) == 8 + 12 + 16 + 40 + 4);  // Payload Length
}

TEST_CASE("RoCE v2 ICRC ignores exactly what routers and switches may change", "[transport][roce]") {
  for (bool v6 : {false, true}) {
    INFO((v6 ? "IPv6" : "IPv4"));
    RoceAddressing a = v6 ? v6_addressing() : nic_cnp_addressing();
    a.vlan = std::nullopt;
    const Bytes f = build_roce_frame(a, rc_write_first(), 100, nullptr);
    const std::size_t ip = 14, udp = ip + (v6 ? 40 : 20), bth = udp + 8;
    const auto icrc_of = [&](const Bytes& g) {
      return compute_roce_icrc(g.data() + ip, bth + 12 + 16 - ip, {ByteRun{g.data() + bth + 28, 100}});
    };
    const std::uint32_t icrc = icrc_of(f);
    REQUIRE(icrc == load_crc32(f.data() + bth + 28 + 100));
    // Variant: DSCP/ECN, TTL/hop limit, IPv4 checksum, flow label, UDP checksum, BTH byte 4.
    std::vector<std::size_t> variant = {udp + 6, udp + 7, bth + 4};
    if (v6) variant.insert(variant.end(), {ip + 0, ip + 1, ip + 2, ip + 3, ip + 7});
    else variant.insert(variant.end(), {ip + 1, ip + 8, ip + 10, ip + 11});
    for (std::size_t i : variant) {
      Bytes g = f;
      g[i] ^= (v6 && i == ip) ? 0x0F : 0xFF;  // IPv6 byte 0: only the traffic class nibble
      CHECK(icrc_of(g) == icrc);
    }
    // Invariant: addresses, lengths, ports, opcode, DestQP, PSN, RETH, payload.
    for (std::size_t i : {ip + (v6 ? 8u : 12u), ip + (v6 ? 39u : 19u), udp + 0, udp + 3, udp + 5, bth + 0,
                          bth + 7, bth + 11, bth + 12, bth + 27, bth + 28, bth + 127}) {
      Bytes g = f;
      g[i] ^= 0x01;
      INFO("byte " << i);
      CHECK(icrc_of(g) != icrc);
      refresh_fcs(g);
      CHECK_FALSE(parse_roce_frame(g.data(), g.size()).ok());
    }
    // A switch marking CE (and fixing the IPv4 checksum) leaves a good frame.
    Bytes g = f;
    if (v6) set_ipv6_ecn(g.data() + ip, ecn::kCe);
    else set_ipv4_ecn(g.data() + ip, ecn::kCe);
    refresh_fcs(g);
    const ParsedRoceFrame p = parse_roce_frame(g.data(), g.size());
    INFO(roce_frame_error_name(p.error));
    CHECK(p.ok());
    CHECK((v6 ? traffic_class_ecn(p.ipv6.tclass) : p.ipv4.ecn) == ecn::kCe);
  }
}

TEST_CASE("RoCE v2 frames round-trip through the parser: headers as the transport's codecs wrote them",
          "[transport][roce]") {
  SECTION("RC WRITE First over IPv6 with a tag") {
    const Bytes f = build_roce_frame(v6_addressing(), rc_write_first(), 1024, nullptr);
    const ParsedRoceFrame p = parse_roce_frame(f.data(), f.size());
    REQUIRE(p.ok());
    CHECK(p.ip_version == IpVersion::kV6);
    REQUIRE(p.eth.vlan);
    CHECK(p.eth.vlan->pcp == 3);
    CHECK(p.eth.ether_type == kEtherTypeIpv6);
    CHECK(p.ipv6.flow_label == roce_flow_label(0x11, 0x12));
    CHECK(traffic_class_dscp(p.ipv6.tclass) == 26);
    CHECK(p.udp.src_port == roce_udp_source_port(0x11, 0x12));
    CHECK(p.udp.dst_port == kRoceV2UdpPort);
    CHECK(p.ext == kExtReth);
    CHECK(p.h.bth.psn == 0x123456);
    CHECK(p.h.bth.ack_req);
    CHECK(p.h.reth.va == 0x0000'7f00'1234'5000);
    CHECK(p.h.reth.r_key == 0xCAFE);
    CHECK(p.h.reth.dma_len == 65536);
    CHECK(p.payload_len == 1024);
    CHECK(p.layout.bth_at == 18 + 40 + 8);
    CHECK(p.layout.payload_at == p.layout.bth_at + 28);
    CHECK(f.size() == 18 + 40 + 8 + 28 + 1024 + 4 + 4);
  }
  SECTION("UD SEND Only with Immediate: DETH and ImmDt") {
    TransportHeaders h;
    h.bth.opcode = kOpcodeUdSendOnlyImm;
    h.bth.dest_qp = 0x21;
    h.bth.psn = 7;
    h.deth = {0x11111111, 0x22};
    h.imm = 0xDEADBEEF;
    const Bytes payload = {1, 2, 3, 4, 5};
    const Bytes f = build_roce_frame(nic_cnp_addressing(), h, 5, payload.data());
    const ParsedRoceFrame p = parse_roce_frame(f.data(), f.size());
    REQUIRE(p.ok());
    CHECK(p.ext == (kExtDeth | kExtImmdt));
    CHECK(p.h.deth.q_key == 0x11111111);
    CHECK(p.h.deth.src_qp == 0x22);
    CHECK(p.h.imm == 0xDEADBEEF);
    CHECK(p.payload_len == 5);
    CHECK(p.h.bth.pad_cnt == 3);
    CHECK(slice(f, p.layout.payload_at, p.layout.payload_at + 5) == payload);
  }
  SECTION("an RC ACK is 62 bytes of content: padded to the 64-byte minimum after its ICRC") {
    TransportHeaders h;
    h.bth.opcode = kOpcodeRcBase + op::kAcknowledge;
    h.bth.dest_qp = 0x11;
    h.bth.psn = 0x123456;
    h.aeth.msn = 9;
    RoceAddressing a = nic_cnp_addressing();
    const Bytes small = build_roce_frame(a, h, 0, nullptr);  // 14 + 20 + 8 + 12 + 4 + 4 = 62 + FCS
    CHECK(small.size() == 66);
    h.bth.opcode = kOpcodeRcBase + op::kSendOnly;  // no AETH: 58 bytes, 2 of Ethernet pad
    const Bytes padded = build_roce_frame(a, h, 0, nullptr);
    REQUIRE(padded.size() == 64);
    CHECK(load_be16(padded.data() + 16) == 20 + 8 + 12 + 4);  // the pad is not the datagram's
    CHECK(padded[58] == 0);
    CHECK(padded[59] == 0);
    const ParsedRoceFrame p = parse_roce_frame(padded.data(), padded.size());
    REQUIRE(p.ok());
    CHECK(p.layout.icrc_at == 54);
    CHECK(p.layout.fcs_at == 60);
  }
}

TEST_CASE("RoCE v2 parse errors, in the receiver's order", "[transport][roce]") {
  const Bytes good = build_roce_frame(nic_cnp_addressing(), rc_write_first(), 64, nullptr);
  REQUIRE(parse_roce_frame(good.data(), good.size()).ok());
  const auto error_of = [](Bytes f, bool fix_fcs = true) {
    if (fix_fcs) refresh_fcs(f);
    return parse_roce_frame(f.data(), f.size()).error;
  };
  CHECK(parse_roce_frame(good.data(), 63).error == RoceFrameError::kTooShort);
  Bytes b = good;
  b[20] ^= 1;
  CHECK(error_of(b, false) == RoceFrameError::kBadFcs);
  b = good;
  store_be16(b.data() + 12, 0x0806);  // ARP
  CHECK(error_of(b) == RoceFrameError::kNotIp);
  b = good;
  b[14] = 0x46;  // IHL 6: options
  CHECK(error_of(b) == RoceFrameError::kBadIpHeader);
  b = good;
  b[22] = 63;  // TTL without the checksum
  CHECK(error_of(b) == RoceFrameError::kBadIpChecksum);
  b = good;
  set_ipv4_ttl(b.data() + 14, 63);  // with it: still good
  CHECK(error_of(b) == RoceFrameError::kNone);
  b = good;
  b[23] = 6;  // TCP
  store_be16(b.data() + 24, 0);
  store_be16(b.data() + 24, internet_checksum(b.data() + 14, 20));
  CHECK(error_of(b) == RoceFrameError::kNotUdp);
  b = good;
  store_be16(b.data() + 36, 4792);
  CHECK(error_of(b) == RoceFrameError::kNotRoceV2);
  b = good;
  store_be16(b.data() + 38, static_cast<std::uint16_t>(load_be16(b.data() + 38) - 4));
  CHECK(error_of(b) == RoceFrameError::kBadLength);
  b = good;
  b.insert(b.end() - 4, {0, 0, 0, 0});  // bytes after the datagram of a frame over 64 bytes
  CHECK(error_of(b) == RoceFrameError::kBadLength);
  b = good;
  b[42] = 0x42;  // an RD opcode
  CHECK(error_of(b) == RoceFrameError::kUnsupportedOpcode);
  b = good;
  b[43] |= 0x30;  // PadCnt 3: still within the payload, so only the ICRC notices
  CHECK(error_of(b) == RoceFrameError::kBadIcrc);
  b = good;
  b[good.size() - 9] ^= 0x80;  // the ICRC itself
  CHECK(error_of(b) == RoceFrameError::kBadIcrc);
  CHECK(std::string(roce_frame_error_name(RoceFrameError::kBadIcrc)) == "bad_icrc");
}

TEST_CASE("RoCE v2 UDP source port: a symmetric 20-bit label of the QPNs folded to 14 bits",
          "[transport][roce]") {
  // 0x11 x 0x12 = 0x132: nothing above bit 19 to fold; port 0xC000 | 0x132.
  CHECK(roce_flow_label(0x11, 0x12) == 0x132);
  CHECK(roce_udp_source_port(0x11, 0x12) == 0xC132);
  // 0xABCDEF x 0x123456 = 0xC379A59BA4A; v ^= v >> 20 gives low 20 bits 0x9BA4A ^ 0x379A5 =
  // 0xAC3EF and bits 40-43 0xC ^ 0 = 0xC; v ^= v >> 40: 0xAC3EF ^ 0xC = 0xAC3E3. Port: low 14
  // bits 0x03E3 ^ high 6 bits 0x2B = 0x03C8.
  CHECK(roce_flow_label(0xABCDEF, 0x123456) == 0xAC3E3);
  CHECK(roce_flow_label(0x123456, 0xABCDEF) == 0xAC3E3);
  CHECK(roce_udp_source_port(0xAC3E3) == 0xC3C8);
  // Every port is in the dynamic range, and different QP pairs spread.
  std::vector<bool> seen(0x4000);
  std::size_t distinct = 0;
  for (Qpn q = 0x100; q < 0x200; ++q) {
    const std::uint16_t p = roce_udp_source_port(q, 0x12345);
    CHECK(p >= 0xC000);
    if (!seen[p - 0xC000]) seen[p - 0xC000] = true, ++distinct;
  }
  CHECK(distinct > 200);
}
