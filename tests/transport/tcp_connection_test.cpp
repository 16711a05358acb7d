// The pure TCP model (tcp_connection.h, tcp_scoreboard.h, tcp_reassembly.h, tcp_rtt_estimator.h):
// the handshake's options, exact cwnd sequences, fast retransmit, an RTO at its exact time, SACK
// blocks for given holes, delayed ACKs, and a loss recovered end to end over a lossy test wire.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "sim/transport/tcp/tcp_connection.h"

using namespace ibfsim;

namespace {
constexpr std::uint32_t kClientIsn = 1000, kServerIsn = 0xFFFFFF00;  // the server's wraps past 2^32
constexpr std::uint32_t kMss = 2004;

TcpConfig client_config() {
  TcpConfig c;
  c.isn = kClientIsn;
  return c;
}

TcpSegment segment(std::uint8_t flags, std::uint32_t seq, std::uint32_t ack, std::uint32_t data = 0) {
  TcpSegment s;
  s.header.src_port = 5001;
  s.header.dst_port = 40000;
  s.header.flags = flags;
  s.header.seq = seq;
  s.header.ack = ack;
  s.header.window = 49152;  // 6 MiB at scale 7
  s.data_bytes = data;
  return s;
}

// A client whose handshake completed at `at` (RTT `at`); its output so far is taken.
TcpConnection established_client(TcpConfig c, Time at = 10 * kUs) {
  TcpConnection t(c, 40000, 5001);
  t.connect(0);
  t.take_output();
  TcpSegment sa = segment(kTcpSyn | kTcpAck, kServerIsn, c.isn + 1);
  sa.header.mss = kMss;
  sa.header.window_scale = 7;
  sa.header.sack_permitted = c.sack;
  t.on_segment(at, sa);
  t.take_output();
  return t;
}

// An ACK from the server acknowledging `acked` data bytes, with SACK blocks over data offsets.
TcpSegment ack_of(std::uint64_t acked, std::vector<std::pair<std::uint64_t, std::uint64_t>> sacks = {}) {
  TcpSegment s = segment(kTcpAck, kServerIsn + 1, static_cast<std::uint32_t>(kClientIsn + 1 + acked));
  for (auto [l, r] : sacks)
    s.header.sack.push_back({static_cast<std::uint32_t>(kClientIsn + 1 + l), static_cast<std::uint32_t>(kClientIsn + 1 + r)});
  return s;
}
}  // namespace

TEST_CASE("TCP handshake: SYN options, SYN-ACK, MSS 2004 and window scale 7 on both sides", "[transport][tcp]") {
  TcpConnection client(client_config(), 40000, 5001);
  TcpConfig sc;
  sc.isn = kServerIsn;
  TcpConnection server(sc, 5001, 40000);
  server.listen();
  client.connect(0);
  auto syn = client.take_output();
  REQUIRE(syn.size() == 1);
  CHECK(syn[0].header.flags == kTcpSyn);
  CHECK(syn[0].header.seq == kClientIsn);
  CHECK(syn[0].header.mss == std::optional<std::uint16_t>(2004));
  CHECK(syn[0].header.window_scale == std::optional<std::uint8_t>(7));  // 6 MiB >> 7 = 49152
  CHECK(syn[0].header.sack_permitted);
  CHECK(syn[0].header.window == 0xFFFF);  // a SYN's window is not scaled
  CHECK(client.next_timer() == 1 * kSec);  // RFC 6298's initial RTO
  server.on_segment(5 * kUs, syn[0]);
  auto sa = server.take_output();
  REQUIRE(sa.size() == 1);
  CHECK(sa[0].header.flags == (kTcpSyn | kTcpAck));
  CHECK(sa[0].header.seq == kServerIsn);
  CHECK(sa[0].header.ack == kClientIsn + 1);
  client.on_segment(10 * kUs, sa[0]);
  CHECK(client.established());
  CHECK(client.smss() == 2004);
  CHECK(client.cwnd() == 10 * 2004);
  CHECK(client.rtt().srtt() == 10 * kUs);
  CHECK(client.rtt().rto() == 200 * kMs);  // 10 us + max(G = 1 ms, 4 x 5 us), below the 200 ms minimum
  auto ack = client.take_output();
  REQUIRE(ack.size() == 1);
  CHECK(ack[0].header.flags == kTcpAck);
  CHECK(ack[0].header.ack == kServerIsn + 1);
  CHECK(ack[0].header.window == 49152);
  server.on_segment(15 * kUs, ack[0]);
  CHECK(server.established());
  CHECK(server.next_timer() == kTimeNever);
}

TEST_CASE("TCP slow start: 10 segments, then cwnd + 1 SMSS per ACK of two segments", "[transport][tcp]") {
  TcpConnection t = established_client(client_config());
  t.write(20 * kUs, 1 << 20);
  auto out = t.take_output();
  REQUIRE(out.size() == 10);
  CHECK(out[0].header.seq == kClientIsn + 1);
  CHECK(out[9].header.seq == kClientIsn + 1 + 9 * kMss);
  CHECK(out[9].data_bytes == kMss);
  std::vector<std::uint64_t> cwnds;
  std::vector<std::size_t> sent;
  for (std::uint64_t acked = 2; acked <= 10; acked += 2) {
    t.on_segment(30 * kUs + acked, ack_of(acked * kMss));
    cwnds.push_back(t.cwnd());
    sent.push_back(t.take_output().size());
  }
  CHECK(cwnds == std::vector<std::uint64_t>{22044, 24048, 26052, 28056, 30060});
  CHECK(sent == std::vector<std::size_t>{3, 3, 3, 3, 3});  // the two acknowledged and one more
}

TEST_CASE("TCP congestion avoidance: cwnd + SMSS x SMSS / cwnd per ACK", "[transport][tcp]") {
  TcpConfig c = client_config();
  c.initial_ssthresh = 10 * kMss;  // cwnd starts at ssthresh
  TcpConnection t = established_client(c);
  t.write(20 * kUs, 1 << 20);
  REQUIRE(t.take_output().size() == 10);
  std::vector<std::uint64_t> cwnds;
  for (std::uint64_t acked = 2; acked <= 6; acked += 2) {
    t.on_segment(30 * kUs + acked, ack_of(acked * kMss));
    cwnds.push_back(t.cwnd());
    t.take_output();
  }
  // 4016016 / 20040 = 200, / 20240 = 198, / 20438 = 196 (integer division)
  CHECK(cwnds == std::vector<std::uint64_t>{20240, 20438, 20634});
}

TEST_CASE("TCP fast retransmit on the third duplicate ACK (no SACK)", "[transport][tcp]") {
  TcpConfig c = client_config();
  c.sack = false;
  TcpConnection t = established_client(c);
  t.write(20 * kUs, 1 << 20);
  REQUIRE(t.take_output().size() == 10);
  t.on_segment(30 * kUs, ack_of(kMss));  // segment 1 arrived; segment 2 was lost
  CHECK(t.take_output().size() == 2);     // slow start: two more (segments 11, 12)
  t.on_segment(31 * kUs, ack_of(kMss));
  t.on_segment(32 * kUs, ack_of(kMss));
  CHECK(t.take_output().empty());
  CHECK(t.stats().dup_acks_received == 2);
  t.on_segment(33 * kUs, ack_of(kMss));
  auto out = t.take_output();
  REQUIRE(out.size() == 1);
  CHECK(out[0].header.seq == kClientIsn + 1 + kMss);
  CHECK(out[0].data_bytes == kMss);
  CHECK(t.stats().fast_retransmits == 1);
  CHECK(t.stats().retransmitted_segments == 1);
  CHECK(t.in_recovery());
  CHECK(t.ssthresh() == 11022);  // FlightSize 22 044 (segments 2..12) / 2
  CHECK(t.cwnd() == 11022);
  // The ACK for everything sent ends recovery at cwnd = ssthresh.
  t.on_segment(40 * kUs, ack_of(12 * kMss));
  CHECK(!t.in_recovery());
  CHECK(t.cwnd() == 11022);
}

TEST_CASE("TCP with SACK: recovery starts once more than 2 SMSS are SACKed above the hole", "[transport][tcp]") {
  TcpConnection t = established_client(client_config());
  t.write(20 * kUs, 1 << 20);
  REQUIRE(t.take_output().size() == 10);
  // Segment 1 (offsets 0..2003) lost; 2 and 3 arrive: 4008 bytes SACKed, not more than 2 SMSS.
  t.on_segment(30 * kUs, ack_of(0, {{kMss, 3 * kMss}}));
  CHECK(t.take_output().empty());
  CHECK(!t.in_recovery());
  t.on_segment(31 * kUs, ack_of(0, {{kMss, 4 * kMss}}));  // 6012 bytes above it: lost
  CHECK(t.in_recovery());
  CHECK(t.stats().fast_retransmits == 1);
  auto out = t.take_output();
  REQUIRE(!out.empty());
  CHECK(out[0].header.seq == kClientIsn + 1);  // the first hole, at once
  // ssthresh = cwnd = FlightSize / 2 = 10 020; pipe: 10 segments - 3 SACKed - 1 lost + 1 resent = 7
  // segments = 14 028 > 10 020: nothing more.
  CHECK(out.size() == 1);
  CHECK(t.cwnd() == 10020);
  CHECK(t.pipe() == 7 * kMss);
}

TEST_CASE("TCP RTO: fires at exactly the send time + 200 ms, then backs off to 400 ms", "[transport][tcp]") {
  TcpConnection t = established_client(client_config(), 10 * kUs);
  const Time sent = 20 * kUs;
  t.write(sent, 4 * kMss);
  REQUIRE(t.take_output().size() == 4);
  CHECK(t.next_timer() == sent + 200 * kMs);
  t.on_timer(sent + 200 * kMs - 1);  // a femtosecond early: nothing
  CHECK(t.take_output().empty());
  CHECK(t.stats().rtos == 0);
  t.on_timer(sent + 200 * kMs);
  auto out = t.take_output();
  REQUIRE(out.size() == 1);
  CHECK(out[0].header.seq == kClientIsn + 1);
  CHECK(t.stats().rtos == 1);
  CHECK(t.cwnd() == kMss);
  CHECK(t.ssthresh() == 2 * kMss);  // max(FlightSize / 2 = 4008, 2 SMSS)
  CHECK(t.next_timer() == sent + 200 * kMs + 400 * kMs);
}

TEST_CASE("TCP receiver: SACK blocks for holes, most recent first, and delayed ACKs", "[transport][tcp]") {
  TcpConfig sc;
  sc.isn = kServerIsn;
  TcpConnection server(sc, 5001, 40000);
  server.listen();
  TcpSegment syn = segment(kTcpSyn, kClientIsn, 0);
  syn.header.mss = kMss;
  syn.header.window_scale = 7;
  syn.header.sack_permitted = true;
  server.on_segment(0, syn);
  server.take_output();
  server.on_segment(10 * kUs, segment(kTcpAck, kClientIsn + 1, kServerIsn + 1));
  REQUIRE(server.established());
  auto data = [&](Time at, std::uint32_t n) {  // data segment n (0-based) of the client
    server.on_segment(at, segment(kTcpAck, kClientIsn + 1 + n * kMss, kServerIsn + 1, kMss));
    return server.take_output();
  };
  auto blocks = [](const TcpSegment& s) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> v;
    for (const auto& b : s.header.sack) v.emplace_back(b.left - kClientIsn - 1, b.right - kClientIsn - 1);
    return v;
  };
  CHECK(data(20 * kUs, 0).empty());  // one full segment: the ACK waits
  CHECK(server.next_timer() == 20 * kUs + 40 * kMs);
  auto a = data(21 * kUs, 2);  // segment 1 missing
  REQUIRE(a.size() == 1);
  CHECK(a[0].header.ack == kClientIsn + 1 + kMss);
  CHECK(blocks(a[0]) == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2 * kMss, 3 * kMss}});
  CHECK(a[0].header.window == (6291456 - kMss) >> 7);  // less the out-of-order bytes
  a = data(22 * kUs, 4);
  REQUIRE(a.size() == 1);
  CHECK(blocks(a[0]) == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{4 * kMss, 5 * kMss}, {2 * kMss, 3 * kMss}});
  a = data(23 * kUs, 3);  // joins the two blocks
  CHECK(blocks(a[0]) == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2 * kMss, 5 * kMss}});
  a = data(24 * kUs, 1);  // fills the hole: ACKed at once, nothing left to SACK
  REQUIRE(a.size() == 1);
  CHECK(a[0].header.ack == kClientIsn + 1 + 5 * kMss);
  CHECK(a[0].header.sack.empty());
  CHECK(server.bytes_delivered() == 5 * kMss);
  CHECK(data(30 * kUs, 5).empty());  // in order again: the first waits...
  CHECK(data(31 * kUs, 6).size() == 1);  // ...the second full segment is ACKed at once
  CHECK(data(32 * kUs, 7).empty());
  server.on_timer(32 * kUs + 40 * kMs);  // the delayed-ACK timer
  a = server.take_output();
  REQUIRE(a.size() == 1);
  CHECK(a[0].header.ack == kClientIsn + 1 + 8 * kMss);
  CHECK(server.stats().out_of_order_segments == 3);
}

TEST_CASE("TCP end to end: one segment lost on the wire is recovered by one fast retransmit", "[transport][tcp]") {
  TcpConnection client(client_config(), 40000, 5001);
  TcpConfig sc;
  sc.isn = kServerIsn;
  TcpConnection server(sc, 5001, 40000);
  server.listen();
  // The test wire: 1 us each way, in order; the client's 5th data segment is dropped once.
  std::map<std::tuple<Time, std::uint64_t>, std::pair<int, TcpSegment>> wire;
  std::uint64_t serial = 0, data_sent = 0;
  const Time delay = 1 * kUs;
  auto ship = [&](Time now, int to, std::vector<TcpSegment> v) {
    for (TcpSegment& s : v) {
      if (to == 1 && s.data_bytes > 0 && ++data_sent == 5) continue;
      wire.emplace(std::make_tuple(now + delay, serial++), std::make_pair(to, std::move(s)));
    }
  };
  client.connect(0);
  ship(0, 1, client.take_output());
  const std::uint64_t total = 1000 * kMss;  // whole segments: no Nagle wait at the end
  std::uint64_t written = 0;
  Time now = 0;
  while (server.bytes_delivered() < total && now < 10 * kSec) {
    const Time next_wire = wire.empty() ? kTimeNever : std::get<0>(wire.begin()->first);
    now = std::min({next_wire, client.next_timer(), server.next_timer()});
    REQUIRE(now != kTimeNever);
    if (next_wire == now) {
      auto [to, s] = wire.begin()->second;
      wire.erase(wire.begin());
      (to == 1 ? server : client).on_segment(now, s);
    }
    client.on_timer(now);
    server.on_timer(now);
    if (client.established() && written < total) written += client.write(now, total - written);
    ship(now, 1, client.take_output());
    ship(now, 0, server.take_output());
  }
  CHECK(server.bytes_delivered() == total);
  CHECK(client.stats().fast_retransmits == 1);
  CHECK(client.stats().rtos == 0);
  CHECK(client.stats().retransmitted_segments == 1);
  CHECK(server.stats().out_of_order_segments > 0);
  CHECK(now < 1 * kMs);  // no timer of tens of milliseconds was waited on
}
