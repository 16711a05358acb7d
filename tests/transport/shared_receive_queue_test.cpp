// Shared receive queues (shared_receive_queue.h): posting, taking in order, the limit event; and
// on a fabric, two connections sharing one SRQ, the limit event raised once, at the receive that
// crossed the limit, to the femtosecond, an RNR NAK when it is empty, and the limit re-armed.
#include <catch2/catch.hpp>

#include <cerrno>

#include "sim/transport/shared_receive_queue.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

ibv_recv_wr recv_wr(std::uint64_t id, std::size_t sges = 0) {
  ibv_recv_wr r;
  r.wr_id = id;
  for (std::size_t i = 0; i < sges; ++i) r.sg_list.push_back({0x1000 * (i + 1), 64, 0x5A});
  return r;
}

}  // namespace

TEST_CASE("SRQ: posts up to max_wr with up to max_sge, hands WQEs out in posting order, the limit event once when "
          "a take leaves fewer than the limit",
          "[transport][srq]") {
  SharedReceiveQueue q(1, 1, ibv_srq_attr{4, 2, 3});
  CHECK(q.query().srq_limit == 0);  // ibv_create_srq ignores srq_limit: not armed
  CHECK(q.post(recv_wr(10, 3)) == EINVAL);
  for (std::uint64_t i = 0; i < 4; ++i) REQUIRE(q.post(recv_wr(10 + i, 2)) == 0);
  CHECK(q.post(recv_wr(14)) == ENOMEM);
  // ibv_modify_srq: the limit must be below max_wr; max_wr not below what is posted; known bits only.
  CHECK(q.modify(ibv_srq_attr{0, 0, 4}, IBV_SRQ_LIMIT) == EINVAL);
  CHECK(q.modify(ibv_srq_attr{3, 0, 0}, IBV_SRQ_MAX_WR) == EINVAL);
  CHECK(q.modify(ibv_srq_attr{8, 0, 2}, 4) == EINVAL);
  CHECK(q.query().max_wr == 4);
  REQUIRE(q.modify(ibv_srq_attr{0, 0, 2}, IBV_SRQ_LIMIT) == 0);
  CHECK(q.query().srq_limit == 2);
  bool reached = true;
  auto w = q.take(reached);  // 3 left: not below 2
  REQUIRE(w);
  CHECK(w->wr.wr_id == 10);
  CHECK(w->len == 128);
  CHECK_FALSE(reached);
  CHECK(q.take(reached)->wr.wr_id == 11);  // 2 left: not below 2
  CHECK_FALSE(reached);
  CHECK(q.take(reached)->wr.wr_id == 12);  // 1 left: below 2, the event, disarmed
  CHECK(reached);
  CHECK(q.query().srq_limit == 0);
  CHECK(q.take(reached)->wr.wr_id == 13);  // 0 left: disarmed, no second event
  CHECK_FALSE(reached);
  CHECK_FALSE(q.take(reached));
  CHECK(q.limit_events() == 1);
  // Re-armed above what it holds: no event until a take leaves fewer.
  REQUIRE(q.post(recv_wr(20)) == 0);
  REQUIRE(q.post(recv_wr(21)) == 0);
  REQUIRE(q.modify(ibv_srq_attr{8, 0, 3}, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT) == 0);
  CHECK(q.query().max_wr == 8);
  CHECK(q.take(reached)->wr.wr_id == 20);
  CHECK(reached);
  CHECK(q.limit_events() == 2);
  CHECK(q.posted() == 6);
  CHECK(q.taken() == 5);
}

namespace {

// h1 -(3 m)- sw1 -(1.3 m)- h2 at 4x QDR: 1 ns edges, 4 bytes per edge; switch latency 100 ns.
const char* kQdr =
    "defaults: {link: {speed: QDR, width: 4x}, switch: {latency: 100ns}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1, length: 3m}, {from: h2/1, to: sw1/2, length: 1.3m}]\n";

struct EventLog : AsyncEventListener {
  std::vector<std::pair<Time, ibv_async_event>> events;
  void on_async_event(const ibv_async_event& e) override { events.push_back({ScheduledModule::now(), e}); }
};

ibv_send_wr empty_send(std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  return wr;
}

}  // namespace

TEST_CASE("SRQ on a fabric: two connections share it, the limit event is raised once at the receive that crossed "
          "it (exact to the fs), an empty SRQ answers with an RNR NAK, and re-arming raises the next one",
          "[transport][srq]") {
  Fabric& f = build_fabric(kQdr, no_training());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  // The server (h2): one PD, one CQ, one SRQ of 8 that both its QPs receive from.
  Endpoint a1 = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint a2 = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  const PdHandle pd = h2.alloc_pd();
  const CqHandle cq = h2.create_cq(64);
  ibv_srq_init_attr sa;
  sa.attr = {8, 1, 0};
  const SrqHandle srq = h2.create_srq(pd, sa);
  REQUIRE(srq != 0);
  CHECK(h2.create_srq(pd, ibv_srq_init_attr{{0, 1, 0}}) == 0);
  CHECK(h2.create_srq(99, sa) == 0);
  ibv_qp_init_attr init;
  init.send_cq = init.recv_cq = cq;
  init.srq = srq;
  Endpoint b1, b2;
  for (Endpoint* b : {&b1, &b2}) {
    b->hca = &h2;
    b->pd = pd;
    b->cq = cq;
    b->qp = h2.create_qp(pd, init);
  }
  REQUIRE(b1.qp);
  REQUIRE(b2.qp);
  init.srq = 42;
  CHECK(h2.create_qp(pd, init) == nullptr);  // no such SRQ
  connect(a1, b1);
  connect(a2, b2);
  CHECK(h2.post_recv(*b1.qp, recv_wr(1)) == EINVAL);  // its receives come from the SRQ
  for (std::uint64_t i = 0; i < 6; ++i) REQUIRE(h2.post_srq_recv(srq, recv_wr(100 + i)) == 0);
  REQUIRE(h2.modify_srq(srq, ibv_srq_attr{0, 0, 3}, IBV_SRQ_LIMIT) == 0);
  CHECK(h2.destroy_srq(srq) == EBUSY);
  EventLog log;
  h2.set_async_event_listener(&log);

  // Zero-length SENDs (no DMA either way), 2 us apart, alternating the two connections; a 7th
  // finds the SRQ empty; one more WQE is posted at 20 us.
  std::vector<std::unique_ptr<At>> acts;
  auto at = [&](Time t, std::function<void()> fn) {
    acts.push_back(std::make_unique<At>(std::move(fn)));
    fire_at(h1, t, acts.back().get());
  };
  for (int k = 0; k < 7; ++k) {
    Endpoint& a = k % 2 == 0 ? a1 : a2;
    at((1 + 2 * k) * kUs, [&a, k] { REQUIRE(a.hca->post_send(*a.qp, empty_send(k)) == 0); });
  }
  at(20 * kUs, [&] { REQUIRE(h2.post_srq_recv(srq, recv_wr(106)) == 0); });
  ibv_srq_attr after_event;
  at(8 * kUs, [&] { REQUIRE(h2.query_srq(srq, &after_event) == 0); });
  // Re-armed at 40 us with 2 WQEs posted and limit 2: the SEND at 42 us leaves 1.
  at(40 * kUs, [&] {
    REQUIRE(h2.post_srq_recv(srq, recv_wr(107)) == 0);
    REQUIRE(h2.post_srq_recv(srq, recv_wr(108)) == 0);
    REQUIRE(h2.modify_srq(srq, ibv_srq_attr{0, 0, 2}, IBV_SRQ_LIMIT) == 0);
  });
  at(42 * kUs, [&] { REQUIRE(h1.post_send(*a2.qp, empty_send(7)) == 0); });
  run_for(f, 100 * kUs);

  // A SEND posted at t starts at t + 250 ns (doorbell_to_wire; no payload to read). 26 bytes
  // (LRH 8, BTH 12, ICRC 4, VCRC 2) + 2 delimiters = 7 edges. Switch: LRH in 15 + 3 edges after
  // the start, tail 15 + 7; output at the first edge >= head + 100 ns whose end is >= tail +
  // 100 ns: start + 118 ns. Tail at h2: + 7 + 7 = start + 132 ns = t + 382 ns; no DMA, so the QP
  // takes its WQE then. The 4th take (posted at 7 us) leaves 2 < 3: the event is raised at
  // 7382 ns and visible wire_to_completion (250 ns) later.
  REQUIRE(log.events.size() == 2);
  CHECK(log.events[0].first == 7'632'000'000);
  CHECK(log.events[0].second.event_type == IBV_EVENT_SRQ_LIMIT_REACHED);
  CHECK(log.events[0].second.element.srq == srq);
  CHECK(after_event.srq_limit == 0);  // disarmed by the event
  CHECK(after_event.max_wr == 8);
  CHECK(log.events[1].first == 42'632'000'000);
  CHECK(log.events[1].second.event_type == IBV_EVENT_SRQ_LIMIT_REACHED);
  ibv_async_event e;
  CHECK(h2.get_async_event(&e) == 0);
  CHECK(e.event_type == IBV_EVENT_SRQ_LIMIT_REACHED);
  CHECK(h2.get_async_event(&e) == 0);
  CHECK(h2.get_async_event(&e) == EAGAIN);

  // The receives completed in posting order, each on the QP whose message took it; the 7th
  // message was NAKed RNR once and took WQE 106 when retried.
  std::vector<ibv_wc> recvs;
  for (const ibv_wc& wc : b1.poll_all())
    if (wc.opcode == IBV_WC_RECV) recvs.push_back(wc);
  REQUIRE(recvs.size() == 8);
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    INFO("receive " << i);
    CHECK(recvs[i].status == IBV_WC_SUCCESS);
    CHECK(recvs[i].wr_id == 100 + i);
    CHECK(recvs[i].qp_num == (i % 2 == 0 ? b1.qp->qpn() : b2.qp->qpn()));
  }
  CHECK(b1.qp->stats().rnr_naks_sent == 1);
  CHECK(b2.qp->stats().rnr_naks_sent == 0);
  CHECK(a1.qp->stats().rnr_naks_received == 1);
  for (Endpoint* a : {&a1, &a2})
    for (const ibv_wc& wc : a->poll_all()) CHECK(wc.status == IBV_WC_SUCCESS);
  ibv_srq_attr end;
  REQUIRE(h2.query_srq(srq, &end) == 0);
  CHECK(end.srq_limit == 0);
  CHECK(h2.verbs_resources().srq(srq)->size() == 1);
  CHECK(h2.verbs_resources().srq(srq)->limit_events() == 2);
}
