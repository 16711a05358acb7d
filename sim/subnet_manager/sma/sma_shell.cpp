#include "sim/subnet_manager/sma/sma_shell.h"

#include "sim/link/lrh.h"
#include "sim/subnet_manager/mad/mad_acceptance.h"
#include "sim/subnet_manager/mad/notice.h"
#include "sim/subnet_manager/mad/smp_packet.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

Packet* make_smp_packet(PacketPool& pool, const Smp& smp, Lid dlid, Lid slid) {
  Packet* p = pool.acquire();
  build_smp_packet(*p, encode_smp(smp), dlid, slid);
  p->created = ScheduledModule::now();
  return p;
}

void sync_live_port_info(PortInfo& info, const LinkPort& port) {
  const PortState st = port.state();
  info.port_state = static_cast<std::uint8_t>(st);
  const bool up = port.connected() && st != PortState::kDown;
  info.port_physical_state = up ? IB_PORT_PHYS_STATE_LINKUP : IB_PORT_PHYS_STATE_POLLING;
  if (up) {
    const LinkRate& r = port.rate();
    info.link_width_active = r.lanes == 1 ? IB_LINK_WIDTH_ACTIVE_1X
                             : r.lanes == 2 ? IB_LINK_WIDTH_ACTIVE_2X
                             : r.lanes == 4 ? IB_LINK_WIDTH_ACTIVE_4X
                             : r.lanes == 8 ? IB_LINK_WIDTH_ACTIVE_8X
                                            : IB_LINK_WIDTH_ACTIVE_12X;
    const unsigned bit = 1u << static_cast<unsigned>(r.speed);  // SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR
    info.link_speed_active = static_cast<std::uint8_t>(bit & 0x07 ? bit : IB_LINK_SPEED_ACTIVE_10);
    info.link_speed_ext_active = static_cast<std::uint8_t>((bit >> 4) & 0x0F);
  } else {
    info.link_width_active = 0;
    info.link_speed_active = 0;
    info.link_speed_ext_active = 0;
  }
  info.operational_vls = static_cast<std::uint8_t>(port.op_vls() == 1 ? 1 : port.op_vls() == 2 ? 2 : port.op_vls() == 4 ? 3
                                                   : port.op_vls() == 8 ? 4 : 5);
}

PortInfo power_up_port_info(const LinkPort& port, std::uint8_t speeds_enabled, std::uint8_t speeds_ext_enabled,
                            std::uint8_t widths_enabled, std::uint32_t mtu_bytes, unsigned hoq_life_code) {
  auto vl_code = [](unsigned n) -> std::uint8_t { return n == 1 ? 1 : n == 2 ? 2 : n == 4 ? 3 : n == 8 ? 4 : 5; };
  PortInfo pi;
  pi.local_port_num = port.number();
  pi.link_width_enabled = widths_enabled;
  pi.link_width_supported = widths_enabled;
  pi.link_speed_supported = speeds_enabled;
  pi.link_speed_enabled = speeds_enabled;
  pi.link_speed_ext_supported = speeds_ext_enabled;
  pi.link_speed_ext_enabled = speeds_ext_enabled;
  pi.link_down_default_state = IB_PORT_PHYS_STATE_POLLING;
  pi.mtu_cap = IB_MTU_LEN_4096;
  pi.neighbor_mtu = mtu_code_of_bytes(mtu_bytes);
  pi.vl_cap = vl_code(port.vl_cap());
  pi.vl_arbitration_high_cap = 64;
  pi.vl_arbitration_low_cap = 64;
  pi.hoq_life = static_cast<std::uint8_t>(hoq_life_code & 0x1F);
  pi.capability_mask = IB_PORT_CAP_HAS_SL_MAP | IB_PORT_CAP_HAS_TRAP;
  if (speeds_ext_enabled) pi.capability_mask |= IB_PORT_CAP_HAS_EXT_SPEEDS;
  sync_live_port_info(pi, port);
  return pi;
}

void store_vl_arbitration(SmaPort& port, const VlArbConfig& config) {
  port.vl_arbitration = {};
  for (std::size_t i = 0; i < config.low.size() && i < 2 * kVlArbBlockEntries; ++i)
    port.vl_arbitration[i / kVlArbBlockEntries].entries[i % kVlArbBlockEntries] = config.low[i];
  for (std::size_t i = 0; i < config.high.size() && i < 2 * kVlArbBlockEntries; ++i)
    port.vl_arbitration[2 + i / kVlArbBlockEntries].entries[i % kVlArbBlockEntries] = config.high[i];
  port.info.vl_high_limit = config.high_limit;
}

VlArbConfig vl_arbitration_of(const SmaPort& port) {
  VlArbConfig c;
  auto table = [&](unsigned first_block, unsigned cap) {
    std::vector<VlArbEntry> t;
    for (unsigned i = 0; i < cap && i < 2 * kVlArbBlockEntries; ++i)
      t.push_back(port.vl_arbitration[first_block + i / kVlArbBlockEntries].entries[i % kVlArbBlockEntries]);
    while (!t.empty() && t.back().weight == 0) t.pop_back();
    return t;
  };
  c.low = table(0, port.info.vl_arbitration_low_cap);
  c.high = table(2, port.info.vl_arbitration_high_cap);
  c.high_limit = port.info.vl_high_limit;
  return c;
}

SmaShell::SmaShell(ScheduledModule& module, PacketPool& pool, PacketLedger& ledger, SmaState state, DrNode node,
                   SmaTiming timing)
    : state_(std::move(state)), module_(module), pool_(pool), ledger_(ledger), node_(node), timing_(timing) {}

void SmaShell::discard() { ++stats_.discarded; }

void SmaShell::send_gmp(const Mad& mad, Lid dlid, std::uint8_t sl, PortNum port) {
  Packet* p = pool_.acquire();
  GmpAddress a;
  a.dlid = dlid;
  a.slid = own_lid(port);
  a.sl = sl;
  a.vl = gmp_vl(port, sl);
  build_gmp_packet(*p, mad, a);
  p->created = ScheduledModule::now();
  ledger_.management_created();
  send_gmp_packet(port, p);
}

void SmaShell::on_management_packet(Packet* p, PortNum port) {
  if (lrh_vl(p->header.data()) != kVl15) {
    // A data VL: only a GMP to QP1 (the node's GSI) comes here.
    const auto gmp = parse_gmp_packet(*p);
    pool_.release(p);
    if (!gmp || !is_unicast_lid(gmp->lrh.slid)) {
      ledger_.dropped(DropReason::kMalformed, true);
      return discard();
    }
    ledger_.management_delivered();
    for (const auto& [mgmt_class, client] : class_clients_)
      if (gmp->mad[1] == mgmt_class) return client->on_gsi_answer(*gmp, port);
    if (gmp->mad[1] == IB_MCLASS_COMM_MGMT) {
      // Communication management: the node's CM agent (cm/cm_agent.h), if one runs.
      if (!gsi_clients_.empty()) return gsi_clients_.back()->on_gsi_answer(*gmp, port);
      return discard();
    }
    if (gmp->mad[1] == IB_MCLASS_SUBN_ADM) {
      // The SA: requests (and ReportResps) for the SM (and its SA) on this node, answers (and
      // Reports, inform_info.h) for the node's client.
      const std::uint8_t method = gmp->mad[3];
      const bool report = method == IB_MAD_METHOD_REPORT;
      const bool answer = is_response_method(method) && method != IB_MAD_METHOD_REPORT_RESP;
      if (report || answer) {
        if (gsi_clients_.empty()) return discard();
        if (report) return gsi_clients_.front()->on_gsi_answer(*gmp, port);
        for (GsiClient* c : gsi_clients_) c->on_gsi_answer(*gmp, port);
        return;
      }
      if (sm_) return sm_->on_gmp(*gmp, port);
      return discard();
    }
    if (auto answer = on_gmp(*gmp, port)) {
      ++stats_.gmps_answered;
      // Back to the requester's LID on the SL it used; QP1 answers QP1 (the SM's GSI).
      const PortNum out = lid_route(gmp->lrh.slid, port);
      if (out == 0) return discard();
      send_gmp(*answer, gmp->lrh.slid, gmp->lrh.sl, out);
    }
    return;
  }
  const auto ud = parse_ud_send(*p);
  std::optional<Smp> smp;
  if (ud && ud->bth.dest_qp == 0 && p->payload_len == kMadBytes && p->payload.size() == kMadBytes &&
      qp0_accepts(p->payload.data(), kMadBytes))
    smp = decode_smp(p->payload.data());
  pool_.release(p);
  if (!smp) {
    ledger_.dropped(DropReason::kMalformed, true);
    return discard();
  }
  Job job{*smp, DrDecision{}, ud->lrh, port, ud->lrh.dlid != kLidPermissive};
  bool to_sm = false;
  if (job.smp.directed()) {
    job.decision = dr_route(job.smp, node_, job.by_lid ? kDrLocal : port);
    if (job.decision.action == DrAction::kDrop) {
      ledger_.dropped(DropReason::kMalformed, true);
      return discard();
    }
    // An answer back at the node that sent the request is the SM's.
    to_sm = job.decision.action == DrAction::kProcess && job.smp.direction;
  } else {
    to_sm = job.smp.method != IB_MAD_METHOD_GET && job.smp.method != IB_MAD_METHOD_SET;  // answers, traps
  }
  if (!to_sm && timing_.queue_depth != 0 && busy_ && queue_.size() > timing_.queue_depth) {
    // QP0's receive queue is full (its front is the SMP in service): the SMP is lost.
    ++stats_.overflowed;
    ledger_.dropped(DropReason::kVl15Overflow, true);
    return;
  }
  ledger_.management_delivered();
  if (job.smp.directed()) {
    if (to_sm) {
      if (!deliver_to_sm(job.smp, port, job.lrh.slid)) discard();
      return;
    }
  } else if (job.smp.method == IB_MAD_METHOD_TRAP_REPRESS) {
    return on_trap_repress(job.smp);
  } else if (to_sm) {
    if (!deliver_to_sm(job.smp, port, job.lrh.slid)) discard();
    return;
  }
  queue_.push_back(std::move(job));
  if (!busy_) start_next();
}

void SmaShell::start_next() {
  busy_ = true;
  const Job& job = queue_.front();
  const bool passing = job.smp.directed() && job.decision.action != DrAction::kProcess;
  module_.schedule<&SmaShell::smp_served>(ScheduledModule::now() + (passing ? timing_.dr_forward : timing_.process), this);
}

void SmaShell::smp_served() {
  Job job = std::move(queue_.front());
  queue_.pop_front();
  serve(job);
  busy_ = false;
  if (!queue_.empty()) start_next();
}

void SmaShell::serve(Job& job) {
  if (!job.smp.directed()) return answer(job);
  switch (job.decision.action) {
    case DrAction::kForward:
      ++stats_.forwarded;
      send_smp(job.smp, kLidPermissive, kLidPermissive, job.decision.port);
      return;
    case DrAction::kRouteByLid: {
      const PortNum out = lid_route(job.decision.lid, job.port);
      if (out == 0) return discard();
      ++stats_.forwarded;
      send_smp(job.smp, job.decision.lid, own_lid(out), out);
      return;
    }
    case DrAction::kProcess:
      return answer(job);
    case DrAction::kDrop:
      return discard();
  }
}

void SmaShell::answer(const Job& job) {
  if (const PortNum target = sma_port_info_target(state_, job.smp, job.port)) sync_port(target);
  const SmaResult r = sma_process(state_, job.smp, job.port, ScheduledModule::now());
  ++stats_.processed;
  if (r.m_key_violation) return report_bad_m_key(job.smp, r.port);
  if (r.applied) {
    ++stats_.sets_applied;
    apply(job.smp, r, job.port);
  }
  if (!r.respond) return;
  if (r.response.directed() && !job.by_lid) {
    send_directed(r.response, job.port);
    return;
  }
  // The request of an SM on this switch to the switch (send_from_sm; anything from the wire came
  // in on a port 1..N): the answer is the SM's, on no wire.
  if (sm_ && job.port == 0 && is_unicast_lid(job.lrh.slid) && job.lrh.slid == own_lid(0)) {
    deliver_to_sm(r.response, job.port, job.lrh.slid);
    return;
  }
  // LID-routed, or reached through a final LID-routed part: back by LID to the LRH SLID.
  const PortNum out = lid_route(job.lrh.slid, job.port);
  if (out == 0 || !is_unicast_lid(job.lrh.slid)) return discard();
  send_smp(r.response, job.lrh.slid, own_lid(out), out);
}

void SmaShell::report_bad_m_key(const Smp& bad, PortNum keyed) {
  ++stats_.m_key_violations;
  const Time now = ScheduledModule::now();
  if (now < bad_m_key_quiet_until_) return;  // a trap went out moments ago
  const PortInfo& info = state_.ports[keyed].info;
  const Lid own = own_lid(keyed);
  if (!is_unicast_lid(own)) return;  // no LID yet: nothing to send a trap from
  Smp trap;
  trap.mgmt_class = IB_MCLASS_SUBN_LID;
  trap.method = IB_MAD_METHOD_TRAP;
  trap.attribute_id = IB_MAD_ATTR_NOTICE;
  trap.transaction_id = kBadMKeyTrapTids + ++bad_m_key_traps_;
  trap.m_key = info.m_key;
  trap.data = encode_notice(make_trap_256(own, state_.is_switch() ? kNoticeProducerSwitch : kNoticeProducerCa, bad));
  if (sm_) {
    deliver_to_sm(trap, keyed, kLidPermissive);  // the SM runs on this node: no trap on the wire, no TrapRepress
  } else {
    const Lid sm_lid = info.master_sm_lid;
    const PortNum out = is_unicast_lid(sm_lid) ? lid_route(sm_lid, keyed) : 0;
    if (out == 0) return;  // no SM known yet
    send_smp(trap, sm_lid, own, out);
  }
  ++stats_.traps_sent;
  bad_m_key_quiet_until_ = now + 4096 * kNs * (std::uint64_t{1} << info.subnet_timeout);
}

void SmaShell::attach_sm(SmpReceiver* sm, PortNum port, const SmInfo& info) {
  sm_ = sm;
  state_.sm_info = info;
  state_.ports.at(port).info.capability_mask |= IB_PORT_CAP_IS_SM;
}

void SmaShell::send_from_sm(const Smp& smp, PortNum port, Lid dlid) {
  if (smp.directed()) {
    send_directed(smp, port);
    return;
  }
  const PortNum out = lid_route(dlid, port);
  if (out == 0 && port == 0 && is_unicast_lid(dlid) && dlid == own_lid(port)) {
    // To the SM's own node by LID (an SM on a switch Setting that switch's MFT for the SA): the
    // node's SMA serves it like any other, and answers the SM (answer()).
    Lrh lrh;
    lrh.dlid = lrh.slid = dlid;
    queue_.push_back(Job{smp, DrDecision{}, lrh, port, true});
    if (!busy_) start_next();
    return;
  }
  if (out == 0) return discard();
  send_smp(smp, dlid, own_lid(out), out);
}

bool SmaShell::deliver_to_sm(const Smp& smp, PortNum port, Lid slid) {
  if (!sm_) return false;
  sm_->on_smp(smp, port, slid);
  return true;
}

void SmaShell::send_smp(const Smp& smp, Lid dlid, Lid slid, PortNum port) {
  Packet* p = make_smp_packet(pool_, smp, dlid, slid);
  ledger_.management_created();
  send_packet(port, p);
}

bool SmaShell::send_directed(Smp smp, PortNum local_port) {
  const DrDecision d = dr_route(smp, node_, kDrLocal);
  switch (d.action) {
    case DrAction::kForward:
      send_smp(smp, kLidPermissive, kLidPermissive, d.port);
      return true;
    case DrAction::kProcess:
      if (smp.direction) {
        if (!deliver_to_sm(smp, local_port, kLidPermissive)) discard();
        return true;
      }
      // A request to this node itself (HopCount 0): the local SMA serves it like any other.
      queue_.push_back(Job{smp, d, Lrh{}, local_port, false});
      if (!busy_) start_next();
      return true;
    case DrAction::kRouteByLid: {
      const PortNum out = lid_route(d.lid, local_port);
      if (out == 0) break;
      send_smp(smp, d.lid, own_lid(out), out);
      return true;
    }
    case DrAction::kDrop:
      break;
  }
  discard();
  return false;
}

}  // namespace ibfsim
