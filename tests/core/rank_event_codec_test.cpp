#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"

using namespace ibfsim;

TEST_CASE("ranks: partitions go to ranks in contiguous blocks, the first ones one more", "[core][ranks]") {
  // 5 partitions on 2 ranks: 0..2 and 3..4.
  CHECK(ranks::partition_block(0, 5, 2).first == 0);
  CHECK(ranks::partition_block(0, 5, 2).end == 3);
  CHECK(ranks::partition_block(1, 5, 2).first == 3);
  CHECK(ranks::partition_block(1, 5, 2).end == 5);
  // 7 on 3: 0..2, 3..4, 5..6.
  CHECK(ranks::partition_block(1, 7, 3).first == 3);
  CHECK(ranks::partition_block(2, 7, 3).first == 5);
  CHECK(ranks::partition_block(2, 7, 3).end == 7);
  for (unsigned nranks = 1; nranks <= 6; ++nranks)
    for (unsigned parts = nranks; parts <= 20; ++parts) {
      unsigned next = 0;
      for (unsigned r = 0; r < nranks; ++r) {
        const ranks::Block b = ranks::partition_block(r, parts, nranks);
        REQUIRE(b.first == next);  // contiguous, in rank order, none empty
        REQUIRE(b.end > b.first);
        for (unsigned p = b.first; p < b.end; ++p) REQUIRE(ranks::rank_of_partition(p, parts, nranks) == r);
        next = b.end;
      }
      REQUIRE(next == parts);
    }
  CHECK_THROWS_AS(ranks::partition_block(0, 1, 2), SimError);
}

TEST_CASE("ranks: without mpirun there is one rank and the collectives return their argument", "[core][ranks]") {
  CHECK(ranks::rank() == 0);
  CHECK(ranks::size() == 1);
  CHECK(ranks::min_time(42) == 42);
  CHECK(ranks::max_time(7) == 7);
  CHECK(ranks::any(true));
  std::vector<std::uint64_t> v{1, 2, 3};
  ranks::sum(v);
  CHECK(v == std::vector<std::uint64_t>{1, 2, 3});
}

namespace {
Packet sample_packet() {
  Packet p;
  p.header_len = 40;
  p.pad_len = 3;
  p.has_icrc = false;
  p.payload_len = 5;
  p.link_seq = 0x1122334455667788ULL;
  p.link_epoch = 9;
  p.end_pending = true;
  p.tail_check = true;
  p.may_be_corrupted = true;
  p.vcrc = {0xAB, 0xCD};
  for (std::size_t i = 0; i < p.header.size(); ++i) p.header[i] = static_cast<std::uint8_t>(i * 7);
  p.icrc = {1, 2, 3, 4};
  p.fcs = {5, 6, 7, 8};
  p.framing = Framing::kEthernet;
  p.eth_pad_len = 11;
  p.payload = {10, 20, 30, 40, 50};
  p.id = 123456789;
  p.created = 1000;
  p.injected = 2000;
  p.src_node = 77;
  p.measured = true;
  p.flow = 3;
  p.received_frame = {9, 8, 7};
  p.src_qp = 0x100;
  p.management = true;
  return p;
}

struct Port {
  void head(Packet*, Time) {}
};

// A test kind: the packet by value, as the wire's codec does it (without a pool).
Packet g_decoded;
void encode_head(const unsigned char* args, ByteWriter& w) {
  event_detail::Args<Packet*, Time> a;
  std::memcpy(static_cast<void*>(&a), args, sizeof a);
  encode_packet(*a.a, w);
  w.put(a.b);
}
void decode_head(ByteReader& r, unsigned char* args) {
  event_detail::Args<Packet*, Time> a{&g_decoded, 0};
  decode_packet(r, g_decoded);
  a.b = r.get<Time>();
  std::memcpy(args, static_cast<const void*>(&a), sizeof a);
}
}  // namespace

TEST_CASE("ranks: a packet crosses as bytes and comes back field for field", "[core][ranks]") {
  const Packet p = sample_packet();
  std::vector<std::uint8_t> bytes;
  ByteWriter w(bytes);
  encode_packet(p, w);
  Packet q;
  ByteReader r(bytes);
  decode_packet(r, q);
  CHECK(r.done());
  std::vector<std::uint8_t> again;
  ByteWriter w2(again);
  encode_packet(q, w2);
  CHECK(again == bytes);
  CHECK(q.link_seq == p.link_seq);
  CHECK(q.header == p.header);
  CHECK(q.payload == p.payload);
  CHECK(q.received_frame == p.received_frame);
  CHECK(q.framing == Framing::kEthernet);
  CHECK(q.id == 123456789);
  CHECK(q.management);
  CHECK(q.wire_bytes() == p.wire_bytes());
  // Cut short: an invariant failure, never a read past the end.
  ByteReader cut(bytes.data(), bytes.size() - 1);
  Packet z;
  CHECK_THROWS_AS(decode_packet(cut, z), SimError);
}

TEST_CASE("ranks: an event crosses with its time, key, target and module, and unknown kinds are refused",
          "[core][ranks]") {
  static Port port;
  register_rank_event(event_type_of<&Port::head>(), 900, {&encode_head, &decode_head});
  add_rank_target(&port);
  Packet p = sample_packet();
  Event e = make_event<&Port::head>(5000, &port, &p, Time{6000});
  e.module = 17;
  std::vector<std::uint8_t> bytes;
  ByteWriter w(bytes);
  encode_rank_event(e, 0xFEED, w);
  ByteReader r(bytes);
  const auto [back, order] = decode_rank_event(r);
  CHECK(r.done());
  CHECK(back.at == 5000);
  CHECK(order == 0xFEED);
  CHECK(back.type == e.type);
  CHECK(back.target == &port);
  CHECK(back.module == 17);
  CHECK_FALSE(back.global);
  event_detail::Args<Packet*, Time> a;
  std::memcpy(static_cast<void*>(&a), back.args, sizeof a);
  CHECK(a.a == &g_decoded);
  CHECK(a.b == 6000);
  CHECK(g_decoded.id == p.id);

  // A kind without a codec, or a target no rank registered: named failures.
  struct Other {
    void go() {}
  } other;
  std::vector<std::uint8_t> more;
  ByteWriter w2(more);
  CHECK_THROWS_AS(encode_rank_event(make_event<&Other::go>(1, &other), 1, w2), SimError);
  static Port unregistered;
  CHECK_THROWS_AS(encode_rank_event(make_event<&Port::head>(1, &unregistered, &p, Time{2}), 1, w2), SimError);
  remove_rank_target(&port);
  CHECK_THROWS_AS(encode_rank_event(e, 1, w2), SimError);
}
