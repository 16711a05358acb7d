#include "sim/subnet_manager/sma/hca_sma.h"

namespace ibfsim {

namespace {

constexpr std::uint16_t kDeviceIdHca = 0x1017;  // as a ConnectX-5 reports it
constexpr std::uint32_t kVendorMellanox = 0x0002C9;

SmaState initial_state(Hca& hca, const HcaSmaConfig& c) {
  const unsigned n = hca.num_ports();
  SmaState s;
  NodeInfo& ni = s.node_info;
  ni.node_type = IB_NODE_TYPE_CA;
  ni.num_ports = static_cast<std::uint8_t>(n);
  ni.system_image_guid = ni.node_guid = c.node_guid;
  ni.device_id = kDeviceIdHca;
  ni.vendor_id = kVendorMellanox;
  s.description = c.description;
  std::vector<std::uint16_t> keys = hca.p_keys();
  keys.resize((keys.size() + kPKeyBlockEntries - 1) / kPKeyBlockEntries * kPKeyBlockEntries, 0);
  if (keys.empty()) keys.assign(kPKeyBlockEntries, 0);
  ni.partition_cap = static_cast<std::uint16_t>(keys.size());
  s.ports.resize(n + 1);
  s.sl_to_vl.assign(1, std::vector<SlToVlMappingTable>(n + 1));
  for (unsigned p = 1; p <= n; ++p) {
    auto pick = [&](const std::vector<std::uint8_t>& v, std::uint8_t all) { return v.empty() ? all : v.at(p); };
    SmaPort& port = s.ports[p];
    const PortNum pn = static_cast<PortNum>(p);
    port.guid = c.node_guid + p;
    port.info = power_up_port_info(hca.port(pn), pick(c.speeds, 0x07), pick(c.speeds_ext, 0x0F), pick(c.widths, 0x1F),
                                   4096, 20);
    port.info.lid = hca.lid(pn);
    port.info.lmc = hca.lmc(pn);
    port.p_keys = keys;
    store_vl_arbitration(port, hca.vl_arbitration(pn));
    for (unsigned sl = 0; sl < 16; ++sl)
      s.sl_to_vl[0][p].vl_of_sl[sl] = hca.sl_to_vl_table(pn).vl(static_cast<std::uint8_t>(sl));
  }
  return s;
}

}  // namespace

HcaSma::HcaSma(Hca& hca, HcaSmaConfig config)
    : SmaShell(hca, hca.pool(), hca.ledger(), initial_state(hca, config),
               DrNode{false, static_cast<PortNum>(hca.num_ports())}, config.timing),
      hca_(hca) {
  hca_.set_management_agent(this);
}

void HcaSma::sync_port(PortNum p) { sync_live_port_info(state_.ports[p].info, hca_.port(p)); }

void HcaSma::apply(const Smp& request, const SmaResult& result, PortNum) {
  const PortNum p = result.port;
  const SmaPort& port = state_.ports.at(p);
  switch (request.attribute_id) {
    case IB_MAD_ATTR_PORT_INFO: {
      const PortInfo& pi = port.info;
      LinkPort& lp = hca_.port(p);
      hca_.set_port_lid(p, pi.lid, pi.lmc);
      const unsigned vls = data_vls_of_code(pi.operational_vls);
      if (vls != lp.op_vls()) lp.set_op_vls(vls);
      if (pi.port_state != static_cast<std::uint8_t>(lp.state())) lp.set_state(static_cast<PortState>(pi.port_state));
      if (hca_.vl_arbitration(p).high_limit != pi.vl_high_limit) hca_.set_vl_arbitration(p, vl_arbitration_of(port));
      hca_.on_credits(lp);  // queued data may go once the port is Active
      return;
    }
    case IB_MAD_ATTR_SLVL_TABLE:
      hca_.set_sl_to_vl(p, SlToVlTable::from(state_.sl_to_vl[0][p].vl_of_sl));
      return;
    case IB_MAD_ATTR_VL_ARBITRATION:
      hca_.set_vl_arbitration(p, vl_arbitration_of(port));
      return;
    case IB_MAD_ATTR_P_KEY_TABLE:
      hca_.set_p_keys(port.p_keys);
      return;
    default:
      return;
  }
}

std::optional<Mad> HcaSma::on_gmp(const ReceivedGmp& gmp, PortNum port) {
  if (is_response_method(gmp.mad[3])) {
    if (sm_) sm_->on_gmp(gmp, port);
    return std::nullopt;
  }
  if (gmp.mad[1] != IB_MCLASS_CC) return std::nullopt;
  CaCongestionConfig c = hca_.cc_throttle() ? hca_.cc_throttle()->config() : CaCongestionConfig{};
  const Mad answer = ca_cc_agent(gmp.mad, c);
  if (gmp.mad[3] == IB_MAD_METHOD_SET && decode_cc_mad(answer).header.status == IB_MAD_STATUS_SUCCESS)
    hca_.set_congestion_control(c);
  return answer;
}

}  // namespace ibfsim
