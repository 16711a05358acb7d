// The HCA's send pipeline: payload DMA over the host interface overlaps the wire (the next packet
// is staged as one starts), a host interface slower than the link throttles it, and an inline
// payload is not read over the host interface at all. Times in 2.56 ns edges of 4x EDR (64b/66b,
// 32 bytes per edge), HCA defaults: doorbell_to_wire 250 ns, PCIe gen3 x16 MPS 256.
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
constexpr Time kEdge = 2'560'000;

struct Starts : SendObserver {
  std::vector<Time> t;
  void on_injected(Hca&, const Packet& p) override { t.push_back(p.injected); }
};

const std::string kEdr = std::string("defaults: {link: {speed: EDR, width: 4x}, switch: {buffer_credits: 512}}\n") + kTwoHosts;
}  // namespace

TEST_CASE("HCA pipeline: 64 KiB RDMA WRITEs leave back to back, the next packet's DMA hidden under the current one",
          "[transport][hca]") {
  Fabric& f = build_fabric(kEdr, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 1 << 20, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 1 << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  Starts starts;
  a.hca->set_send_observer(&starts);
  At go([&] {
    for (int i = 0; i < 4; ++i) REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 65536, i)) == 0);
  });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  REQUIRE(starts.t.size() == 64);
  // The first packet: doorbell at 1.25 us, its 4096 bytes over PCIe gen3 x16 (14.4 GB/s) take
  // 284.375 ns, so it is ready at 1534.375 ns and starts on edge ceil(599.37) = 600 (1536 ns).
  CHECK(starts.t[0] == 600 * kEdge);
  // Each next packet is built, and its DMA (284.375 ns = 111.1 edges) started, when one starts:
  // it is ready long before the 129 or 130 edges the one on the wire takes (First: LRH+BTH+RETH
  // +4096+ICRC+VCRC = 4138 B + 2 delimiters -> 130 edges; others 4122 B -> 129). So each starts
  // as the previous ends, or one edge later when a flow-control packet or a SKIP goes between.
  int extra = 0;
  for (std::size_t k = 1; k < starts.t.size(); ++k) {
    const Time len = (k - 1) % 16 == 0 ? 130 : 129;
    const Time gap = (starts.t[k] - starts.t[k - 1]) / kEdge;
    INFO("packet " << k);
    CHECK((starts.t[k] - starts.t[k - 1]) % kEdge == 0);
    CHECK((gap == len || gap == len + 1));
    extra += static_cast<int>(gap - len);
  }
  // Link packets between them, one edge each: h1's flow-control packets (one per ACK it receives,
  // freeing its buffer: the ACKs of messages 0-2 come back while message 3 is still going out,
  // about 0.5 us after their message's last packet) and SKIPs (due every 4608 edges from link up:
  // edge 4608 is the only one between edges 600 and 600 + 4 x 2065 + 4).
  CHECK(extra == 3 + 1);
}

TEST_CASE("HCA pipeline: a PCIe gen3 x4 host interface throttles 4x EDR to its own rate", "[transport][hca]") {
  FabricOptions o = no_training();
  // gen3 x4: 8 GT/s x 128/130 x 4 / 8 x 256/280 = 3.60 GB/s: 4096 bytes take exactly 1137.5 ns.
  o.configure_hca = [](std::size_t, HcaConfig& c) { c.host.pcie_width = 4; };
  Fabric& f = build_fabric(kEdr, o);
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 1 << 20, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 1 << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  Starts starts;
  a.hca->set_send_observer(&starts);
  At go([&] { REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 65536, 1)) == 0); });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  REQUIRE(starts.t.size() == 16);
  // Ready at 1250 + 1137.5 ns = 2387.5 ns: edge ceil(932.6) = 933.
  CHECK(starts.t[0] == 933 * kEdge);
  // The next packet is staged, and its DMA starts, as soon as the previous one's DMA is done and it
  // is handed to the port: the DMA engine reads one payload after the other without a pause, so
  // packet k is ready at 1250 ns + (k + 1) x 1137.5 ns and starts on the next edge (the line is
  // idle in between: a flow-control packet or SKIP never delays one). The link runs at the host
  // interface's rate: 4096 B / 1137.5 ns = 28.8 Gb/s.
  for (std::size_t k = 0; k < starts.t.size(); ++k) {
    const Time ready = 1'250'000'000 + (k + 1) * 1'137'500'000;
    CHECK(starts.t[k] == (ready + kEdge - 1) / kEdge * kEdge);
  }
}

TEST_CASE("HCA pipeline: an IBV_SEND_INLINE payload is not read over the host interface", "[transport][hca]") {
  Fabric& f = build_fabric(kEdr, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  Starts starts;
  a.hca->set_send_observer(&starts);
  At go([&] {
    auto wr = write_wr(a, b, 0, 1024, 1);
    wr.send_flags |= IBV_SEND_INLINE;
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
  });
  At later([&] { REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 2048, 1024, 2)) == 0); });
  fire_at(*a.hca, 1 * kUs, &go);
  fire_at(*a.hca, 10 * kUs, &later);
  run_for(f, 1 * kMs);
  REQUIRE(starts.t.size() == 2);
  // Inline: the doorbell (1.25 us) and the first edge after it, ceil(488.28) = 489.
  CHECK(starts.t[0] == 489 * kEdge);
  // Not inline: 1024 bytes over PCIe first, 71.09375 ns: ready at 10,321.09375 ns, edge
  // ceil(4031.68) = 4032.
  CHECK(starts.t[1] == 4032 * kEdge);
}
