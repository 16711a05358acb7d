#include "sim/subnet_manager/mad/gmp_packet.h"

#include "sim/core/error.h"
#include "sim/subnet_manager/mad/mad_acceptance.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

void build_gmp_packet(Packet& p, const Mad& mad, const GmpAddress& a) {
  IBFSIM_CHECK(a.vl < 15, "a GMP travels on a data VL, not VL15");
  UdSendFields f;
  f.vl = a.vl;
  f.sl = a.sl;
  f.dlid = a.dlid;
  f.slid = a.slid;
  f.p_key = a.p_key;
  f.dest_qp = kGsiQp;
  f.q_key = kGsiQKey;
  f.src_qp = kGsiQp;
  build_ud_send(p, f, static_cast<std::uint32_t>(mad.size()), mad.data());
  p.management = true;
}

std::optional<ReceivedGmp> parse_gmp_packet(const Packet& p) {
  const auto ud = parse_ud_send(p);
  if (!ud || ud->lrh.vl == 15 || ud->bth.dest_qp != kGsiQp || ud->deth.q_key != kGsiQKey || ud->imm) return std::nullopt;
  if (p.payload_len != kMadBytes || p.payload.size() != kMadBytes || !qp1_accepts(p.payload.data(), kMadBytes))
    return std::nullopt;
  ReceivedGmp g;
  std::copy(p.payload.begin(), p.payload.end(), g.mad.begin());
  g.lrh = ud->lrh;
  g.src_qp = ud->deth.src_qp;
  return g;
}

}  // namespace ibfsim
