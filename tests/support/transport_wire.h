// Transport compliance tests play one side of a connection with crafted packets (Hca::send_raw)
// and read, decoded, every packet the other side puts on the wire (WireLog).
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "sim/link/vcrc.h"
#include "sim/transport/hca.h"
#include "sim/transport/icrc.h"
#include "sim/transport/transport_packet.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

namespace ibfsim::test {

// One packet an HCA sent, as its bytes say.
struct WirePacket {
  Time at = 0;  // its first symbol on the wire
  ParsedPacket parsed;
  std::vector<std::uint8_t> payload;  // carried payload (empty when elided)
  std::uint8_t opcode() const { return parsed.h.bth.opcode; }
  Psn psn() const { return parsed.h.bth.psn; }
  std::uint8_t syndrome() const { return parsed.h.aeth.syndrome; }
  bool has(ExtHeader e) const { return (parsed.ext & e) != 0; }
};

// Records every packet an HCA puts on the wire.
struct WireLog : SendObserver {
  std::vector<WirePacket> sent;
  void on_injected(Hca&, const Packet& p) override { sent.push_back({p.injected, parse_transport_packet(p), p.payload}); }
  std::vector<WirePacket> with_opcode(std::uint8_t opcode) const {
    std::vector<WirePacket> out;
    for (const auto& w : sent)
      if (w.opcode() == opcode) out.push_back(w);
    return out;
  }
  std::vector<Psn> psns() const {
    std::vector<Psn> out;
    for (const auto& w : sent) out.push_back(w.psn());
    return out;
  }
};

// Records every packet an HCA hands to its QPs, `at` being the time its tail was in (and its
// payload DMA done): the instant the transport acts on it.
struct RxLog : DeliveryObserver {
  std::vector<WirePacket> got;
  void on_delivered(Hca&, const Packet& p, Time tail) override { got.push_back({tail, parse_transport_packet(p), p.payload}); }
};

// Headers of a packet from `from`'s port 1 to QP `dest_qp` behind `to`'s port 1: SL 0 on VL 0,
// the default P_Key, and the given opcode and PSN.
inline TransportHeaders headers_to(const Hca& from, const Hca& to, Qpn dest_qp, std::uint8_t opcode, Psn psn) {
  TransportHeaders h;
  h.lrh.dlid = to.lid();
  h.lrh.slid = from.lid();
  h.bth.opcode = opcode;
  h.bth.dest_qp = dest_qp;
  h.bth.psn = psn;
  return h;
}

// The packet those headers describe, with `len` payload bytes (`data`, or elided zeros), its ICRC
// and VCRC written.
inline Packet craft(const TransportHeaders& h, std::uint32_t len = 0, const std::uint8_t* data = nullptr) {
  Packet p;
  build_transport_packet(p, h, len, data);
  return p;
}

// After bytes were changed by hand: both CRCs again, so that only the change is wrong.
inline void reseal(Packet& p) {
  write_icrc(p);
  write_vcrc(p);
}

// An RC or UC (`base`) WRITE Only with AckReq of `len` bytes of `data` to [va, va+len) under
// `to`'s R_Key, at PSN `psn`.
inline Packet write_only(const Hca& from, const Endpoint& to, std::uint8_t base, Psn psn, std::uint64_t va,
                         std::uint32_t len, const std::uint8_t* data) {
  TransportHeaders h = headers_to(from, *to.hca, to.qp->qpn(), static_cast<std::uint8_t>(base + op::kRdmaWriteOnly), psn);
  h.reth = {va, to.mr.rkey, len};
  h.bth.ack_req = true;
  return craft(h, len, data);
}

// An Acknowledge packet (ACK, RNR NAK or NAK by its AETH syndrome) from `from` to `to`'s QP.
inline Packet aeth_to(const Hca& from, const Endpoint& to, Psn psn, std::uint8_t syndrome, std::uint32_t msn = 0) {
  TransportHeaders h = headers_to(from, *to.hca, to.qp->qpn(), op::kAcknowledge, psn);
  h.aeth = {syndrome, msn};
  return craft(h);
}

// A UD QP in RTS with Q_Key `qkey` on P_Key index `pkey_index`, with `n` receives of `len` bytes
// posted (wr_id 1..n, buffer i at offset len x (i - 1)).
inline Endpoint ud_qp(Hca& h, std::uint32_t qkey, int n = 0, std::uint16_t pkey_index = 0, std::uint32_t len = 4096) {
  using namespace verbs;
  Endpoint e = make_endpoint(h, IBV_QPT_UD, std::uint64_t{len} * (n > 0 ? n : 1), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.qkey = qkey;
  at.pkey_index = pkey_index;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0);
  at.qp_state = IBV_QPS_RTR;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE) == 0);
  at.qp_state = IBV_QPS_RTS;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
  for (int i = 0; i < n; ++i) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(i + 1);
    r.sg_list = {e.sge(std::uint64_t{len} * i, len)};
    REQUIRE(h.post_recv(*e.qp, r) == 0);
  }
  return e;
}

// Moves a QP to RESET: it then ignores whatever arrives (a peer that never answers).
inline void reset_qp(Endpoint& e) {
  verbs::ibv_qp_attr x;
  x.qp_state = verbs::IBV_QPS_RESET;
  REQUIRE(e.hca->modify_qp(*e.qp, x, verbs::IBV_QP_STATE) == 0);
}

// Runs code at chosen simulated times on an HCA's calendar.
struct Timeline {
  std::deque<std::unique_ptr<At>> actions;
  void at(Hca& hca, Time t, std::function<void()> fn) {
    actions.push_back(std::make_unique<At>(std::move(fn)));
    fire_at(hca, t, actions.back().get());
  }
  // Sends a copy of `p` from `hca` at `t`.
  void send(Hca& hca, Time t, const Packet& p) {
    at(hca, t, [&hca, p] { hca.send_raw(p); });
  }
};

// A CQ listener that records each completion with the simulated time it became visible.
struct CompletionLog : CompletionListener {
  struct Entry {
    Time at;
    verbs::ibv_wc wc;
  };
  Hca* hca = nullptr;
  std::vector<Entry> entries;
  void on_completion(verbs::CqHandle, const verbs::ibv_wc& wc) override { entries.push_back({hca->now(), wc}); }
};

}  // namespace ibfsim::test
