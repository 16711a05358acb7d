#include "sim/ethernet/l3_forwarding.h"
#include "sim/transport/cnp.h"

#include "sim/link/vcrc.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"

namespace ibfsim {

void build_cnp(Packet& p, const CnpFields& f) {
  const std::size_t bth_at = kLrhBytes + (f.grh ? kGrhBytes : 0);
  p.header_len = static_cast<std::uint16_t>(bth_at + kBthBytes);
  p.payload_len = 0;
  p.pad_len = 0;
  p.has_icrc = true;
  p.payload.clear();
  Lrh lrh;
  lrh.vl = f.vl;
  lrh.sl = f.sl;
  lrh.lnh = f.grh ? kLnhIbaGlobal : kLnhIbaLocal;
  lrh.dlid = f.dlid;
  lrh.slid = f.slid;
  lrh.pkt_len = static_cast<std::uint16_t>(p.pkt_len_words());
  encode_lrh(lrh, &p.header[0]);
  if (f.grh) {
    Grh g = *f.grh;
    g.nxt_hdr = kGrhNxtHdrIba;
    g.pay_len = static_cast<std::uint16_t>(kBthBytes + kIcrcBytes);
    encode_grh(g, &p.header[kLrhBytes]);
  }
  Bth bth;
  bth.opcode = kOpcodeCnp;
  bth.p_key = f.p_key;
  bth.becn = true;
  bth.dest_qp = f.dest_qp;
  encode_bth(bth, &p.header[bth_at]);
  write_icrc(p);
  write_vcrc(p);
}

std::size_t bth_offset(const Packet& p) {
  // RoCE v2: the BTH follows the UDP header (8 bytes, whose ports end the L3 decision bytes).
  if (p.ethernet()) return l3_decision_bytes(p.header.data(), p.header_len) + 4;
  switch (lrh_lnh(p.header.data())) {
    case kLnhIbaLocal: return kLrhBytes;
    case kLnhIbaGlobal: return kLrhBytes + kGrhBytes;
    default: return 0;
  }
}

bool is_cnp(const Packet& p) {
  const std::size_t at = bth_offset(p);
  return at != 0 && p.header_len >= at + kBthBytes && p.header[at] == kOpcodeCnp;
}

}  // namespace ibfsim
