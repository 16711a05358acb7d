// Seeds for the fuzz targets of binary inputs, made with the repository's own encoders (the text
// parsers' seeds are the repository's scenario, topology and dump files: fuzz/CMakeLists.txt).
//
//   make_seeds DIR   writes DIR/transport_packet/, DIR/roce_frame/, DIR/mad_smp/, DIR/flow_control/,
//                    DIR/phy_receiver/
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/link/flow_control_packet.h"
#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"
#include "sim/phy/lane_striping.h"
#include "sim/phy/link_training.h"
#include "sim/phy/scrambler_64b66b.h"
#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/gmp_packet.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "sim/subnet_manager/mad/node_description.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/p_key_table.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"
#include "sim/subnet_manager/mad/sm_info.h"
#include "sim/subnet_manager/mad/smp.h"
#include "sim/subnet_manager/mad/smp_packet.h"
#include "sim/subnet_manager/mad/switch_info.h"
#include "sim/subnet_manager/mad/vl_arbitration_table.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_cnp.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/ud_send_packet.h"

namespace fs = std::filesystem;
using namespace ibfsim;

namespace {

fs::path g_dir;

void write(const std::string& target, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(g_dir / target);
  std::ofstream(g_dir / target / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                              static_cast<std::streamsize>(bytes.size()));
}

// transport_packet's input: header length, header, payload.
std::vector<std::uint8_t> packet_input(const Packet& p) {
  std::vector<std::uint8_t> out{static_cast<std::uint8_t>(p.header_len)};
  out.insert(out.end(), p.header.begin(), p.header.begin() + p.header_len);
  if (p.payload.empty()) out.resize(out.size() + p.payload_len, 0);
  else out.insert(out.end(), p.payload.begin(), p.payload.end());
  return out;
}

void transport_seeds() {
  int n = 0;
  for (unsigned op = 0; op < 256; ++op) {
    const auto layout = opcode_layout(static_cast<std::uint8_t>(op));
    if (!layout) continue;
    for (bool global : {false, true}) {
      TransportHeaders h;
      h.lrh.vl = 0;
      h.lrh.sl = 0;
      h.lrh.dlid = 2;
      h.lrh.slid = 1;
      if (global) h.grh = Grh{};
      h.bth.opcode = static_cast<std::uint8_t>(op);
      h.bth.p_key = 0xFFFF;
      h.bth.dest_qp = 0x12;
      h.bth.psn = 0x100;
      h.reth = Reth{0x1000, 0x77, 64};
      Packet p;
      const std::vector<std::uint8_t> payload(layout->payload ? 64 : 0, 0xA5);
      build_transport_packet(p, h, static_cast<std::uint32_t>(payload.size()), payload.empty() ? nullptr : payload.data());
      write("transport_packet", "opcode_" + std::to_string(op) + (global ? "_grh" : ""), packet_input(p));
      ++n;
    }
  }
  Packet ud;
  UdSendFields f;
  f.dlid = 2, f.slid = 1, f.dest_qp = 0x20, f.q_key = 0x11111111, f.src_qp = 0x21, f.imm = 7;
  const std::vector<std::uint8_t> payload(100, 1);
  build_ud_send(ud, f, 100, payload.data());
  write("transport_packet", "ud_send_imm", packet_input(ud));
  Mad mad = encode_smp(make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 1, {1, 3}));
  Packet smp;
  build_smp_packet(smp, mad, kLidPermissive, kLidPermissive);
  write("transport_packet", "smp", packet_input(smp));
  Packet gmp;
  build_gmp_packet(gmp, encode_cc_mad(make_cc_mad(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0, CcMgmtData{}, 1)), GmpAddress{2, 1, 0, 0, 0xFFFF});
  write("transport_packet", "gmp_cc", packet_input(gmp));
  std::printf("transport_packet: %d seeds\n", n + 3);
}

// RoCE v2 frames of every opcode, over IPv4 untagged and IPv6 tagged, and a CNP.
void roce_seeds() {
  int n = 0;
  for (bool v6 : {false, true}) {
    RoceAddressing a;
    a.dst_mac = {2, 0, 0, 0, 0, 2};
    a.src_mac = {2, 0, 0, 0, 0, 1};
    if (v6) a.vlan = VlanTag{3, false, 100};
    a.src_ip = v6 ? *parse_ip_address("fd00::1") : IpAddress::v4(10, 0, 0, 1);
    a.dst_ip = v6 ? *parse_ip_address("fd00::2") : IpAddress::v4(10, 0, 0, 2);
    a.ecn = ecn::kEct0;
    for (int op = 0; op < 256; ++op) {
      const auto layout = opcode_layout(static_cast<std::uint8_t>(op));
      if (!layout) continue;
      TransportHeaders h;
      h.bth.opcode = static_cast<std::uint8_t>(op);
      h.bth.dest_qp = 0x12;
      h.bth.psn = 0x345;
      const std::vector<std::uint8_t> payload(layout->payload ? 37 : 0, 0x5A);
      write("roce_frame", "opcode_" + std::to_string(op) + (v6 ? "_v6" : "_v4"),
            build_roce_frame(a, h, static_cast<std::uint32_t>(payload.size()), payload.empty() ? nullptr : payload.data()));
      ++n;
    }
    write("roce_frame", std::string("cnp") + (v6 ? "_v6" : "_v4"), build_roce_cnp(a, 0x11));
    ++n;
  }
  std::printf("roce_frame: %d seeds\n", n);
}

void mad_seeds() {
  const std::uint16_t attrs[] = {IB_MAD_ATTR_NODE_DESC,   IB_MAD_ATTR_NODE_INFO,    IB_MAD_ATTR_SWITCH_INFO,
                                 IB_MAD_ATTR_PORT_INFO,   IB_MAD_ATTR_P_KEY_TABLE,  IB_MAD_ATTR_SLVL_TABLE,
                                 IB_MAD_ATTR_VL_ARBITRATION, IB_MAD_ATTR_LIN_FWD_TBL, IB_MAD_ATTR_MCAST_FWD_TBL,
                                 IB_MAD_ATTR_SM_INFO};
  int n = 0;
  for (std::uint16_t a : attrs)
    for (std::uint8_t method : {IB_MAD_METHOD_GET, IB_MAD_METHOD_SET})
      for (bool directed : {true, false}) {
        Smp s = make_dr_request(method, a, a == IB_MAD_ATTR_PORT_INFO ? 3 : 0, 42, {1, 3}, 0x1234);
        s.hop_pointer = 2;
        if (!directed) s.mgmt_class = IB_MCLASS_SUBN_LID;
        if (a == IB_MAD_ATTR_PORT_INFO) {
          PortInfo pi;
          pi.lid = 5;
          pi.port_state = IB_LINK_ARMED;
          pi.m_key = 0x1234;
          s.data = encode_port_info(pi);
        }
        const Mad m = encode_smp(s);
        std::vector<std::uint8_t> in(m.begin(), m.end());
        in.push_back(3);  // arrival port
        write("mad_smp", "smp_" + std::to_string(a) + "_" + std::to_string(method) + (directed ? "_dr" : "_lid"), in);
        ++n;
      }
  for (std::uint16_t a : {IB_MAD_ATTR_CONG_INFO, IB_MAD_ATTR_SW_CONG_SETTING, IB_MAD_ATTR_SW_PORT_CONG_SETTING,
                          IB_MAD_ATTR_CA_CONG_SETTING, IB_MAD_ATTR_CC_TBL})
    for (std::uint8_t method : {IB_MAD_METHOD_GET, IB_MAD_METHOD_SET}) {
      const Mad m = encode_cc_mad(make_cc_mad(method, a, 0, CcMgmtData{}, 9));
      write("mad_smp", "cc_" + std::to_string(a) + "_" + std::to_string(method), std::vector<std::uint8_t>(m.begin(), m.end()));
      ++n;
    }
  std::printf("mad_smp: %d seeds\n", n);
}

void flow_control_seeds() {
  int n = 0;
  for (std::uint8_t op : {kFcOpNormal, kFcOpInit})
    for (std::uint8_t vl : {0, 3, 15}) {
      const auto b = encode_flow_control(FlowControlPacket{op, static_cast<std::uint16_t>(0x123 * (vl + 1)), vl, 0x0ABC});
      write("flow_control", "fc_" + std::to_string(op) + "_" + std::to_string(vl), std::vector<std::uint8_t>(b.begin(), b.end()));
      ++n;
    }
  std::printf("flow_control: %d seeds\n", n);
}

// phy_receiver's input: control byte, then units round-robin over the lanes (see phy_receiver.cpp).
void phy_seeds() {
  const std::vector<std::uint8_t> packet = [] {
    Packet p;
    UdSendFields f;
    f.dlid = 2, f.slid = 1, f.dest_qp = 1, f.q_key = 1, f.src_qp = 1;
    build_ud_send(p, f, 40, nullptr);
    std::vector<std::uint8_t> frame;
    p.write_frame(frame);
    return frame;
  }();
  int n = 0;
  const unsigned widths[] = {1, 2, 4, 8, 12};
  for (unsigned wi = 0; wi < 5; ++wi) {
    const unsigned w = widths[wi];
    {
      LaneStreams<Symbol8b10b> lanes(w);
      for (unsigned i = 0; i < w; ++i) {
        const auto ts = make_training_set_8b10b(TrainingSetKind::kTs2, i);
        lanes[i].insert(lanes[i].end(), ts.begin(), ts.end());
      }
      stripe_packet(lanes, packet.data(), packet.size(), FrameKind::kData, FrameEnd::kGood);
      stripe_idle(lanes, 4);
      stripe_packet(lanes, packet.data(), 6, FrameKind::kLink, FrameEnd::kGood);
      stripe_skip(lanes);
      std::vector<Encoder8b10b> tx(w);
      std::vector<std::uint8_t> in{static_cast<std::uint8_t>(wi << 1)};
      for (std::size_t e = 0; e < lanes[0].size(); ++e)
        for (unsigned i = 0; i < w; ++i) {
          const CodeGroup10 g = tx[i].encode(lanes[i][e]);
          in.push_back(static_cast<std::uint8_t>(g & 0xFF));
          in.push_back(static_cast<std::uint8_t>(g >> 8));
        }
      write("phy_receiver", "8b10b_x" + std::to_string(w), in);
    }
    {
      LaneStreams<Block66> lanes(w);
      for (unsigned i = 0; i < w; ++i) lanes[i].push_back(make_training_block(TrainingSetKind::kTs2, i));
      stripe_packet(lanes, packet.data(), packet.size(), FrameKind::kData, FrameEnd::kGood);
      stripe_idle(lanes, 2);
      stripe_packet(lanes, packet.data(), 6, FrameKind::kLink, FrameEnd::kBad);
      stripe_skip(lanes);
      std::vector<Scrambler64b66b> tx(w);
      std::vector<std::uint8_t> in{static_cast<std::uint8_t>((wi << 1) | 1)};
      for (std::size_t e = 0; e < lanes[0].size(); ++e)
        for (unsigned i = 0; i < w; ++i) {
          in.push_back(lanes[i][e].sync);
          const std::uint64_t s = tx[i].scramble(lanes[i][e].payload);
          for (unsigned b = 0; b < 8; ++b) in.push_back(static_cast<std::uint8_t>(s >> (8 * b)));
        }
      write("phy_receiver", "64b66b_x" + std::to_string(w), in);
    }
    n += 2;
  }
  // Round trips: control 0x40, link config, then (length - 1, bytes) packets.
  for (std::uint8_t config : {0x00, 0x56, 0x3A, 0x48}) {
    std::vector<std::uint8_t> in{0x40, config};
    in.push_back(static_cast<std::uint8_t>(packet.size() - 1));
    in.insert(in.end(), packet.begin(), packet.end());
    in.push_back(5);
    in.insert(in.end(), packet.begin(), packet.begin() + 6);
    write("phy_receiver", "round_trip_" + std::to_string(config), in);
    ++n;
  }
  std::printf("phy_receiver: %d seeds\n", n);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  g_dir = argv[1];
  transport_seeds();
  roce_seeds();
  mad_seeds();
  flow_control_seeds();
  phy_seeds();
  return 0;
}
