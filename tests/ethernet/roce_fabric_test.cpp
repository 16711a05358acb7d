// RoCE v2 frames moving in time through Ethernet switches: h1 - sw1 - sw2 - h2, every link the
// same rate, figures computed by hand from the frame's bytes, the byte clock, the preamble, SFD and
// inter-frame gap, RS-FEC's blocks and decoder, propagation and the switches' latency.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <memory>
#include <vector>

#include "sim/core/time.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/ethernet/ecmp.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/roce_endpoint.h"
#include "tests/support/roce_fabric.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const MacAddress kH1Mac{0x02, 0, 0, 0, 0, 0x01};
const MacAddress kH2Mac{0x02, 0, 0, 0, 0, 0x02};
MacAddress switch_mac(unsigned sw, unsigned port) {
  return {0x02, 0, 0, 0, static_cast<std::uint8_t>(sw), static_cast<std::uint8_t>(port)};
}
const IpAddress kH1Ip = IpAddress::v4(10, 0, 0, 1);
const IpAddress kH2Ip = IpAddress::v4(10, 0, 0, 2);

EthernetSwitchConfig switch_config(unsigned sw, const MacAddress& left, const MacAddress& right, bool cut_through,
                                   Time latency) {
  EthernetSwitchConfig c;
  c.num_ports = 2;
  c.port_macs = {switch_mac(sw, 1), switch_mac(sw, 2)};
  c.neighbour_macs = {left, right};
  c.routes.add(IpPrefix{kH1Ip, 32}, {1});
  c.routes.add(IpPrefix{kH2Ip, 32}, {2});
  c.ecmp_seed = sw;
  c.cut_through = cut_through;
  c.latency = latency;
  return c;
}

struct Line {
  Line(const EthernetRate& rate, std::uint64_t prop_edges, Time decoder, bool cut_through, Time latency)
      : h1("h1", pool, ledger), h2("h2", pool, ledger),
        sw1("sw1", switch_config(1, kH1Mac, switch_mac(2, 1), cut_through, latency), pool, ledger),
        sw2("sw2", switch_config(2, switch_mac(1, 2), kH2Mac, cut_through, latency), pool, ledger),
        l1(h1.port(), h1, sw1.port(1), sw1, rate, prop_edges, decoder, 1, 2),
        l2(sw1.port(2), sw1, sw2.port(1), sw2, rate, prop_edges, decoder, 3, 4),
        l3(sw2.port(2), sw2, h2.port(), h2, rate, prop_edges, decoder, 5, 6) {}
  PacketPool pool;
  PacketLedger ledger;
  RoceEndpoint h1, h2;
  EthernetSwitch sw1, sw2;
  EthernetLink l1, l2, l3;
};

RoceAddressing h1_to_h2() {
  RoceAddressing a;
  a.src_mac = kH1Mac;
  a.dst_mac = switch_mac(1, 1);  // the first hop's router
  a.src_ip = kH1Ip;
  a.dst_ip = kH2Ip;
  a.udp_src_port = roce_udp_source_port(0x11, 0x12);
  return a;
}

// A RoCE v2 RC SEND Only of 64 bytes, IPv4, untagged: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
// payload 64 + ICRC 4 + FCS 4 = 126 bytes; an L3 switch decides on 14 + 20 + 4 (UDP ports) = 38.
std::vector<std::uint8_t> send_only_64() {
  TransportHeaders h;
  h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  h.bth.dest_qp = 0x12;
  h.bth.psn = 7;
  return build_roce_frame(h1_to_h2(), h, 64, nullptr);
}

Time one_send_latency(const EthernetRate& rate, std::uint64_t prop_edges, Time decoder, bool cut_through,
                      Time latency) {
  init_time_resolution();
  Line t(rate, prop_edges, decoder, cut_through, latency);
  const auto frame = send_only_64();
  REQUIRE(frame.size() == 126);
  REQUIRE(l3_decision_bytes(frame.data(), frame.size()) == 38);
  t.h1.send_at(0, {frame});
  CalendarProcess::run_for(10 * kUs);
  REQUIRE(t.h2.received().size() == 1);
  const auto& r = t.h2.received()[0];
  // Routed twice: the last hop's MACs, TTL 64 - 2, a new IPv4 checksum and FCS; the ICRC (which
  // masks TTL and checksum) still good: parse_roce_frame checks all of them.
  CHECK(r.parsed.ok());
  CHECK(r.parsed.eth.dst == kH2Mac);
  CHECK(r.parsed.eth.src == switch_mac(2, 2));
  CHECK(r.parsed.ipv4.ttl == 62);
  CHECK(r.parsed.h.bth.psn == 7);
  CHECK(r.parsed.payload_len == 64);
  CHECK(t.h1.sent_at() == std::vector<Time>{0});
  CHECK(t.ledger.delivered_count() == 1);
  CHECK(t.ledger.dropped_total() == 0);
  CHECK(t.pool.live() == 0);
  return r.tail;
}

}  // namespace

// 100GbE with RS(528,514): an 80 ps byte clock; the receiver waits for the end of the 640-byte
// FEC block (counted from edge 0) holding the bytes it needs, then the decoder's 100 ns = 1,250
// edges. Propagation 10 ns = 125 edges each link; each switch cut-through, 300 ns = 3,750 edges.
//   h1 starts the preamble on edge 0.            head (38 bytes) in at 8 + 38 = 46, tail at 8 + 126 = 134
//   sw1 has the head: ceil(46 / 640) x 640 + 1,250 + 125 = 2,015 (the tail too: same block)
//   sw1 eligible 2,015 + 3,750 = 5,765; starts on edge 5,765 (idle)
//   sw2 has the head: ceil(5,811 / 640) x 640 + 1,250 + 125 = 6,400 + 1,375 = 7,775
//   sw2 eligible 7,775 + 3,750 = 11,525; starts on edge 11,525
//   h2 has the tail: ceil(11,659 / 640) x 640 + 1,375 = 12,160 + 1,375 = 13,535 edges
//   = 13,535 x 80,000 fs = 1,082,800,000 fs (1,082.8 ns).
// With FEC, a frame this short lies in one block at each hop: cutting through gains nothing.
TEST_CASE("one RoCE v2 SEND crosses two cut-through switches at 100GbE RS-FEC in 1082.8 ns", "[ethernet][roce]") {
  const EthernetRate rate{EthernetSpeed::k100G, true};
  CHECK(one_send_latency(rate, 125, 100 * kNs, true, 300 * kNs) == 1'082'800'000);
}

// 100GbE without FEC (100GBASE-LR4), the same cable and switch latency. Cut-through:
//   sw1 head at 46 + 125 = 171, eligible 171 + 3,750 = 3,921; sw2 head 3,921 + 171 = 4,092,
//   eligible 7,842; h2's tail 7,842 + 134 + 125 = 8,101 edges = 648,080,000 fs.
// Store-and-forward: sw1 tail at 134 + 125 = 259, eligible 4,009; sw2 tail 4,009 + 259 = 4,268,
//   eligible 8,018; h2's tail 8,018 + 259 = 8,277 edges = 662,160,000 fs: 2 x (126 - 38) = 176
//   edges (14.08 ns) more, the rest of the frame waited for at each switch.
TEST_CASE("one RoCE v2 SEND through two cut-through switches at 100GbE without FEC in 648.08 ns", "[ethernet][roce]") {
  CHECK(one_send_latency(EthernetRate{EthernetSpeed::k100G, false}, 125, 100 * kNs, true, 300 * kNs) == 648'080'000);
}

TEST_CASE("one RoCE v2 SEND through two store-and-forward switches at 100GbE without FEC in 662.16 ns",
          "[ethernet][roce]") {
  CHECK(one_send_latency(EthernetRate{EthernetSpeed::k100G, false}, 125, 100 * kNs, false, 300 * kNs) == 662'160'000);
}

namespace {
// The frames of `messages` RC RDMA WRITEs of 64 KiB each at a 4,096-byte MTU, PSNs consecutive:
// WRITE First (BTH + RETH: 14 + 20 + 8 + 28 + 4,096 + 4 + 4 = 4,174 bytes), 14 Middle and a Last
// (BTH only: 4,158 bytes each).
std::vector<std::vector<std::uint8_t>> write_frames(unsigned messages) {
  std::vector<std::vector<std::uint8_t>> frames;
  Psn psn = 0;
  for (unsigned m = 0; m < messages; ++m) {
    for (unsigned i = 0; i < 16; ++i) {
      TransportHeaders h;
      h.bth.opcode = static_cast<std::uint8_t>(
          kOpcodeRcBase + (i == 0 ? op::kRdmaWriteFirst : i == 15 ? op::kRdmaWriteLast : op::kRdmaWriteMiddle));
      h.bth.dest_qp = 0x12;
      h.bth.psn = psn++;
      if (i == 0) h.reth = {0x10000000, 0x1234, 65536};
      frames.push_back(build_roce_frame(h1_to_h2(), h, 4096, nullptr));
    }
  }
  return frames;
}
}  // namespace

// The wire bound of 64 KiB written at 100GbE: a message is 4,174 + 15 x 4,158 = 66,544 frame bytes,
// plus 16 x (8 preamble/SFD + 12 gap) = 320: 66,864 edges of 80 ps = 5,349.12 ns for 65,536 bytes of
// payload: 98.0139 Gb/s. Eight messages back to back through both switches (cut-through, FEC on,
// which delivers in 640-byte blocks and so shifts single arrivals by up to a block): the rate
// between the last frames of the first and of the last message is within 0.2 % of the bound.
// Without FEC nothing is quantised and it is the bound exactly: 7 x 66,864 edges.
namespace {
void check_write_bandwidth(bool fec) {
  init_time_resolution();
  Line t(EthernetRate{EthernetSpeed::k100G, fec}, 125, 100 * kNs, true, 300 * kNs);
  const auto frames = write_frames(8);
  REQUIRE(frames[0].size() == 4174);
  REQUIRE(frames[1].size() == 4158);
  t.h1.send_at(0, frames);
  CalendarProcess::run_for(100 * kUs);
  const auto& rx = t.h2.received();
  REQUIRE(rx.size() == 128);
  for (std::size_t i = 0; i < rx.size(); ++i) {
    REQUIRE(rx[i].parsed.ok());
    CHECK(rx[i].parsed.h.bth.psn == i);  // in order
  }
  const Time span = rx[127].tail - rx[15].tail;
  const double gbps = 7.0 * 65536 * 8 / (static_cast<double>(span) / kNs);
  const double bound = 65536.0 * 8 / (66864 * 0.08);
  CHECK(bound == Approx(98.0139).epsilon(1e-5));
  CHECK(gbps == Approx(bound).epsilon(0.002));
  if (!fec) CHECK(span == 7 * 66864 * Time{80'000});
  CHECK(t.sw1.stats().forwarded == 128);
  CHECK(t.sw2.stats().forwarded == 128);
  CHECK(t.sw1.stats().dropped_total() == 0);
  CHECK(t.pool.live() == 0);
}
}  // namespace

TEST_CASE("RC WRITEs of 64 KiB over 100GbE RS-FEC through two switches within 0.2 % of the wire bound",
          "[ethernet][roce]") {
  check_write_bandwidth(true);
}

TEST_CASE("RC WRITEs of 64 KiB over 100GbE without FEC through two switches at exactly the wire bound",
          "[ethernet][roce]") {
  check_write_bandwidth(false);
}

// Without lossless flow control a full buffer drops: a switch with a buffer of one 4,174-byte frame
// and an output at a quarter of its input's rate (25GbE out of 100GbE) keeps the first frame while
// it leaves and drops what arrives meanwhile, each counted as buffer_full and in the ledger.
TEST_CASE("an Ethernet switch over its buffer drops and counts the reason", "[ethernet][roce]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceEndpoint h1("h1", pool, ledger), h2("h2", pool, ledger);
  EthernetSwitchConfig c = switch_config(1, kH1Mac, kH2Mac, false, 0);
  c.buffer_bytes = 4174;
  EthernetSwitch sw("sw1", c, pool, ledger);
  EthernetLink in(h1.port(), h1, sw.port(1), sw, EthernetRate{EthernetSpeed::k100G, false}, 0, 0, 1, 2);
  EthernetLink out(sw.port(2), sw, h2.port(), h2, EthernetRate{EthernetSpeed::k25G, false}, 0, 0, 3, 4);
  auto frames = write_frames(1);
  frames.resize(4);
  h1.send_at(0, frames);
  CalendarProcess::run_for(10 * kUs);
  // Frame 0 (4,174 bytes) fills the buffer until its last byte has left at 25GbE, 4,194 x 320 ps
  // after its tail came in at 100GbE; frames 1-3 arrive 4,178 x 80 ps apart, all before that.
  REQUIRE(h2.received().size() == 1);
  CHECK(h2.received()[0].parsed.h.bth.psn == 0);
  CHECK(sw.stats().dropped[static_cast<int>(EthernetDrop::kBufferFull)] == 3);
  CHECK(ledger.frames_dropped_count() == 3);
  CHECK(ledger.delivered_count() + ledger.dropped_total() == ledger.created_count());
  CHECK(pool.live() == 0);
}

// A leaf-spine of Ethernet switches: leaves l1 (hosts 10.0.1.1, 10.0.1.2) and l2 (10.0.2.1,
// 10.0.2.2), spines s1 and s2; each leaf reaches the other's /24 over both spines, an equal-cost
// route. Sixteen flows from the two hosts of l1 to the two of l2 (each its QP pair, hence its UDP
// source port) spread over the spines exactly as ecmp_select says for the leaf's seed, and every
// frame of a flow takes its one path and arrives in order.
TEST_CASE("ECMP spreads RoCE flows over a leaf-spine's spines as the hash says, each flow in order",
          "[ethernet][roce]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  const auto host_ip = [](unsigned leaf, unsigned h) { return IpAddress::v4(10, 0, static_cast<std::uint8_t>(leaf), static_cast<std::uint8_t>(h)); };
  const auto host_mac = [](unsigned leaf, unsigned h) { return MacAddress{0x02, 0, 0, 1, static_cast<std::uint8_t>(leaf), static_cast<std::uint8_t>(h)}; };
  const auto sw_mac = [](unsigned sw, unsigned port) { return MacAddress{0x02, 0, 0, 2, static_cast<std::uint8_t>(sw), static_cast<std::uint8_t>(port)}; };
  // Switch numbers: leaves 1, 2; spines 3, 4. Leaf ports 1-2 hosts, 3-4 spines; spine port n: leaf n.
  const auto leaf_config = [&](unsigned leaf) {
    EthernetSwitchConfig c;
    c.num_ports = 4;
    c.port_macs = {sw_mac(leaf, 1), sw_mac(leaf, 2), sw_mac(leaf, 3), sw_mac(leaf, 4)};
    c.neighbour_macs = {host_mac(leaf, 1), host_mac(leaf, 2), sw_mac(3, leaf), sw_mac(4, leaf)};
    c.routes.add(IpPrefix{host_ip(leaf, 1), 32}, {1});
    c.routes.add(IpPrefix{host_ip(leaf, 2), 32}, {2});
    c.routes.add(IpPrefix{host_ip(3 - leaf, 0), 24}, {3, 4});
    c.ecmp_seed = 0x1000 + leaf;
    return c;
  };
  const auto spine_config = [&](unsigned spine) {
    EthernetSwitchConfig c;
    c.num_ports = 2;
    c.port_macs = {sw_mac(spine, 1), sw_mac(spine, 2)};
    c.neighbour_macs = {sw_mac(1, spine), sw_mac(2, spine)};  // leaf port `spine` faces it
    c.routes.add(IpPrefix{host_ip(1, 0), 24}, {1});
    c.routes.add(IpPrefix{host_ip(2, 0), 24}, {2});
    c.ecmp_seed = 0x1000 + spine;
    return c;
  };
  EthernetSwitch l1("l1", leaf_config(1), pool, ledger), l2("l2", leaf_config(2), pool, ledger);
  EthernetSwitch s1("s1", spine_config(3), pool, ledger), s2("s2", spine_config(4), pool, ledger);
  RoceEndpoint a1("a1", pool, ledger), a2("a2", pool, ledger), b1("b1", pool, ledger), b2("b2", pool, ledger);
  const EthernetRate rate{EthernetSpeed::k100G, true};
  std::vector<std::unique_ptr<EthernetLink>> links;
  std::uint32_t id = 1;
  const auto cable = [&](EthernetPort& x, ScheduledModule& xm, EthernetPort& y, ScheduledModule& ym) {
    links.push_back(std::make_unique<EthernetLink>(x, xm, y, ym, rate, 125, 100 * kNs, id, id + 1));
    id += 2;
  };
  cable(a1.port(), a1, l1.port(1), l1);
  cable(a2.port(), a2, l1.port(2), l1);
  cable(b1.port(), b1, l2.port(1), l2);
  cable(b2.port(), b2, l2.port(2), l2);
  cable(l1.port(3), l1, s1.port(1), s1);
  cable(l1.port(4), l1, s2.port(1), s2);
  cable(l2.port(3), l2, s1.port(2), s1);
  cable(l2.port(4), l2, s2.port(2), s2);

  // Flow f: from a(f % 2 + 1) to b((f / 2) % 2 + 1), QPs 0x100 + f and 0x200 + f, 4 frames each.
  std::array<std::uint64_t, 2> expected_per_spine{};
  std::vector<std::vector<std::vector<std::uint8_t>>> from(2);
  for (unsigned f = 0; f < 16; ++f) {
    const unsigned src = f % 2 + 1, dst = (f / 2) % 2 + 1;
    RoceAddressing a;
    a.src_mac = host_mac(1, src);
    a.dst_mac = sw_mac(1, src);
    a.src_ip = host_ip(1, src);
    a.dst_ip = host_ip(2, dst);
    a.udp_src_port = roce_udp_source_port(0x100 + f, 0x200 + f);
    for (unsigned i = 0; i < 4; ++i) {
      TransportHeaders h;
      h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
      h.bth.dest_qp = 0x200 + f;
      h.bth.psn = i;
      from[src - 1].push_back(build_roce_frame(a, h, 256, nullptr));
    }
    const auto& frame = from[src - 1].back();
    const PortNum up = ecmp_select({3, 4}, *five_tuple_of(frame.data(), frame.size()), 0x1000 + 1);
    expected_per_spine[up - 3] += 4;
  }
  a1.send_at(0, from[0]);
  a2.send_at(0, from[1]);
  CalendarProcess::run_for(20 * kUs);
  CHECK(s1.stats().forwarded == expected_per_spine[0]);
  CHECK(s2.stats().forwarded == expected_per_spine[1]);
  CHECK(expected_per_spine[0] > 0);  // the seed spreads these flows over both spines
  CHECK(expected_per_spine[1] > 0);
  CHECK(b1.received().size() + b2.received().size() == 64);
  for (const RoceEndpoint* b : {&b1, &b2}) {
    std::map<Qpn, Psn> next;
    for (const auto& r : b->received()) {
      REQUIRE(r.parsed.ok());
      CHECK(r.parsed.ipv4.ttl == 61);  // leaf, spine, leaf
      CHECK(r.parsed.h.bth.psn == next[r.parsed.h.bth.dest_qp]++);
    }
  }
  CHECK(ledger.delivered_count() == 64);
  CHECK(pool.live() == 0);
}

// A generated leaf-spine (2 leaves of 2 hosts, 2 spines): every host sends one SEND to every other
// host, from time 0; all twelve arrive, with the TTL of their path (64 less the switches crossed:
// 1 on their own leaf, 3 through a spine) and the last hop's MACs.
TEST_CASE("every host of a generated Ethernet leaf-spine reaches every other", "[ethernet][roce]") {
  init_time_resolution();
  RoceFabric f(ethernet_leaf_spine(2, 2, 2, 7), EthernetRate{EthernetSpeed::k100G, true}, 125, 100 * kNs, true,
               300 * kNs);
  const std::vector<std::string> names{"h1_1", "h1_2", "h2_1", "h2_2"};
  for (const auto& from : names) {
    std::vector<std::vector<std::uint8_t>> frames;
    for (const auto& to : names) {
      if (to == from) continue;
      TransportHeaders h;
      h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
      h.bth.dest_qp = 0x12;
      frames.push_back(build_roce_frame(f.addressing(from, to), h, 64, nullptr));
    }
    f.host(from).send_at(0, frames);
  }
  CalendarProcess::run_for(20 * kUs);
  for (const auto& to : names) {
    const RoceEndpoint& h = f.host(to);
    REQUIRE(h.received().size() == 3);
    const EthernetNodePlan& me = f.plan.nodes[f.plan.find(to)];
    for (const auto& r : h.received()) {
      REQUIRE(r.parsed.ok());
      const bool same_leaf = r.parsed.ipv4.src[2] == me.ip.bytes[2];
      CHECK(r.parsed.ipv4.ttl == (same_leaf ? 63 : 61));
      CHECK(r.parsed.eth.dst == me.port_macs[0]);
      CHECK(r.parsed.eth.src == me.gateway_mac);
    }
  }
  CHECK(f.ledger.delivered_count() == 12);
  CHECK(f.pool.live() == 0);
}
