// The output of a send engine whose port is Ethernet (SendEngine::attach_ethernet): the same send
// queues, staging and DMA as on InfiniBand, without credits, VL arbitration tables, SMPs or GMPs.
// A packet leaves as the QP built it, reframed as RoCE v2 at the last moment; a VL whose next
// packet's priority is paused by PFC waits (roce_priority.h).
#include "sim/core/error.h"
#include "sim/ethernet/ethernet_port.h"
#include "sim/transport/hca.h"
#include "sim/transport/roce/roce_hca_port.h"
#include "sim/transport/roce/roce_priority.h"
#include "sim/transport/send_engine.h"

namespace ibfsim {

void SendEngine::ethernet_try_send() {
  EthernetPort& port = *eth_;
  if (!port.connected() || !port.idle()) return;  // Hca::on_tx_done looks again
  // DCQCN's CNPs go ahead of data.
  if (HcaDcqcn* d = hca_.dcqcn(); d && d->transmit_cnp(n_)) return;
  for (;;) {
    prepare();
    std::uint16_t ready = 0;
    for (unsigned v = 0; v <= kMaxDataVls; ++v)
      if ((queued_vls_ >> v & 1) && candidate(static_cast<std::uint8_t>(v)) == PortOutput::Candidacy::kReady &&
          !port.paused(roce_frame_priority(*queues_[v].front().p, *roce_)))  // PFC: Hca::on_tx_ready looks again
        ready = static_cast<std::uint16_t>(ready | 1u << v);
    surveyed();  // arms the wake-ups for payloads still in DMA and congestion control's delays
    if (!ready) return;
    unsigned v = eth_next_vl_;
    while (!(ready >> v & 1)) v = (v + 1) % (kMaxDataVls + 1);
    eth_next_vl_ = static_cast<std::uint8_t>((v + 1) % (kMaxDataVls + 1));
    const auto vl = static_cast<std::uint8_t>(v);
    Packet* p = take(vl);
    auto addressing = roce_addressing_for(*p, *roce_, *book_);
    if (!addressing) {  // a DLID (or GID) that names no host of the fabric: nothing to send it to
      taken_qp_ = nullptr;
      drop_unsent(p, DropReason::kUnknownDlid);
      continue;
    }
    // With DCQCN, data is ECN-capable (a QP's own traffic class may already say so).
    if (hca_.dcqcn() && addressing->ecn == ecn::kNotEct) addressing->ecn = ecn::kEct0;
    reframe_as_roce(*p, *addressing);
    const Time start = port.transmit(p);
    sent(vl, p, start);
    return;
  }
}

}  // namespace ibfsim
