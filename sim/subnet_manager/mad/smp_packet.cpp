#include "sim/subnet_manager/mad/smp_packet.h"

#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

void build_smp_packet(Packet& p, const Mad& mad, Lid dlid, Lid slid, std::uint8_t sl) {
  UdSendFields f;
  f.vl = kSmpVl;
  f.sl = sl;
  f.dlid = dlid;
  f.slid = slid;
  f.p_key = 0xFFFF;
  f.dest_qp = 0;
  f.q_key = 0;
  f.src_qp = 0;
  build_ud_send(p, f, static_cast<std::uint32_t>(mad.size()), mad.data());
  p.management = true;
}

}  // namespace ibfsim
