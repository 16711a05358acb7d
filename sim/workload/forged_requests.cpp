#include "sim/workload/forged_requests.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/transport/opcode.h"
#include "sim/transport/psn.h"
#include "sim/transport/transport_packet.h"

namespace ibfsim {

namespace {
constexpr std::uint8_t kPoison = 0xEE;     // what a forged WRITE would leave in the region
constexpr std::uint32_t kForgedBytes = 64;  // payload of each forged WRITE (at most the region)
}  // namespace

ForgedRequests::ForgedRequests(const AttackSpec& spec, Hca& attacker, const VerbsFlow::Connection& target, Lid slid,
                               std::uint16_t p_key, VerbsFlowOwner* owner)
    : Attack(spec), attacker_(attacker), target_(target), slid_(slid), p_key_(p_key), owner_(owner) {}

void ForgedRequests::setup(Time begin) { attacker_.schedule<&ForgedRequests::packet_due>(begin, this); }

void ForgedRequests::packet_due() {
  const std::uint32_t len = static_cast<std::uint32_t>(std::min<std::uint64_t>(kForgedBytes, target_.target_len));
  TransportHeaders h;
  h.lrh.sl = target_.sl;
  h.lrh.vl = attacker_.sl_to_vl(1, target_.sl);
  h.lrh.dlid = target_.responder_lid;
  h.lrh.slid = slid_;
  h.bth.opcode = kOpcodeRcBase | op::kRdmaWriteOnly;
  h.bth.p_key = p_key_;
  h.bth.dest_qp = target_.responder_qpn;
  h.bth.ack_req = true;
  h.bth.psn = psn_add(target_.initial_psn, static_cast<std::int64_t>(sent_));
  h.reth = Reth{target_.target_va, target_.rkey, len};
  const std::vector<std::uint8_t> payload(len, kPoison);
  Packet p;
  build_transport_packet(p, h, len, attacker_.carry_payload() ? payload.data() : nullptr);
  attacker_.send_raw(p);
  ++sent_;
  if (!done()) attacker_.schedule<&ForgedRequests::packet_due>(attacker_.now() + spec_.interval, this);
  else if (owner_) owner_->flow_progress();
}

nlohmann::json ForgedRequests::results() const {
  nlohmann::json j = common_results();
  j["slid"] = slid_;
  j["p_key"] = p_key_;
  j["packets_sent"] = sent_;
  return j;
}

std::string ForgedRequests::summary() const {
  return fmt::format("attack {} ({} from {} on {}): {} of {} packets sent, SLID {}, P_Key {:#06x}", spec_.name,
                     attack_kind_name(spec_.kind), spec_.from, spec_.target, sent_, spec_.packets, slid_, p_key_);
}

}  // namespace ibfsim
