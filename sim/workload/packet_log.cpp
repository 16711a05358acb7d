#include "sim/workload/packet_log.h"

#include <fmt/format.h>

#include "sim/network/lrh.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

PacketLog::PacketLog()
    : text_("packet_id,inject_time_fs,source,slid,dlid,opcode,dest_qp,src_qp,psn,q_key,payload_bytes,wire_bytes\n") {}

void PacketLog::on_injected(Hca& hca, const Packet& p) {
  auto ud = parse_ud_send(p);
  if (!ud) return;
  fmt::format_to(std::back_inserter(text_), "{},{},{},{},{},{},{},{},{},{},{},{}\n", p.id, p.injected,
                 hca.basename(), ud->lrh.slid, ud->lrh.dlid, ud->bth.opcode, ud->bth.dest_qp, ud->deth.src_qp,
                 ud->bth.psn, ud->deth.q_key, p.payload_len, p.wire_bytes());
}

}  // namespace ibfsim
