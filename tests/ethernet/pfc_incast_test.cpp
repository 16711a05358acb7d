// PFC (802.1Qbb) on a RoceHcaFabric: two HCAs WRITE to a third through one switch whose buffer is
// small (an incast, 2:1 on the receiver's port). Without PFC the switch drops frames and RC
// recovers by retransmission; with priority 3 lossless the switch's ingress ports send XOFF and
// XON to the senders, nothing is dropped, no packet is sent twice, the bottleneck never idles
// while the incast lasts, and the first XOFF leaves at the instant computed here from the senders'
// frames and the link's timing. A capture of the same run is decoded by tshark: the pause frames
// are MAC control / PFC frames with good FCS, none malformed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/ethernet/ethernet_wire.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/ethernet/pfc_frame.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/report/pcap_writer.h"
#include "tests/support/run_command.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

constexpr std::uint32_t kMessage = 64 * 4096;  // 64 frames of 4,096 bytes per sender
constexpr std::uint64_t kBuffer = 80 * 1024;
constexpr unsigned kLossless = 3;

struct Sent {
  Time start;  // the first byte after the SFD
  std::uint32_t link;
  std::vector<std::uint8_t> bytes;
};

// Every frame the fabric's transmitters start, optionally into a pcap too.
struct FrameLog final : FrameCaptureSink {
  void capture_frame(Time start, const Packet& p, std::uint32_t link_id) override {
    Sent s{start, link_id, {}};
    p.write_frame(s.bytes);
    if (pcap) pcap->add_ethernet(start, s.bytes.data(), s.bytes.size(), link_id);
    frames.push_back(std::move(s));
  }
  std::vector<const Sent*> on(std::uint32_t link) const {
    std::vector<const Sent*> v;
    for (const Sent& s : frames)
      if (s.link == link) v.push_back(&s);
    return v;
  }
  PcapWriter* pcap = nullptr;
  std::vector<Sent> frames;
};

struct Incast {
  // `tweak` changes the fabric's options after the test's PFC settings; `expect_failure`: the run is
  // expected to stop on a broken invariant (the caller rethrows it).
  explicit Incast(bool pfc, PcapWriter* pcap = nullptr, const std::function<void(RoceHcaFabricOptions&)>& tweak = {},
                  bool expect_failure = false) {
    init_time_resolution();
    RoceHcaFabricOptions o;
    o.switch_buffer_bytes = kBuffer;
    o.configure_hca = [](std::size_t, HcaConfig& c) { c.roce_ports[0].pcp = kLossless; };
    if (pfc) {
      o.pfc.lossless = 1u << kLossless;
      o.pfc.xoff_bytes = 8000;
      o.pfc.xon_bytes = 4200;
    }
    if (tweak) tweak(o);
    fabric = std::make_unique<RoceHcaFabric>(ethernet_line(1, 3, 1), o, pool, ledger);
    log.pcap = pcap;
    fabric->set_capture(&log);
    Hca& dst = fabric->hca("h1_3");
    for (const char* name : {"h1_1", "h1_2"}) {
      Hca& src = fabric->hca(name);
      senders.push_back(make_endpoint(src, IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE));
      receivers.push_back(make_endpoint(dst, IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
      RcParams prm;
      prm.timeout = 5;  // 131 us: a lost tail is retried within the run
      connect(senders.back(), receivers.back(), prm);
    }
    for (std::size_t i = 0; i < senders.size(); ++i)
      REQUIRE(senders[i].hca->post_send(*senders[i].qp, write_wr(senders[i], receivers[i], 0, kMessage, i)) == 0);
    CalendarProcess::run_for(5 * kMs);
    if (expect_failure) return;
    ScheduledModule::rethrow_failure();
    for (Endpoint& e : senders) {
      const auto wc = e.poll_all();
      REQUIRE(wc.size() == 1);
      CHECK(wc[0].status == IBV_WC_SUCCESS);
    }
  }
  EthernetSwitch& sw() { return *fabric->switch_at(0); }
  EthernetPort& host_port(const char* name) { return fabric->hca(name).ethernet_port(); }

  PacketPool pool;
  PacketLedger ledger;
  std::unique_ptr<RoceHcaFabric> fabric;
  FrameLog log;
  std::vector<Endpoint> senders, receivers;
};

// Frames every host sent minus the data frames every host received (the switch's PFC frames
// are its own): what the switch dropped.
std::uint64_t lost(Incast& t) {
  std::uint64_t tx = 0, rx = 0;
  for (const char* h : {"h1_1", "h1_2", "h1_3"}) {
    const EthernetPort& p = t.host_port(h);
    tx += p.stats().tx_frames;
    rx += p.stats().rx_frames - p.pfc().stats().pause_frames_received() - p.pfc().stats().other_control_received;
  }
  return tx - rx;
}

}  // namespace

TEST_CASE("PFC incast: without PFC a small switch buffer drops frames and RC retransmits", "[ethernet][pfc][roce]") {
  Incast t(false);
  const std::uint64_t drops = t.sw().stats().dropped[static_cast<int>(EthernetDrop::kBufferFull)];
  CHECK(drops > 0);
  CHECK(drops == t.sw().stats().dropped_total());
  CHECK(drops == lost(t));
  CHECK(drops == t.ledger.frames_dropped_count());
  const QpStats a = t.senders[0].hca->qp_stats(), b = t.senders[1].hca->qp_stats();
  const QpStats r = t.receivers[0].hca->qp_stats();
  INFO("retransmitted " << a.packets_retransmitted << "+" << b.packets_retransmitted << " sent " << a.packets_sent
                        << "+" << b.packets_sent << " naks " << a.naks_seq_received << "+" << b.naks_seq_received
                        << " timeouts " << a.ack_timeouts << "+" << b.ack_timeouts << " out of seq "
                        << r.out_of_sequence_dropped << " acks sent " << r.acks_sent << " drops " << drops);
  CHECK(a.packets_retransmitted + b.packets_retransmitted > 0);
  CHECK(t.sw().port(1).pfc().stats().pause_frames_sent() == 0);
  CHECK(t.host_port("h1_1").pfc().stats().pause_frames_received() == 0);
  // The buffer was full: its peak is within one frame of it.
  CHECK(t.sw().stats().buffer_peak_bytes > kBuffer - 4300);
}

TEST_CASE("PFC incast: with priority 3 lossless nothing is dropped, the first XOFF leaves when computed, the "
          "bottleneck never idles",
          "[ethernet][pfc][roce]") {
  Incast t(true);
  EthernetSwitch& sw = t.sw();
  CHECK(sw.stats().dropped_total() == 0);
  CHECK(lost(t) == 0);
  CHECK(t.ledger.dropped_total() == 0);
  for (const Endpoint& e : t.senders) CHECK(e.hca->qp_stats().packets_retransmitted == 0);

  // Headroom of each port, from its cable: 125 edges each way (250), RS-FEC's 640-byte block and
  // 100 ns decoder (1,250 edges) each way (3,780), two frames of 4,222 + 20, a PFC frame (84), the
  // preamble and decision bytes (70).
  CHECK(sw.pfc_headroom_bytes(1) == 250 + 3780 + 2 * 4242 + 84 + 70);

  // The first XOFF: port 1 (from h1_1) counts h1_1's frames from their heads; the first WRITE
  // frame (4,178 bytes: RETH and an 802.1Q tag) stays under 8,000 bytes, the second (4,162) crosses
  // it, at its head, before the first can have left (300 ns after its head, plus its own time).
  const EthernetWire& up = *t.host_port("h1_1").wire();
  const std::uint64_t period = up.rate().info().byte_period_fs;
  const auto from_h1 = t.log.on(up.link_id());
  REQUIRE(from_h1.size() >= 2);
  CHECK(from_h1[0]->bytes.size() == 4178);
  CHECK(from_h1[1]->bytes.size() == 4162);
  const std::size_t decision = l3_decision_bytes(from_h1[1]->bytes.data(), from_h1[1]->bytes.size());
  CHECK(decision == 14 + 4 + 20 + 4);
  const auto head_at = [&](const Sent* s) {
    const std::uint64_t c = s->start / period - kEthernetPreambleBytes;  // the preamble's edge
    return up.arrival_edge(c, decision) * period;
  };
  const Time head1 = head_at(from_h1[0]), head2 = head_at(from_h1[1]);
  REQUIRE(head2 < head1 + 300 * kNs + ethernet_wire_time(up.rate(), 4178));
  // The switch's port 1 is idle then (nothing has reached h1_3 to be acknowledged): the PFC frame
  // starts on the first edge at or after that head, its first byte after the SFD 8 edges later.
  const EthernetWire& down = *sw.port(1).wire();
  const auto to_h1 = t.log.on(down.link_id());
  REQUIRE(!to_h1.empty());
  REQUIRE(is_mac_control_frame(to_h1[0]->bytes.data(), to_h1[0]->bytes.size()));
  const std::uint64_t xoff_edge = (head2 + period - 1) / period;
  CHECK(to_h1[0]->start == (xoff_edge + kEthernetPreambleBytes) * period);
  const ParsedPfcFrame first = parse_pfc_frame(to_h1[0]->bytes.data(), to_h1[0]->bytes.size());
  REQUIRE(first.ok());
  CHECK(first.frame.class_enable == 1u << kLossless);
  CHECK(first.frame.quanta[kLossless] == 0xFFFF);
  CHECK(first.frame.src == sw.config().port_macs[0]);

  // Pause frames: every one the switch sent was received and acted on by its sender, each XOFF
  // was ended by an XON (the run ends uncongested, well before a pause of 65,535 quanta needs a
  // refresh), and the log holds exactly those frames.
  for (PortNum n : {PortNum{1}, PortNum{2}}) {
    const PfcPortStats& s = sw.port(n).pfc().stats();
    const PfcPortStats& h = t.host_port(n == 1 ? "h1_1" : "h1_2").pfc().stats();
    INFO("port " << int(n) << ": XOFF " << s.xoff_sent[kLossless] << " XON " << s.xon_sent[kLossless]);
    CHECK(s.xoff_sent[kLossless] >= 1);
    CHECK(s.xon_sent[kLossless] == s.xoff_sent[kLossless]);
    CHECK(h.xoff_received[kLossless] == s.xoff_sent[kLossless]);
    CHECK(h.xon_received[kLossless] == s.xon_sent[kLossless]);
    CHECK(s.pause_frames_sent() == s.xoff_sent[kLossless] + s.xon_sent[kLossless]);
    std::uint64_t logged = 0;
    for (const Sent* f : t.log.on(sw.port(n).wire()->link_id()))
      logged += is_mac_control_frame(f->bytes.data(), f->bytes.size());
    CHECK(logged == s.pause_frames_sent());
    CHECK(t.host_port(n == 1 ? "h1_1" : "h1_2").pfc().time_paused(kLossless, ScheduledModule::now()) > 0);
  }
  CHECK(sw.port(3).pfc().stats().pause_frames_sent() == 0);  // h1_3's ACKs never fill its ingress

  // h1_1 honours them: between the edge an XOFF's FCS reaches it and the edge an XON's does, it
  // starts no frame (one it had decided on just before may start on the XOFF's own edge).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> paused;  // [from, to) in edges
  for (const Sent* f : to_h1) {
    if (!is_mac_control_frame(f->bytes.data(), f->bytes.size())) continue;
    const ParsedPfcFrame pf = parse_pfc_frame(f->bytes.data(), f->bytes.size());
    REQUIRE(pf.ok());
    const std::uint64_t tail = down.arrival_edge(f->start / period - kEthernetPreambleBytes, kPfcFrameBytes);
    if (pf.frame.quanta[kLossless]) paused.push_back({tail, ~std::uint64_t{0}});
    else if (!paused.empty()) paused.back().second = tail;
  }
  REQUIRE(paused.size() == sw.port(1).pfc().stats().xoff_sent[kLossless]);
  std::uint64_t started_while_paused = 0;
  for (const Sent* f : from_h1) {
    const std::uint64_t c = f->start / period - kEthernetPreambleBytes;
    for (const auto& [from, to] : paused) started_while_paused += c > from && c < to;
  }
  CHECK(started_while_paused == 0);

  // The bottleneck (the switch's port 3) is busy without a gap from its first frame to its last:
  // what the two senders get through sums to its line rate, and every byte they sent crossed it.
  const auto out = t.log.on(sw.port(3).wire()->link_id());
  REQUIRE(out.size() == 2 * 64);
  std::uint64_t gaps = 0, bytes = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    bytes += out[i]->bytes.size();
    if (i && out[i]->start != out[i - 1]->start + ethernet_wire_time(up.rate(), out[i - 1]->bytes.size())) ++gaps;
  }
  CHECK(gaps == 0);
  const std::uint64_t sent = t.host_port("h1_1").stats().tx_bytes + t.host_port("h1_2").stats().tx_bytes;
  CHECK(bytes == sent);
}

// XOFF at the first byte (xoff_bytes 1) over 100 m cables (6,250 edges, 500 ns each way): the
// frames the sender had sent before the PFC frame reached it land in the headroom, which holds
// them all. The buffer is larger: each port reserves 1 + 4,222 + 24,918 bytes.
TEST_CASE("PFC incast: with XOFF at the first byte the frames in flight fit the computed headroom",
          "[ethernet][pfc][roce]") {
  const auto at_once = [](RoceHcaFabricOptions& o) {
    o.propagation_edges = 6250;
    o.switch_buffer_bytes = 128 * 1024;
    o.pfc.xoff_bytes = 1;
    o.pfc.xon_bytes = 0;
  };
  {
    Incast t(true, nullptr, at_once);
    EthernetSwitch& sw = t.sw();
    CHECK(sw.stats().dropped_total() == 0);
    CHECK(lost(t) == 0);
    for (PortNum n : {PortNum{1}, PortNum{2}}) {
      INFO("port " << int(n) << " headroom peak " << sw.pfc().headroom_peak(n, kLossless) << " of "
                   << sw.pfc_headroom_bytes(n));
      CHECK(sw.pfc().headroom_peak(n, kLossless) > 0);
      CHECK(sw.pfc().headroom_peak(n, kLossless) <= sw.pfc_headroom_bytes(n));
      CHECK(sw.pfc_headroom_bytes(n) == 2 * 6250 + 3780 + 2 * 4242 + 84 + 70);
    }
  }
}

// A short pause (400 quanta, 2.048 us) is refreshed every half of it while XOFF holds: each XOFF
// that follows another without an XON between leaves 1.024 us after it was asked for, or as soon
// as the frame then on the line is over; the sender never runs out of pause, so nothing is dropped.
TEST_CASE("PFC incast: a short XOFF is refreshed every half pause while the congestion lasts", "[ethernet][pfc][roce]") {
  Incast t(true, nullptr, [](RoceHcaFabricOptions& o) {
    o.pfc.pause_quanta = 400;
    o.pfc.xoff_bytes = 20'000;  // five frames, and XON once they are all gone: XOFF holds some us
    o.pfc.xon_bytes = 0;
    o.switch_buffer_bytes = 128 * 1024;
  });
  EthernetSwitch& sw = t.sw();
  CHECK(sw.stats().dropped_total() == 0);
  CHECK(lost(t) == 0);
  const EthernetWire& down = *sw.port(1).wire();
  const Time half = pause_quanta_time(down.rate(), 400) / 2;
  const Time longest = ethernet_wire_time(down.rate(), 4222);
  std::uint64_t refreshes = 0, xoffs = 0;
  Time last_xoff = 0;
  bool held = false;
  for (const Sent* f : t.log.on(down.link_id())) {
    if (!is_mac_control_frame(f->bytes.data(), f->bytes.size())) continue;
    const ParsedPfcFrame pf = parse_pfc_frame(f->bytes.data(), f->bytes.size());
    REQUIRE(pf.ok());
    if (pf.frame.quanta[kLossless] == 0) {
      held = false;
      continue;
    }
    CHECK(pf.frame.quanta[kLossless] == 400);
    ++xoffs;
    if (held) {
      ++refreshes;
      CHECK(f->start - last_xoff >= half);
      CHECK(f->start - last_xoff <= half + longest);
    }
    last_xoff = f->start;
    held = true;
  }
  const PfcPortStats& s = sw.port(1).pfc().stats();
  INFO("XOFF " << xoffs << ", refreshes " << refreshes << ", XON " << s.xon_sent[kLossless]);
  CHECK(xoffs == s.xoff_sent[kLossless]);
  CHECK(refreshes > 0);
  CHECK(xoffs == s.xon_sent[kLossless] + refreshes);
}

// The same with a headroom smaller than those frames need: the run stops with an error naming it
// (a lossless frame is never dropped).
TEST_CASE("PFC incast: a lossless frame that finds its headroom full stops the run with an error", "[ethernet][pfc][roce]") {
  Incast t(true, nullptr, [](RoceHcaFabricOptions& o) {
    o.propagation_edges = 6250;
    o.switch_buffer_bytes = 128 * 1024;
    o.pfc.xoff_bytes = 1;
    o.pfc.xon_bytes = 0;
    o.pfc.headroom_bytes = 1000;
  }, true);
  CHECK_THROWS_WITH(ScheduledModule::rethrow_failure(),
                    Catch::Contains("sw1: a frame of lossless priority 3 from port") &&
                        Catch::Contains("found its headroom (1000 bytes) full"));
  CHECK(t.sw().stats().dropped_total() == 0);
}

TEST_CASE("tshark decodes the PFC frames of a lossless incast as MAC control, none malformed", "[ethernet][pfc][capture]") {
  constexpr const char* kTshark = "/usr/bin/tshark";
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  const std::string pcap = scratch_dir("pfc_incast_capture") + "/incast.pcap";
  std::uint64_t pause_frames = 0, frames = 0;
  {
    PcapWriter writer(pcap, PcapLinkType::kEthernet);
    Incast t(true, &writer);
    for (PortNum n = 1; n <= 3; ++n) pause_frames += t.sw().port(n).pfc().stats().pause_frames_sent();
    frames = t.log.frames.size();
    writer.close();
  }
  REQUIRE(pause_frames > 0);
  const std::string cmd = std::string(kTshark) + " -n -r " + pcap +
                          " -o eth.fcs:Always -o eth.check_fcs:TRUE -Y macc"
                          " -T fields -E separator=';' -e frame.protocols -e frame.len -e eth.dst -e eth.fcs.status"
                          " -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e _ws.malformed"
                          " -e _ws.expert.severity 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");
  INFO(cmd << "\n" << ts.output.substr(0, 3000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::uint64_t rows = 0, xoff = 0, xon = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ';')) c.push_back(cell);
    while (c.size() < 9) c.emplace_back();
    INFO("row " << rows + 1 << ": " << line);
    CHECK(c[0] == "eth:ethertype:macc");
    CHECK(c[1] == "64");
    CHECK(c[2] == "01:80:c2:00:00:01");
    CHECK(c[3] == "1");  // FCS good
    CHECK(c[4] == "0x0101");
    CHECK(c[5] == "0x0008");
    xoff += c[6] == "65535";
    xon += c[6] == "0";
    CHECK(c[7].empty());  // not malformed
    CHECK(c[8].empty());  // no expert information
    ++rows;
  }
  CHECK(rows == pause_frames);
  CHECK(xoff + xon == rows);
  CHECK(xoff == xon);
  CHECK(frames > rows);
}

// PFC spreads congestion: two switches in a line, an incast on sw2's port to h2_1 from h1_1 (across
// the sw1 - sw2 cable) and h2_2, and a victim flow h1_2 -> h2_3 on the same priority that shares
// only the cable with the incast. sw2's port from sw1 pauses sw1, sw1's queue toward sw2 fills, and
// sw1's ports from h1_1 and from the victim's sender pause them: pause frames counted on each hop's
// port, nothing dropped, and the victim, which alone would cross the cable at line rate, gets less
// than half of it while the incast lasts.
TEST_CASE("PFC spreads an incast's congestion upstream and the victim that shares a cable with it slows down",
          "[ethernet][pfc][roce]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  o.switch_buffer_bytes = 160 * 1024;
  o.configure_hca = [](std::size_t, HcaConfig& c) { c.roce_ports[0].pcp = kLossless; };
  o.pfc.lossless = 1u << kLossless;
  o.pfc.xoff_bytes = 8000;
  o.pfc.xon_bytes = 4200;
  RoceHcaFabric f(ethernet_line(2, 3, 1), o, pool, ledger);
  FrameLog log;
  f.set_capture(&log);
  std::vector<Endpoint> from, to;
  const std::vector<std::pair<const char*, const char*>> flows = {{"h1_1", "h2_1"}, {"h2_2", "h2_1"}, {"h1_2", "h2_3"}};
  for (const auto& fl : flows) {
    from.push_back(make_endpoint(f.hca(fl.first), IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE));
    to.push_back(make_endpoint(f.hca(fl.second), IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
    connect(from.back(), to.back());
  }
  for (std::size_t i = 0; i < from.size(); ++i)
    REQUIRE(from[i].hca->post_send(*from[i].qp, write_wr(from[i], to[i], 0, kMessage, i)) == 0);
  CalendarProcess::run_for(1 * kMs);
  ScheduledModule::rethrow_failure();
  for (Endpoint& e : from) {
    const auto wc = e.poll_all();
    REQUIRE(wc.size() == 1);
    CHECK(wc[0].status == IBV_WC_SUCCESS);
  }
  EthernetSwitch& sw1 = *f.switch_at(f.plan().find("sw1"));
  EthernetSwitch& sw2 = *f.switch_at(f.plan().find("sw2"));
  CHECK(sw1.stats().dropped_total() + sw2.stats().dropped_total() == 0);
  CHECK(ledger.dropped_total() == 0);
  // sw2 port 4 (from sw1) and port 2 (from h2_2) pause their senders; sw1 port 4 (to sw2) honours sw2's, and
  // then sw1 port 1 (h1_1) and port 2 (the victim's h1_2) pause theirs.
  const auto xoff = [](EthernetSwitch& s, PortNum n) { return s.port(n).pfc().stats().xoff_sent[kLossless]; };
  INFO("XOFF sw2/4 " << xoff(sw2, 4) << " sw2/2 " << xoff(sw2, 2) << " sw1/1 " << xoff(sw1, 1) << " sw1/2 "
                     << xoff(sw1, 2) << "; sw1/4 paused "
                     << sw1.port(4).pfc().time_paused(kLossless, ScheduledModule::now()) << " fs");
  CHECK(xoff(sw2, 4) >= 1);
  CHECK(xoff(sw2, 2) >= 1);
  CHECK(sw1.port(4).pfc().stats().xoff_received[kLossless] == xoff(sw2, 4));
  CHECK(sw1.port(4).pfc().time_paused(kLossless, ScheduledModule::now()) > 0);
  CHECK(xoff(sw1, 1) >= 1);
  CHECK(xoff(sw1, 2) >= 1);
  CHECK(f.hca("h1_2").ethernet_port().pfc().time_paused(kLossless, ScheduledModule::now()) > 0);
  // The victim's 64 frames on the cable sw1 -> sw2: alone they would follow each other at line rate;
  // here they span more than twice that.
  const EthernetWire& cable = *sw1.port(4).wire();
  const EthernetWire& victim_up = *f.hca("h1_2").ethernet_port().wire();
  std::vector<const Sent*> victim;
  for (const Sent* s : log.on(cable.link_id()))
    if (s->bytes.size() > 64 && s->bytes[14 + 4 + 12 + 3] == 2)  // IPv4 source 10.0.1.2
      victim.push_back(s);
  REQUIRE(victim.size() == 64);
  const Time span = victim.back()->start - victim.front()->start;
  const Time alone = 63 * ethernet_wire_time(cable.rate(), 4162);
  INFO("victim span " << span << " fs, alone " << alone << " fs");
  CHECK(span > 2 * alone);
  CHECK(log.on(victim_up.link_id()).size() == 64);
}
