#include "sim/subnet_manager/sma/router_sma.h"

namespace ibfsim {

namespace {

constexpr std::uint16_t kDeviceIdRouter = 0xB000;
constexpr std::uint32_t kVendorMellanox = 0x0002C9;

SmaState initial_state(Router& r, const RouterSmaConfig& c) {
  const unsigned n = r.num_ports();
  SmaState s;
  NodeInfo& ni = s.node_info;
  ni.node_type = IB_NODE_TYPE_ROUTER;
  ni.num_ports = static_cast<std::uint8_t>(n);
  ni.system_image_guid = ni.node_guid = c.node_guid;
  ni.device_id = kDeviceIdRouter;
  ni.vendor_id = kVendorMellanox;
  ni.partition_cap = kPKeyBlockEntries;
  s.description = c.description;
  s.ports.resize(n + 1);
  s.sl_to_vl.assign(1, std::vector<SlToVlMappingTable>(n + 1));
  for (unsigned p = 1; p <= n; ++p) {
    SmaPort& port = s.ports[p];
    const PortNum pn = static_cast<PortNum>(p);
    port.guid = c.node_guid + p;
    port.info = power_up_port_info(r.port(pn), 0x07, 0x0F, 0x1F, 4096, 20);
    port.info.lid = r.port_lid(pn);
    port.p_keys.assign(kPKeyBlockEntries, 0);
    port.p_keys[0] = 0xFFFF;
    store_vl_arbitration(port, r.vl_arbitration(pn));
    const PortNum other = p == 1 && n > 1 ? 2 : 1;
    for (unsigned sl = 0; sl < 16; ++sl)
      s.sl_to_vl[0][p].vl_of_sl[sl] = r.sl_to_vl_table(other, pn).vl(static_cast<std::uint8_t>(sl));
  }
  return s;
}

}  // namespace

RouterSma::RouterSma(Router& router, RouterSmaConfig config)
    : SmaShell(router, router.pool(), router.ledger(), initial_state(router, config),
               DrNode{false, static_cast<PortNum>(router.num_ports())}, config.timing),
      router_(router) {
  router_.set_management_agent(this);
}

void RouterSma::sync_port(PortNum p) { sync_live_port_info(state_.ports[p].info, router_.port(p)); }

void RouterSma::apply(const Smp& request, const SmaResult& result, PortNum) {
  const PortNum p = result.port;
  const SmaPort& port = state_.ports.at(p);
  switch (request.attribute_id) {
    case IB_MAD_ATTR_PORT_INFO: {
      const PortInfo& pi = port.info;
      LinkPort& lp = router_.port(p);
      router_.set_port_lid(p, pi.lid, pi.lmc);
      const unsigned vls = data_vls_of_code(pi.operational_vls);
      if (vls != lp.op_vls()) lp.set_op_vls(vls);
      if (pi.port_state != static_cast<std::uint8_t>(lp.state())) lp.set_state(static_cast<PortState>(pi.port_state));
      if (router_.vl_arbitration(p).high_limit != pi.vl_high_limit) router_.set_vl_arbitration(p, vl_arbitration_of(port));
      router_.on_credits(lp);
      return;
    }
    case IB_MAD_ATTR_SLVL_TABLE: {
      // The SM programs it as a CA port's table: it applies to everything leaving by port p.
      const SlToVlTable t = SlToVlTable::from(state_.sl_to_vl[0][p].vl_of_sl);
      for (unsigned in = 1; in <= router_.num_ports(); ++in) router_.set_sl_to_vl(static_cast<PortNum>(in), p, t);
      return;
    }
    case IB_MAD_ATTR_VL_ARBITRATION:
      router_.set_vl_arbitration(p, vl_arbitration_of(port));
      return;
    default:
      return;
  }
}

}  // namespace ibfsim
