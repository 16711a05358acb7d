// The receive engine of an HCA, driven on an HCA with no cable: packets are handed to its port's
// receiver one at a time (as a wire would, LinkPort::head_arrives) and the engine's tail_arrives
// event judges them. Each receive check drops with its own reason, counted per port and in the
// ledger, in the order the checks run, and frees the packet's buffer space; a generator's QP takes
// a UD SEND at its tail, a verbs QP after the receive DMA, in arrival order.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <vector>

#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"
#include "tests/support/standalone_hca.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

constexpr Lid kOwnLid = 0x10;
constexpr Lid kJoinedGroup = 0xC002;

// LID 0x10, two data VLs, payloads carried (so that the generator's pattern is checked).
HcaConfig config() {
  HcaConfig c;
  c.port_lids = {kOwnLid};
  c.buffers.op_vls = 2;
  c.carry_payload = true;
  return c;
}

// A UD SEND from LID 0x30's QP 0x200 to QP `dest_qp` of this HCA, `len` payload bytes of the
// generator's pattern for packet `id`.
Packet ud_to(Qpn dest_qp, std::uint32_t q_key, std::uint32_t len = 64, std::uint64_t id = 1000, std::uint8_t vl = 0) {
  UdSendFields f;
  f.vl = vl;
  f.dlid = kOwnLid;
  f.slid = 0x30;
  f.dest_qp = dest_qp;
  f.q_key = q_key;
  f.src_qp = 0x200;
  std::vector<std::uint8_t> data(len);
  for (std::uint32_t i = 0; i < len; ++i) data[i] = payload_pattern_byte(id, i);
  Packet p;
  build_ud_send(p, f, len, data.data());
  p.id = id;
  return p;
}

// p with its LRH or BTH edited and both CRCs rewritten, so that only the edit is wrong.
Packet lrh_edited(Packet p, const std::function<void(Lrh&)>& edit) {
  Lrh l = decode_lrh(p.header.data());
  edit(l);
  encode_lrh(l, p.header.data());
  reseal(p);
  return p;
}
Packet bth_edited(Packet p, const std::function<void(Bth&)>& edit) {
  Bth b = decode_bth(p.header.data() + kLrhBytes);
  edit(b);
  encode_bth(b, p.header.data() + kLrhBytes);
  reseal(p);
  return p;
}

struct Delivered {
  std::uint64_t id;
  Qpn dest_qp;
  Time at;
  bool operator==(const Delivered& o) const { return id == o.id && dest_qp == o.dest_qp && at == o.at; }
};
struct Deliveries : DeliveryObserver {
  std::vector<Delivered> got;
  void on_delivered(Hca&, const Packet& p, Time tail) override {
    got.push_back({p.id, parse_transport_packet(p).h.bth.dest_qp, tail});
  }
};

// Hands a copy of `p` to port 1's receiver now; its tail is in `after` later.
void arrive(StandaloneHca& s, const Packet& p, Time after) {
  s.hca->port(1).head_arrives(pool_copy(s.pool, p), s.hca->now() + after);
}

std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> port_discards(const Hca& h) {
  std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> a{};
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r) a[r] = h.port_discards(1, static_cast<DropReason>(r));
  return a;
}

}  // namespace

TEST_CASE("Receive engine: each check drops with its reason, first failure first, and frees the buffer",
          "[transport][hca][receive_engine]") {
  StandaloneHca& s = standalone_hca(config());
  Hca& h = *s.hca;
  h.port(1).set_state(PortState::kActive);
  const Qpn g = h.create_ud_qp(0x42);
  h.join_multicast(kJoinedGroup, g);
  Deliveries rx;
  h.set_delivery_observer(&rx);

  const Packet good = ud_to(g, 0x42);
  Packet bad_vcrc = lrh_edited(good, [](Lrh& l) { l.dlid = 0; });
  bad_vcrc.vcrc[0] ^= 1;
  Packet stale_icrc = good;  // the PSN changed after the CRCs were written, and only the VCRC again
  Bth bth = decode_bth(stale_icrc.header.data() + kLrhBytes);
  bth.psn = 5;
  encode_bth(bth, stale_icrc.header.data() + kLrhBytes);
  write_vcrc(stale_icrc);
  Packet not_pattern = good;
  not_pattern.payload[3] ^= 0xFF;
  reseal(not_pattern);
  auto smp = [&](Lid slid, Lid dlid) {
    Packet p = lrh_edited(ud_to(g, 0x42, 64, 1000, kVl15), [=](Lrh& l) { l.slid = slid, l.dlid = dlid; });
    p.management = true;  // built here as an SMP: the ledger counts it with the management packets
    return p;
  };
  struct Case {
    const char* what;
    Packet p;
    std::optional<DropReason> reason;  // nullopt: delivered
    bool management = false;           // counted in the ledger as management traffic
  };
  const std::vector<Case> cases = {
      {"good", good, std::nullopt},
      {"bad VCRC (and DLID 0): the VCRC first", bad_vcrc, DropReason::kVcrcError},
      {"LVer 1", lrh_edited(good, [](Lrh& l) { l.lver = 1; }), DropReason::kMalformed},
      {"PktLen one word long", lrh_edited(good, [](Lrh& l) { ++l.pkt_len; }), DropReason::kMalformed},
      {"DLID 0", lrh_edited(good, [](Lrh& l) { l.dlid = 0; }), DropReason::kInvalidLid},
      {"permissive SLID on a data VL", lrh_edited(good, [](Lrh& l) { l.slid = kLidPermissive; }), DropReason::kInvalidLid},
      {"multicast SLID", lrh_edited(good, [](Lrh& l) { l.slid = 0xC005; }), DropReason::kInvalidLid},
      {"another LID", lrh_edited(good, [](Lrh& l) { l.dlid = kOwnLid + 1; }), DropReason::kWrongDlid},
      {"a group not joined", lrh_edited(good, [](Lrh& l) { l.dlid = 0xC001; }), DropReason::kWrongDlid},
      {"stale ICRC", stale_icrc, DropReason::kIcrcError},
      {"TVer 1", bth_edited(good, [](Bth& b) { b.tver = 1; }), DropReason::kMalformed},
      {"DestQP 0 on a data VL (R2)", bth_edited(good, [](Bth& b) { b.dest_qp = 0; }), DropReason::kNoQp},
      {"no such QP", bth_edited(good, [](Bth& b) { b.dest_qp = 0x1FF; }), DropReason::kNoQp},
      {"wrong Q_Key (R36)", ud_to(g, 0x43), DropReason::kQkeyMismatch},
      {"multicast to a QP, not 0xFFFFFF (R14)",
       lrh_edited(good, [](Lrh& l) { l.dlid = kJoinedGroup; }), DropReason::kMalformed},
      {"multicast to 0xFFFFFF",
       bth_edited(lrh_edited(good, [](Lrh& l) { l.dlid = kJoinedGroup; }), [](Bth& b) { b.dest_qp = 0xFFFFFF; }),
       std::nullopt},
      {"an SMP to another LID", smp(0x30, kOwnLid + 1), DropReason::kWrongDlid, true},
      {"an SMP to this port, no agent", smp(0x30, kOwnLid), DropReason::kNoQp, true},
      {"a directed-route SMP, no agent", smp(kLidPermissive, kLidPermissive), DropReason::kNoQp, true},
      {"payload not the pattern sent", not_pattern, std::nullopt},
  };
  std::size_t delivered = 0;
  for (const Case& c : cases) {
    INFO(c.what);
    const auto discards_before = port_discards(h);
    const auto ledger_before = ledger_drops(s.ledger);
    const std::uint64_t mgmt_before = c.reason ? s.ledger.management_dropped_count(*c.reason) : 0;
    const Time tail = h.now() + 100 * kNs;
    arrive(s, c.p, 100 * kNs);
    run_standalone_for(1 * kUs);
    auto discards_expected = discards_before;
    auto ledger_expected = ledger_before;
    if (c.reason) {
      ++discards_expected[static_cast<int>(*c.reason)];
      if (c.management) CHECK(s.ledger.management_dropped_count(*c.reason) == mgmt_before + 1);
      else ++ledger_expected[static_cast<int>(*c.reason)];
    } else {
      ++delivered;
      REQUIRE(rx.got.size() == delivered);
      CHECK(rx.got.back().at == tail);  // a generator's QP takes it at its tail: no DMA
    }
    CHECK(port_discards(h) == discards_expected);
    CHECK(ledger_drops(s.ledger) == ledger_expected);
    CHECK(rx.got.size() == delivered);
    // Delivered or dropped, its buffer space is free again.
    CHECK(h.port(1).rx_buffer(0).occupied() == 0);
    CHECK(h.port(1).vl15_occupied() == 0);
  }
  CHECK(s.ledger.delivered_count() == 3);
  CHECK(h.stats().received_packets == 3);
  CHECK(h.stats().received_payload_bytes == 3 * 64);
  CHECK(h.stats().payload_mismatches == 1);
  CHECK(rx.got[1].dest_qp == 0xFFFFFF);
}

TEST_CASE("Receive engine: verbs packets wait for the receive DMA in arrival order, a generator's do not",
          "[transport][hca][receive_engine]") {
  HcaConfig c = config();
  StandaloneHca& s = standalone_hca(c);
  Hca& h = *s.hca;
  h.port(1).set_state(PortState::kActive);
  const Qpn g = h.create_ud_qp(0x42);
  Endpoint v = ud_qp(h, 0x77, 2);
  const Qpn vq = v.qp->qpn();
  Deliveries rx;
  h.set_delivery_observer(&rx);

  // Heads all in at time 0; tails at 1 us, 1.01 us, ...
  arrive(s, ud_to(vq, 0x77, 2048, 1), 1000 * kNs);
  arrive(s, ud_to(vq, 0x77, 0, 2), 1010 * kNs);    // no payload: still behind the one ahead
  arrive(s, ud_to(g, 0x42, 64, 3), 1020 * kNs);    // a generator's: no DMA at all
  UdSendFields f;  // a P_Key of another partition (R37): dropped at once, before any DMA
  f.dlid = kOwnLid;
  f.slid = 0x30;
  f.dest_qp = vq;
  f.q_key = 0x77;
  f.p_key = 0x0001;
  Packet other_partition;
  build_ud_send(other_partition, f, 16, nullptr);
  other_partition.id = 4;
  arrive(s, other_partition, 1030 * kNs);
  arrive(s, ud_to(vq, 0x78, 32, 5), 1040 * kNs);  // wrong Q_Key: the QP drops it, after its DMA
  run_standalone_for(2 * kUs);

  DmaPipe pcie(c.host);
  const Time v1_done = pcie.transfer(1000 * kNs, 2048);
  const Time v5_done = pcie.transfer(1040 * kNs, 32);
  REQUIRE(v1_done > 1020 * kNs);
  CHECK(rx.got == std::vector<Delivered>{{3, g, 1020 * kNs}, {1, vq, v1_done}, {2, vq, v1_done}});
  CHECK(h.port_discards(1, DropReason::kPkeyViolation) == 1);
  CHECK(h.port_discards(1, DropReason::kQkeyMismatch) == 1);
  CHECK(v.qp->stats().qkey_violations == 1);
  CHECK(s.ledger.dropped_count(DropReason::kQkeyMismatch) == 1);
  REQUIRE(v5_done > v1_done);
  CHECK(h.port(1).rx_buffer(0).occupied() == 0);
  // The verbs QP completed both receives it had posted; the generator's took no WQE.
  const auto wcs = v.poll_all();
  REQUIRE(wcs.size() == 2);
  CHECK(wcs[0].byte_len == 2048 + 40);
  CHECK(wcs[1].byte_len == 40);
  CHECK(h.stats().received_packets == 3);
}
