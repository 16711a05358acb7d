// MADs and SMPs as the management agents receive them: the MAD header, QP0's acceptance check,
// the SMP decoder, the directed-route walk of a switch and of a CA, the SMA's Get/Set on a switch
// and a CA (sma_process: any attribute, modifier and M_Key), and the Congestion Control agents of
// a switch and a CA (class 0x21). Input: one 256-byte MAD (shorter inputs are zero-padded), then
// an arrival port byte.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/mad_acceptance.h"
#include "sim/subnet_manager/mad/mad_header.h"
#include "sim/subnet_manager/mad/smp.h"
#include "sim/subnet_manager/sma/sma.h"

using namespace ibfsim;

namespace {

// As tests/subnet_manager/sma_test.cpp's: a 4-port switch and a 2-port CA, M_Key protected (so
// that both the M_Key check and what passes it are reached).
SmaState small_switch() {
  SmaState s;
  s.node_info.node_type = IB_NODE_TYPE_SWITCH;
  s.node_info.num_ports = 4;
  s.node_info.node_guid = 0x0002c90300000011ull;
  s.description = "sw1";
  s.ports.resize(5);
  s.ports[0].guid = 0x0002c90300000011ull;
  for (unsigned p = 0; p <= 4; ++p) {
    SmaPort& port = s.ports[p];
    port.p_keys.assign(32, 0);
    port.p_keys[0] = 0xFFFF;
    port.info.mtu_cap = IB_MTU_LEN_4096;
    port.info.neighbor_mtu = IB_MTU_LEN_4096;
    port.info.vl_cap = 4;
    port.info.operational_vls = 4;
    port.info.vl_arbitration_low_cap = 32;
    port.info.vl_arbitration_high_cap = 8;
    port.info.port_state = IB_LINK_DOWN;
  }
  s.ports[0].info.port_state = IB_LINK_ACTIVE;
  s.ports[0].info.m_key = 0x1234;
  s.ports[0].info.m_key_protect_bits = 2;
  s.ports[3].info.port_state = IB_LINK_INIT;
  s.sl_to_vl.assign(5, std::vector<SlToVlMappingTable>(5));
  s.switch_info.linear_fdb_cap = 0xC000;
  s.switch_info.multicast_fdb_cap = 0x4000;
  s.switch_info.optimized_sl_to_vl_mapping_programming = 1;
  return s;
}

SmaState small_ca() {
  SmaState s;
  s.node_info.node_type = IB_NODE_TYPE_CA;
  s.node_info.num_ports = 2;
  s.node_info.node_guid = 0x0002c90301000005ull;
  s.ports.resize(3);
  for (unsigned p = 1; p <= 2; ++p) {
    s.ports[p].guid = 0x0002c90301000005ull + p;
    s.ports[p].p_keys.assign(32, 0);
    s.ports[p].info.mtu_cap = IB_MTU_LEN_2048;
    s.ports[p].info.vl_cap = 3;
    s.ports[p].info.operational_vls = 3;
    s.ports[p].info.port_state = IB_LINK_INIT;
  }
  s.sl_to_vl.assign(1, std::vector<SlToVlMappingTable>(3));
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Mad mad{};
  std::copy(data, data + std::min(size, mad.size()), mad.begin());
  const PortNum arrival = size > mad.size() ? static_cast<PortNum>(data[mad.size()]) : 1;
  (void)decode_mad_header(mad.data());
  (void)qp1_accepts(mad.data(), mad.size());
  if (qp0_accepts(mad.data(), mad.size())) {
    if (auto smp = decode_smp(mad.data())) {
      for (const DrNode node : {DrNode{true, 4}, DrNode{false, 2}}) {
        Smp walked = *smp;
        (void)dr_route(walked, node, std::min<PortNum>(arrival, node.num_ports));
      }
      SmaState sw = small_switch();
      (void)sma_port_info_target(sw, *smp, arrival % 5);
      (void)sma_process(sw, *smp, arrival % 5);
      SmaState ca = small_ca();
      (void)sma_port_info_target(ca, *smp, 1 + arrival % 2);
      (void)sma_process(ca, *smp, 1 + arrival % 2);
    }
  }
  SwitchCongestionConfig swc;
  (void)switch_cc_agent(mad, swc, 4);
  CaCongestionConfig cac;
  (void)ca_cc_agent(mad, cac);
  return 0;
}
