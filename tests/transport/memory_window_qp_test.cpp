// Memory windows between two HCAs: a type 2 window bound by a work request, written through, and
// invalidated by a SEND with Invalidate, after which the next WRITE through it fails with a remote
// access error and leaves the memory unchanged; a type 1 window bound with ibv_bind_mw (each bind a
// new key byte); local invalidation; bind errors; deregistration while bound.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sim/transport/opcode.h"
#include "sim/transport/packet_fields.h"
#include "sim/transport/transport_packet.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

struct Timeline {
  std::vector<std::unique_ptr<At>> acts;
  void at(Hca& h, Time t, std::function<void()> fn) {
    acts.push_back(std::make_unique<At>(std::move(fn)));
    fire_at(h, t, acts.back().get());
  }
};

// What each side's CQ saw, with when.
struct CqLog : CompletionListener {
  std::vector<std::pair<Time, ibv_wc>> wcs;
  void on_completion(CqHandle, const ibv_wc& wc) override { wcs.push_back({ScheduledModule::now(), wc}); }
};

// Opcodes and IETHs of the packets h1 sends.
struct WireLog : SendObserver {
  std::vector<std::uint8_t> opcodes;
  std::vector<std::uint32_t> ieths;
  void on_injected(Hca&, const Packet& p) override {
    const ParsedPacket pp = parse_transport_packet(p);
    opcodes.push_back(pp.h.bth.opcode);
    if (pp.ext & kExtIeth) ieths.push_back(pp.h.ieth.r_key);
  }
};

ibv_send_wr bind_wr(const ibv_mw& mw, std::uint32_t rkey, const ibv_mr& mr, std::uint64_t addr, std::uint64_t len,
                    unsigned access, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_BIND_MW;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.bind_mw.mw = mw.handle;
  wr.bind_mw.rkey = rkey;
  wr.bind_mw.bind_info = {mr, addr, len, access};
  return wr;
}

ibv_send_wr write_to(const Endpoint& from, std::uint64_t remote, std::uint32_t rkey, std::uint32_t len, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = {from.sge(0, len)};
  wr.rdma.remote_addr = remote;
  wr.rdma.rkey = rkey;
  return wr;
}

ibv_send_wr send_inv(std::uint32_t rkey, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND_WITH_INV;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.invalidate_rkey = rkey;
  return wr;
}

}  // namespace

TEST_CASE("type 2 window: bound by a work request, written through, invalidated by a SEND with Invalidate, the next "
          "WRITE through it fails with a remote access error and leaves the memory unchanged",
          "[transport][mw]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  // The target's region grants no remote access of its own: only windows reach it.
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
  connect(a, b);
  CqLog alog, blog;
  h1.cq(a.cq).set_listener(&alog);
  h2.cq(b.cq).set_listener(&blog);
  WireLog wire;
  h1.set_send_observer(&wire);
  std::uint8_t* src = h1.memory().bytes(a.buf, 8192);
  for (int i = 0; i < 8192; ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
  const ibv_mw mw = *h2.alloc_mw(b.pd, IBV_MW_TYPE_2);
  const std::uint32_t rkey = ibv_inc_rkey(mw.rkey);  // the key byte the consumer picks: the next one
  const std::uint64_t win = b.buf + 1024;            // the window: [buf + 1024, buf + 3072)
  Timeline tl;
  tl.at(h2, 1 * kUs, [&] {
    REQUIRE(h2.post_send(*b.qp, bind_wr(mw, rkey, b.mr, win, 2048, IBV_ACCESS_REMOTE_WRITE, 900)) == 0);
    REQUIRE(h2.post_recv(*b.qp, ibv_recv_wr{901, {}}) == 0);  // for the SEND with Invalidate
  });
  // Once the bind has completed (1.5 us), the peer writes 512 bytes through the window.
  tl.at(h1, 5 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, write_to(a, win + 256, rkey, 512, 1)) == 0); });
  // The SEND with Invalidate, then (after its completion) a WRITE through the invalidated window.
  tl.at(h1, 15 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, send_inv(rkey, 2)) == 0); });
  std::vector<std::uint8_t> before;
  tl.at(h1, 25 * kUs, [&] {
    const std::uint8_t* t = h2.memory().bytes(b.buf, 8192);
    before.assign(t, t + 8192);
    REQUIRE(h1.post_send(*a.qp, write_to(a, win, rkey, 1024, 3)) == 0);
  });
  run_for(f, 100 * kUs);

  // The bind: posted at 1 us, executed when the doorbell reaches the QP (1.25 us), its completion
  // visible wire_to_completion later.
  REQUIRE(blog.wcs.size() >= 2);
  CHECK(blog.wcs[0].first == 1'500'000'000);
  CHECK(blog.wcs[0].second.opcode == IBV_WC_BIND_MW);
  CHECK(blog.wcs[0].second.status == IBV_WC_SUCCESS);
  CHECK(blog.wcs[0].second.wr_id == 900);
  // The WRITE landed inside the window.
  REQUIRE(alog.wcs.size() == 3);
  CHECK(alog.wcs[0].second.status == IBV_WC_SUCCESS);
  CHECK(std::memcmp(h2.memory().bytes(win + 256, 512), src, 512) == 0);
  // The SEND with Invalidate: SEND Only with Invalidate on the wire, the IETH naming the window's
  // R_Key; the receive completes with IBV_WC_WITH_INV and the key; the send succeeds.
  REQUIRE(wire.ieths.size() == 1);
  CHECK(wire.ieths[0] == rkey);
  CHECK(std::count(wire.opcodes.begin(), wire.opcodes.end(), op::kSendOnlyInvalidate) == 1);
  const ibv_wc& recv = blog.wcs[1].second;
  CHECK(recv.opcode == IBV_WC_RECV);
  CHECK(recv.status == IBV_WC_SUCCESS);
  CHECK(recv.wr_id == 901);
  CHECK((recv.wc_flags & IBV_WC_WITH_INV) != 0);
  CHECK(recv.invalidated_rkey == rkey);
  CHECK(recv.byte_len == 0);
  CHECK(alog.wcs[1].second.status == IBV_WC_SUCCESS);
  CHECK(alog.wcs[1].second.opcode == IBV_WC_SEND);
  // The WRITE through the invalidated window: NAK remote access error, both QPs in error, the
  // target memory byte for byte as it was.
  CHECK(alog.wcs[2].second.wr_id == 3);
  CHECK(alog.wcs[2].second.status == IBV_WC_REM_ACCESS_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->stats().remote_access_errors == 1);
  CHECK(a.qp->stats().naks_error_received == 1);
  const std::uint8_t* after = h2.memory().bytes(b.buf, 8192);
  CHECK(std::equal(before.begin(), before.end(), after));
  const MwStats& st = h2.mrs().mw_stats();
  CHECK(st.binds == 1);
  CHECK(st.remote_invalidations == 1);
  CHECK(st.invalidation_errors == 0);
  // Free again: the region may be deregistered.
  CHECK(h2.dereg_mr(b.mr) == 0);
}

TEST_CASE("type 2 window: only the QP that bound it reaches it, ibv_dereg_mr fails while it is bound, a local "
          "invalidation frees it",
          "[transport][mw]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
  Endpoint a2 = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  // A second QP on h2 in b's PD (as a server's second connection).
  Endpoint b2 = b;
  ibv_qp_init_attr init;
  init.send_cq = init.recv_cq = b.cq;
  b2.qp = h2.create_qp(b.pd, init);
  connect(a, b);
  connect(a2, b2);
  CqLog alog, a2log, blog;
  h1.cq(a.cq).set_listener(&alog);
  h1.cq(a2.cq).set_listener(&a2log);
  h2.cq(b.cq).set_listener(&blog);
  const ibv_mw mw = *h2.alloc_mw(b.pd, IBV_MW_TYPE_2);
  const std::uint32_t rkey = ibv_inc_rkey(mw.rkey);
  int dereg_while_bound = -1, dereg_after = -1;
  Timeline tl;
  tl.at(h2, 1 * kUs, [&] {
    REQUIRE(h2.post_send(*b.qp, bind_wr(mw, rkey, b.mr, b.buf, 4096, IBV_ACCESS_REMOTE_WRITE, 900)) == 0);
  });
  tl.at(h2, 3 * kUs, [&] { dereg_while_bound = h2.dereg_mr(b.mr); });
  tl.at(h1, 5 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, write_to(a, b.buf, rkey, 64, 1)) == 0); });
  tl.at(h1, 15 * kUs, [&] { REQUIRE(h1.post_send(*a2.qp, write_to(a2, b.buf, rkey, 64, 2)) == 0); });
  tl.at(h2, 30 * kUs, [&] {
    ibv_send_wr inv;
    inv.wr_id = 902;
    inv.opcode = IBV_WR_LOCAL_INV;
    inv.send_flags = IBV_SEND_SIGNALED;
    inv.invalidate_rkey = rkey;
    REQUIRE(h2.post_send(*b.qp, inv) == 0);
  });
  tl.at(h2, 35 * kUs, [&] { dereg_after = h2.dereg_mr(b.mr); });
  run_for(f, 100 * kUs);
  CHECK(dereg_while_bound == EBUSY);
  REQUIRE(alog.wcs.size() == 1);
  CHECK(alog.wcs[0].second.status == IBV_WC_SUCCESS);
  REQUIRE(a2log.wcs.size() == 1);
  CHECK(a2log.wcs[0].second.status == IBV_WC_REM_ACCESS_ERR);  // the window is b's QP's alone
  CHECK(b2.qp->stats().remote_access_errors == 1);
  // The local invalidation: posted at 30 us, done as the doorbell reaches the QP, its completion
  // 500 ns after the post.
  REQUIRE(blog.wcs.size() == 2);
  CHECK(blog.wcs[1].first == 30'500'000'000);
  CHECK(blog.wcs[1].second.opcode == IBV_WC_LOCAL_INV);
  CHECK(blog.wcs[1].second.status == IBV_WC_SUCCESS);
  CHECK(h2.mrs().mw_stats().local_invalidations == 1);
  CHECK(dereg_after == 0);
}

TEST_CASE("type 1 window with ibv_bind_mw: the R_Key's key byte advances on each bind, the old key stops working, "
          "and a SEND with Invalidate naming it is refused",
          "[transport][mw]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
  Endpoint a2 = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b2 = b;  // a second connection in the same PD: a type 1 window serves every QP of it
  ibv_qp_init_attr init;
  init.send_cq = init.recv_cq = b.cq;
  b2.qp = h2.create_qp(b.pd, init);
  connect(a, b);
  connect(a2, b2);
  CqLog alog, a2log, blog;
  h1.cq(a.cq).set_listener(&alog);
  h1.cq(a2.cq).set_listener(&a2log);
  h2.cq(b.cq).set_listener(&blog);
  ibv_mw mw = *h2.alloc_mw(b.pd, IBV_MW_TYPE_1);
  const std::uint32_t initial = mw.rkey;
  std::uint32_t first = 0, second = 0;
  ibv_mw_bind bind;
  bind.wr_id = 900;
  bind.send_flags = IBV_SEND_SIGNALED;
  bind.bind_info = {b.mr, b.buf, 4096, IBV_ACCESS_REMOTE_WRITE};
  // ibv_bind_mw's own checks: a type 2 window, a region of another PD, a zero-based bind.
  ibv_mw type2 = *h2.alloc_mw(b.pd, IBV_MW_TYPE_2);
  CHECK(h2.bind_mw(*b.qp, type2, bind) == EINVAL);
  ibv_mw_bind foreign = bind;
  foreign.bind_info.mr.pd = b.pd + 1;
  CHECK(h2.bind_mw(*b.qp, mw, foreign) == EPERM);
  ibv_mw_bind zero_based = bind;
  zero_based.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
  CHECK(h2.bind_mw(*b.qp, mw, zero_based) == EINVAL);
  CHECK(mw.rkey == initial);
  Timeline tl;
  tl.at(h2, 1 * kUs, [&] {
    REQUIRE(h2.bind_mw(*b.qp, mw, bind) == 0);
    first = mw.rkey;  // set at once, before the bind is done
  });
  tl.at(h1, 5 * kUs, [&] { REQUIRE(h1.post_send(*a2.qp, write_to(a2, b.buf, first, 64, 1)) == 0); });
  tl.at(h2, 10 * kUs, [&] {
    bind.bind_info.addr = b.buf + 4096;  // rebound over the second half
    REQUIRE(h2.bind_mw(*b.qp, mw, bind) == 0);
    second = mw.rkey;
  });
  tl.at(h1, 15 * kUs, [&] { REQUIRE(h1.post_send(*a2.qp, write_to(a2, b.buf + 4096, second, 64, 2)) == 0); });
  // A SEND with Invalidate of a type 1 window (o10-37.2.26) is refused: REM_INV_REQ_ERR both sides.
  tl.at(h2, 18 * kUs, [&] { REQUIRE(h2.post_recv(*b.qp, ibv_recv_wr{901, {}}) == 0); });
  tl.at(h1, 20 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, send_inv(second, 3)) == 0); });
  // The stale key, on the second connection.
  tl.at(h1, 30 * kUs, [&] { REQUIRE(h1.post_send(*a2.qp, write_to(a2, b.buf + 4096, first, 64, 4)) == 0); });
  run_for(f, 100 * kUs);
  CHECK(key_index(first) == key_index(initial));
  CHECK(key_byte(first) == static_cast<std::uint8_t>(key_byte(initial) + 1));
  CHECK(second == ibv_inc_rkey(first));
  REQUIRE(a2log.wcs.size() == 3);
  CHECK(a2log.wcs[0].second.status == IBV_WC_SUCCESS);
  CHECK(a2log.wcs[1].second.status == IBV_WC_SUCCESS);
  CHECK(a2log.wcs[2].second.status == IBV_WC_REM_ACCESS_ERR);
  REQUIRE(alog.wcs.size() == 1);
  CHECK(alog.wcs[0].second.status == IBV_WC_REM_INV_REQ_ERR);
  // b's CQ: two binds, then the refused receive.
  REQUIRE(blog.wcs.size() >= 3);
  CHECK(blog.wcs[0].second.opcode == IBV_WC_BIND_MW);
  CHECK(blog.wcs[1].second.opcode == IBV_WC_BIND_MW);
  CHECK(blog.wcs[2].second.wr_id == 901);
  CHECK(blog.wcs[2].second.status == IBV_WC_REM_INV_REQ_ERR);
  CHECK(h2.mrs().mw_stats().binds == 2);
  CHECK(h2.mrs().mw_stats().invalidation_errors == 1);
}

TEST_CASE("a refused bind completes with IBV_WC_MW_BIND_ERR and moves the QP to error, the WQEs behind it flushed",
          "[transport][mw]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);  // no IBV_ACCESS_MW_BIND
  connect(a, b);
  CqLog blog;
  h2.cq(b.cq).set_listener(&blog);
  const ibv_mw mw = *h2.alloc_mw(b.pd, IBV_MW_TYPE_2);
  Timeline tl;
  tl.at(h2, 1 * kUs, [&] {
    REQUIRE(h2.post_send(*b.qp, bind_wr(mw, ibv_inc_rkey(mw.rkey), b.mr, b.buf, 64, IBV_ACCESS_REMOTE_READ, 1)) == 0);
    REQUIRE(h2.post_send(*b.qp, bind_wr(mw, ibv_inc_rkey(mw.rkey), b.mr, b.buf, 64, IBV_ACCESS_REMOTE_READ, 2)) == 0);
  });
  run_for(f, 20 * kUs);
  REQUIRE(blog.wcs.size() == 2);
  CHECK(blog.wcs[0].first == 1'500'000'000);
  CHECK(blog.wcs[0].second.status == IBV_WC_MW_BIND_ERR);
  CHECK(blog.wcs[0].second.opcode == IBV_WC_BIND_MW);
  CHECK(blog.wcs[1].second.status == IBV_WC_WR_FLUSH_ERR);
  CHECK(b.qp->state() == IBV_QPS_ERR);
  CHECK(h2.mrs().mw_stats().bind_errors == 1);
}

TEST_CASE("a bind behind an outstanding WRITE on the same QP completes with it, in posting order, and the window "
          "then serves a READ from the peer",
          "[transport][mw]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  // h1 writes to h2 and binds a type 2 window over the second half of its own region, in that
  // order on one send queue; h2 then reads h1's memory through the window (its READ arrives on
  // a.qp, the QP that bound it).
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  CqLog alog, blog;
  h1.cq(a.cq).set_listener(&alog);
  h2.cq(b.cq).set_listener(&blog);
  std::memset(h1.memory().bytes(a.buf, 4096), 0x11, 4096);         // what the WRITE carries
  std::memset(h1.memory().bytes(a.buf + 4096, 4096), 0x3C, 4096);  // what the window shows
  const ibv_mw mw = *h1.alloc_mw(a.pd, IBV_MW_TYPE_2);
  const std::uint32_t rkey = ibv_inc_rkey(mw.rkey);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, write_to(a, b.buf, b.mr.rkey, 4096, 1)) == 0);
    REQUIRE(h1.post_send(*a.qp, bind_wr(mw, rkey, a.mr, a.buf + 4096, 4096, IBV_ACCESS_REMOTE_READ, 2)) == 0);
  });
  tl.at(h2, 10 * kUs, [&] {
    ibv_send_wr rd;
    rd.wr_id = 3;
    rd.opcode = IBV_WR_RDMA_READ;
    rd.send_flags = IBV_SEND_SIGNALED;
    rd.sg_list = {b.sge(0, 256)};
    rd.rdma.remote_addr = a.buf + 4096;
    rd.rdma.rkey = rkey;
    REQUIRE(h2.post_send(*b.qp, rd) == 0);
  });
  run_for(f, 100 * kUs);
  // The WRITE's ACK completes it, and the bind behind it with it: same instant, posting order.
  REQUIRE(alog.wcs.size() == 2);
  CHECK(alog.wcs[0].second.wr_id == 1);
  CHECK(alog.wcs[0].second.opcode == IBV_WC_RDMA_WRITE);
  CHECK(alog.wcs[1].second.wr_id == 2);
  CHECK(alog.wcs[1].second.opcode == IBV_WC_BIND_MW);
  CHECK(alog.wcs[1].second.status == IBV_WC_SUCCESS);
  CHECK(alog.wcs[1].first == alog.wcs[0].first);
  CHECK(alog.wcs[0].first > 1'500'000'000);  // not before the WRITE's ACK came back
  // The READ through the window brought the window's bytes over the WRITE's.
  REQUIRE(blog.wcs.size() == 1);
  CHECK(blog.wcs[0].second.status == IBV_WC_SUCCESS);
  CHECK(h2.memory().bytes(b.buf, 257)[0] == 0x3C);
  CHECK(h2.memory().bytes(b.buf, 257)[255] == 0x3C);
  CHECK(h2.memory().bytes(b.buf, 257)[256] == 0x11);
}
