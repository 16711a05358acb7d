// The subnet manager's bring-up as seen on the wire (Vol1 ch14): the capture of an in-band bring-up
// of leaf_spine_4x2x4 (16 hosts, 6 switches, SM on h1) is decoded packet by packet.
//   R2: every SMP travels on VL15 as a UD SEND to QP0, and VL15 carries nothing else.
//   R40: no port is set Armed or Active before every LID and LFT block the SM programs has been
//        answered, and every port ends Active.
#include <catch2/catch.hpp>

#include <pcap/pcap.h>

#include <filesystem>
#include <set>

#include "sim/fabric/fabric.h"
#include "sim/fabric/topology_loader.h"
#include "sim/report/erf_record.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/transport/ud_send_packet.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

struct Captured {
  std::uint64_t time_ns;
  std::vector<std::uint8_t> frame;  // LRH .. VCRC
};

std::vector<Captured> read_capture(const std::string& path) {
  std::vector<Captured> out;
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  if (!pc) throw std::runtime_error(err);
  pcap_pkthdr* h;
  const u_char* data;
  while (pcap_next_ex(pc, &h, &data) == 1) {
    if (data[8] != kErfTypeInfiniband) continue;
    out.push_back({static_cast<std::uint64_t>(h->ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(h->ts.tv_usec),
                   std::vector<std::uint8_t>(data + 16, data + h->caplen)});
  }
  pcap_close(pc);
  return out;
}

}  // namespace

TEST_CASE("R40 (ch14): ports go Armed then Active only after every LID and LFT is programmed, and R2 all SMPs use VL15 and QP0",
          "[compliance][R40][R2][ch14]") {
  const std::string dir = scratch_dir("r40");
  const Topology topo =
      load_topology_file(std::string(IBFSIM_SOURCE_DIR) + "/tests/subnet_manager/golden/leaf_spine_4x2x4/topology.net");
  FabricOptions o;
  o.pcap_path = dir + "/trace.pcap";
  o.subnet_manager = SubnetManagerSettings{*topo.find_node("h1"), 1, {}};
  Fabric& f = *new Fabric(topo, o);
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord&) { sc_core::sc_pause(); });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f.subnet_manager()->configured());
  f.finish();

  std::set<std::uint64_t> config_tids;  // LID PortInfo Sets, SwitchInfo and LFT Sets
  std::uint64_t last_config_answer = 0, first_activation = ~0ull, smps = 0, armed = 0, active = 0;
  std::set<Lid> lids_set;
  for (const Captured& c : read_capture(dir + "/trace.pcap")) {
    Packet p;
    const std::uint8_t vl = c.frame[0] >> 4;
    // Everything captured during bring-up is an SMP: VL15, UD SEND Only (0x64) to QP0, 256-byte MAD.
    REQUIRE(vl == 15);
    REQUIRE(c.frame.size() == 290);
    const std::uint8_t* bth = c.frame.data() + 8;
    CHECK(bth[0] == 0x64);
    CHECK((bth[5] << 16 | bth[6] << 8 | bth[7]) == 0);  // DestQP 0
    const auto smp = decode_smp(c.frame.data() + 28);
    REQUIRE(smp.has_value());
    ++smps;
    const bool set = smp->method == IB_MAD_METHOD_SET;
    if (set && smp->attribute_id == IB_MAD_ATTR_PORT_INFO) {
      const PortInfo pi = decode_port_info(smp->data.data());
      if (pi.port_state == IB_LINK_ARMED || pi.port_state == IB_LINK_ACTIVE) {
        first_activation = std::min(first_activation, c.time_ns);
        // Counted once per request: on its first hop, out of the SM's host.
        if (smp->hop_pointer == 1) (pi.port_state == IB_LINK_ARMED ? armed : active) += 1;
      } else {
        config_tids.insert(smp->transaction_id);
        if (pi.lid != 0) lids_set.insert(pi.lid);
      }
    }
    if (set && (smp->attribute_id == IB_MAD_ATTR_LIN_FWD_TBL || smp->attribute_id == IB_MAD_ATTR_SWITCH_INFO))
      config_tids.insert(smp->transaction_id);
    if (smp->method == IB_MAD_METHOD_GET_RESP && config_tids.count(smp->transaction_id))
      last_config_answer = std::max(last_config_answer, c.time_ns);
  }
  CHECK(smps > 0);
  CHECK(last_config_answer > 0);
  CHECK(first_activation > last_config_answer);
  // 16 HCA ports and 6 switches took LIDs 1..22: on the wire 21 of them, since h1's own Sets are
  // answered by h1's SMA without crossing a link. Likewise 16 + 16 + 16 = 48 cabled ports (hosts,
  // leaf ports to hosts, leaf-spine links) went Armed, then Active: 47 Sets of each on the wire.
  CHECK(lids_set.size() == 21);
  CHECK(*lids_set.rbegin() == 22);
  CHECK(armed == 47);
  CHECK(active == 47);
  for (const TopoCable& c : topo.cables) {
    CHECK(f.port(c.node_a, c.port_a).state() == PortState::kActive);
    CHECK(f.port(c.node_b, c.port_b).state() == PortState::kActive);
  }
  std::filesystem::remove_all(dir);
}
