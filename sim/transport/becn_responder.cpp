#include "sim/transport/becn_responder.h"

namespace ibfsim {

CnpFields cnp_for(const Lrh& lrh, const std::optional<Grh>& grh, const Bth& bth, Qpn source_qp, Lid my_lid,
                  std::uint8_t vl, const std::array<std::uint8_t, 16>& my_gid) {
  CnpFields f;
  f.sl = lrh.sl;
  f.vl = vl;
  f.dlid = lrh.slid;
  f.slid = my_lid;
  f.p_key = bth.p_key;
  f.dest_qp = source_qp;
  if (grh) {
    Grh g;
    g.tclass = grh->tclass;
    g.flow_label = grh->flow_label;
    g.hop_lmt = grh->hop_lmt;
    g.sgid = my_gid;
    g.dgid = grh->sgid;
    f.grh = g;
  }
  return f;
}

}  // namespace ibfsim
