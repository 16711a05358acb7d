#include "sim/workload/packet_log.h"

#include <fmt/format.h>

#include "sim/link/lrh.h"
#include "sim/report/time_text.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

PacketLog::PacketLog()
    : text_("packet_id,inject_time_ns,source,slid,dlid,opcode,dest_qp,src_qp,psn,q_key,payload_bytes,wire_bytes,"
            "ieth_rkey\n") {}

void PacketLog::on_injected(Hca& hca, const Packet& p) {
  auto ud = parse_ud_send(p);
  if (!ud) {
    // Any other transport packet (verbs QPs: RC, UC, UD with immediate, ACKs, READ responses):
    // src_qp and q_key are those of a DETH, empty without one; ieth_rkey the R_Key a SEND with
    // Invalidate carries, empty on other packets.
    const ParsedPacket t = parse_transport_packet(p);
    if (!t.ok()) return;
    const bool deth = (t.ext & kExtDeth) != 0;
    fmt::format_to(std::back_inserter(text_), "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.id, ns_text(p.injected),
                   hca.basename(), t.h.lrh.slid, t.h.lrh.dlid, t.h.bth.opcode, t.h.bth.dest_qp,
                   deth ? std::to_string(t.h.deth.src_qp) : "", t.h.bth.psn,
                   deth ? std::to_string(t.h.deth.q_key) : "", p.payload_len, p.wire_bytes(),
                   (t.ext & kExtIeth) ? std::to_string(t.h.ieth.r_key) : "");
    return;
  }
  fmt::format_to(std::back_inserter(text_), "{},{},{},{},{},{},{},{},{},{},{},{},\n", p.id, ns_text(p.injected),
                 hca.basename(), ud->lrh.slid, ud->lrh.dlid, ud->bth.opcode, ud->bth.dest_qp, ud->deth.src_qp,
                 ud->bth.psn, ud->deth.q_key, p.payload_len, p.wire_bytes());
}

}  // namespace ibfsim
