#include "sim/transport/receive_engine.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/vcrc.h"
#include "sim/transport/bth.h"
#include "sim/transport/cnp.h"
#include "sim/transport/hca.h"
#include "sim/transport/icrc.h"
#include "sim/transport/p_key.h"
#include "sim/transport/q_key.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/roce/roce_hca_port.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

namespace {
// Moves the boundary between payload and pad of a received packet to `payload_len` (the bytes
// are unchanged: what was pad is zeros).
void split_payload(Packet& p, std::uint32_t payload_len, bool carried) {
  const std::uint32_t body = p.payload_len + p.pad_len;
  IBFSIM_CHECK(payload_len <= body && body - payload_len <= 3, "payload split outside the packet body");
  if (carried) p.payload.resize(payload_len, 0);
  p.payload_len = payload_len;
  p.pad_len = static_cast<std::uint8_t>(body - payload_len);
}

// An RC response (READ response, ACK, atomic ACK) arriving at its requester.
bool is_rc_response(std::uint8_t opcode) {
  return opcode_service(opcode) == kOpcodeRcBase && opcode_operation(opcode) >= op::kRdmaReadRespFirst &&
         opcode_operation(opcode) <= op::kAtomicAcknowledge;
}
}  // namespace

ReceiveEngine::ReceiveEngine(Hca& hca, const HostInterfaceConfig& host, unsigned num_ports)
    : hca_(hca), dma_(host), discards_(num_ports) {}

void ReceiveEngine::drop(PortNum n, Packet* p, DropReason reason) {
  hca_.ledger().dropped(reason, counts_as_management(*p));
  ++discards_[n - 1][static_cast<int>(reason)];
  free_buffer(n, *p);
  hca_.pool().release(p);
}

void ReceiveEngine::free_buffer(PortNum n, const Packet& p) {
  if (!p.ethernet()) hca_.link(n).free_rx(lrh_vl(p.header.data()), credits_for_bytes(p.wire_bytes()));
}

void ReceiveEngine::link_discard(PortNum n, Packet* p, DropReason reason) {
  hca_.ledger().dropped(reason, counts_as_management(*p));
  ++discards_[n - 1][static_cast<int>(reason)];
  hca_.pool().release(p);
}

// Inline: on the path of every packet delivered.
inline void ReceiveEngine::delivered(PortNum n, Packet* p) {
  hca_.ledger().delivered();
  if (observer_) observer_->on_delivered(hca_, *p, hca_.now());
  free_buffer(n, *p);
  hca_.pool().release(p);
}

inline void ReceiveEngine::check_payload(const Packet& p) {
  if (p.payload.empty()) return;
  for (std::uint32_t i = 0; i < p.payload_len; ++i) {
    if (p.payload[i] != payload_pattern_byte(p.id, i)) {
      hca_.count_payload_mismatch();
      return;
    }
  }
}

// One function for the checks every packet goes through and for the generator's UD SENDs, the
// bulk of the traffic: the other paths are out of line.
void ReceiveEngine::tail_arrives(Packet* p, PortNum n) {
  // The link layer first (PHY errors, EBP, VCRC of a packet the line changed), then every check
  // over the bytes themselves.
  if (auto bad = hca_.link(n).check_tail(p->link_seq, p)) return drop(n, p, *bad);
  if (!vcrc_ok(*p)) return drop(n, p, DropReason::kVcrcError);
  const Lrh lrh = decode_lrh(p->header.data());
  if (lrh.lver != 0 || lrh.pkt_len != p->pkt_len_words()) return drop(n, p, DropReason::kMalformed);
  const bool vl15 = lrh.vl == kVl15;
  // R13: DLID 0 is never valid; the SLID is unicast, or permissive in a directed-route SMP.
  if (lrh.dlid == kLidReserved || !(is_unicast_lid(lrh.slid) || (lrh.slid == kLidPermissive && vl15)))
    return drop(n, p, DropReason::kInvalidLid);
  if (vl15) return take_smp(n, p, lrh.dlid);
  const VerbsResources& qps = hca_.verbs_resources();
  const bool multicast = is_multicast_lid(lrh.dlid);
  const Qpn* group = multicast ? qps.multicast_qp(lrh.dlid) : nullptr;
  if (multicast ? group == nullptr : !hca_.is_own_lid(n, lrh.dlid)) return drop(n, p, DropReason::kWrongDlid);
  if (!icrc_ok(*p)) return drop(n, p, DropReason::kIcrcError);
  if (hca_.congestion_control() && is_cnp(*p)) return take_cnp(n, p);
  if (hca_.management().take_gmp(n, p, lrh, multicast)) return;
  // One QP table for every QP: the packet's DestQP (or the group's QP) names its QP.
  const std::size_t bth_at = kLrhBytes + (lrh.lnh == kLnhIbaGlobal ? kGrhBytes : 0);
  QueuePair* q = nullptr;
  if (p->header_len >= bth_at + kBthBytes) q = qps.find(multicast ? *group : bth_dest_qp(p->header.data() + bth_at));
  // A verbs QP takes the packet through the full transport parser.
  if (q && !q->is_generator()) return take_verbs(n, p, *q, multicast);
  // Anything else must be a UD SEND for a generator's QP (q), or for none.
  const auto ud = parse_ud_send(*p);
  if (!ud || ud->bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  // R2: QP0 takes SMPs on VL15 only; one on a data VL is discarded.
  if (ud->bth.dest_qp == 0) return drop(n, p, DropReason::kNoQp);
  // Multicast goes to DestQP 0xFFFFFF only (R14) and is delivered to the QP attached to the group.
  if (multicast && ud->bth.dest_qp != 0xFFFFFF) return drop(n, p, DropReason::kMalformed);
  if (q == nullptr) return drop(n, p, DropReason::kNoQp);
  if (!ud_q_key_accepted(ud->bth.dest_qp, q->attr().qkey, ud->deth.q_key)) return drop(n, p, DropReason::kQkeyMismatch);
  // The generator's UD QP owes no response: the BECN goes back in a CNP to DETH.SrcQP.
  if (HcaCongestionControl* cc = hca_.congestion_control(); cc && ud->bth.fecn)
    cc->answer_datagram_fecn(n, q->qpn(), lrh, ud->bth, ud->deth.src_qp);
  if (q->payload_pattern()) check_payload(*p);
  hca_.count_received(*p);
  delivered(n, p);
}

void ReceiveEngine::take_smp(PortNum n, Packet* p, Lid dlid) {
  if (const auto why = hca_.management().take_smp(n, p, dlid)) drop(n, p, *why);
}

// --- verbs QPs ---

void ReceiveEngine::take_verbs(PortNum n, Packet* p, QueuePair& q, bool multicast) {
  const ParsedPacket pp = parse_transport_packet(*p);
  // R22 (TVer), R23 (a PadCnt the packet has no room for), R25 (GRH fields), lengths.
  if (!pp.ok() || pp.h.bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  // Which bytes are payload and which pad is what PktLen and PadCnt say (R23), whatever the
  // sender meant: the receiver knows only the bytes.
  if (pp.payload_len != p->payload_len) split_payload(*p, pp.payload_len, hca_.carry_payload());
  // R14: multicast only for UD, to DestQP 0xFFFFFF.
  if (multicast && (opcode_service(pp.h.bth.opcode) != kOpcodeUdBase || pp.h.bth.dest_qp != 0xFFFFFF))
    return drop(n, p, DropReason::kMalformed);
  // R37: P_Key (QP0 is exempt).
  if (q.qpn() != 0 && !p_key_match(pp.h.bth.p_key, hca_.port_p_key(n, q.attr().pkey_index)))
    return drop(n, p, DropReason::kPkeyViolation);
  // The payload goes to host memory over the host interface; the buffer is freed when it is done.
  // A packet without payload still waits for the payloads ahead of it: the transport and the host
  // see the packets in the order they arrived (an ACK never overtakes a READ response's data).
  const Time now = hca_.now();
  const Time done = p->payload_len ? dma_.transfer(now, p->payload_len) : dma_.drained(now);
  if (done > now) {
    hca_.schedule<&ReceiveEngine::dma_done>(done, this, p, n);
    return;
  }
  deliver_verbs(n, p, pp);
}

void ReceiveEngine::dma_done(Packet* p, PortNum n) {
  // A delivery delayed by DMA parses again rather than keep a parsed copy per packet in flight.
  deliver_verbs(n, p, parse_transport_packet(*p));
}

void ReceiveEngine::deliver_verbs(PortNum n, Packet* p, const ParsedPacket& pp) {
  const VerbsResources& qps = hca_.verbs_resources();
  const Qpn qpn = is_multicast_lid(pp.h.lrh.dlid) ? *qps.multicast_qp(pp.h.lrh.dlid) : pp.h.bth.dest_qp;
  QueuePair* q = qps.find(qpn);
  if (q && q->is_generator()) q = nullptr;  // the group's QP changed during the DMA
  HcaCongestionControl* cc = hca_.congestion_control();
  // An RC response arriving at its requester owes nothing back: its BECN can only go in a CNP.
  const bool response = is_rc_response(pp.h.bth.opcode);
  if (q) {
    if (cc && pp.h.bth.fecn && !response) q->offer_becn();
    // A silent discard by the QP (a Q_Key violation, a packet not from its peer) is counted like
    // the HCA's own discards.
    if (const auto dropped = q->receive(pp, *p, n)) {
      if (cc) q->carry_becn();  // withdraws the offer
      return drop(n, p, *dropped);
    }
    // A BECN throttles this QP; a FECN is answered on the response it owes, or with a CNP.
    if (cc && (pp.h.bth.becn || pp.h.bth.fecn)) cc->on_verbs_packet(n, qpn, *q, pp, response);
  }
  hca_.count_received(*p);
  delivered(n, p);
}

// --- CNPs ---

void ReceiveEngine::take_cnp(PortNum n, Packet* p) {
  const std::uint8_t* h = p->header.data();
  hca_.congestion_control()->on_cnp(n, bth_dest_qp(h + bth_offset(*p)), lrh_sl(h));
  delivered(n, p);
}

// --- RoCE v2 frames (Ethernet ports) ---

ReceiveEngine::RoceArrival ReceiveEngine::check_roce(PortNum n, const Packet& p) {
  RoceArrival a;
  p.write_frame(frame_);
  const ParsedRoceFrame f = parse_roce_frame(frame_.data(), frame_.size());
  if (!f.ok()) {
    a.drop = f.error == RoceFrameError::kBadFcs    ? DropReason::kVcrcError
             : f.error == RoceFrameError::kBadIcrc ? DropReason::kIcrcError
                                                   : DropReason::kMalformed;
    return a;
  }
  const bool v4 = f.ip_version == IpVersion::kV4;
  const IpAddress src = v4 ? IpAddress::v4(f.ipv4.src[0], f.ipv4.src[1], f.ipv4.src[2], f.ipv4.src[3])
                           : IpAddress::v6(f.ipv6.sgid);
  const IpAddress dst = v4 ? IpAddress::v4(f.ipv4.dst[0], f.ipv4.dst[1], f.ipv4.dst[2], f.ipv4.dst[3])
                           : IpAddress::v6(f.ipv6.dgid);
  if (dst != hca_.roce_port(n).ip) {
    a.drop = DropReason::kWrongDlid;
    return a;
  }
  a.src = src;
  a.ce = (v4 ? f.ipv4.ecn : traffic_class_ecn(f.ipv6.tclass)) == ecn::kCe;
  if (f.cnp && hca_.dcqcn()) {
    a.cnp = true;
    a.pp.h.bth = f.h.bth;
    return a;
  }
  a.q = f.cnp ? nullptr : hca_.verbs_resources().find(f.h.bth.dest_qp);
  if (a.q == nullptr) {
    a.drop = DropReason::kNoQp;
    return a;
  }
  // A QP whose address vector is global knows its peer by GID (RoCE v2: its IP address), checked
  // against the frame's source IP; the LID means nothing on Ethernet, so its path's stands in.
  // Otherwise the source IP must be a host whose LID the address book knows.
  const bool global = a.q->type() != verbs::IBV_QPT_UD && a.q->attr().ah_attr.is_global;
  const auto slid = global ? std::optional<Lid>(a.q->attr().ah_attr.dlid) : hca_.config().roce_addresses->lid_of(src);
  if (!slid) {
    a.drop = DropReason::kInvalidLid;
    return a;
  }
  // The IP header stands for the GRH of a QP whose address vector is global (RoCE v2 GIDs).
  a.pp = roce_transport_view(f, *slid, hca_.lid(n), global);
  return a;
}

void ReceiveEngine::roce_tail_arrives(Packet* p, PortNum n) {
  const RoceArrival a = check_roce(n, *p);
  if (a.drop) return drop(n, p, *a.drop);
  const ParsedPacket& pp = a.pp;
  if (a.cnp) {
    hca_.dcqcn()->on_cnp(n, pp.h.bth.dest_qp);
    return delivered(n, p);
  }
  if (pp.h.bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  if (pp.payload_len != p->payload_len) split_payload(*p, pp.payload_len, hca_.carry_payload());
  // R37: P_Key, as on InfiniBand (the BTH carries it on either fabric).
  if (!p_key_match(pp.h.bth.p_key, hca_.port_p_key(n, a.q->attr().pkey_index)))
    return drop(n, p, DropReason::kPkeyViolation);
  // The UD traffic generator's QP takes UD SEND Only with its Q_Key (DETH present: UD's opcode).
  const bool generator = a.q->is_generator();
  if (generator && pp.h.bth.opcode != kOpcodeUdSendOnly) return drop(n, p, DropReason::kMalformed);
  if (generator && !ud_q_key_accepted(pp.h.bth.dest_qp, a.q->attr().qkey, pp.h.deth.q_key))
    return drop(n, p, DropReason::kQkeyMismatch);
  // DCQCN's notification point hears of a CE mark as the frame arrives, to the QP that sent it.
  if (HcaDcqcn* d = hca_.dcqcn(); d && a.ce)
    d->on_ce_marked(n, *a.q, a.src, (pp.ext & kExtDeth) ? pp.h.deth.src_qp : a.q->attr().dest_qp_num);
  // As on InfiniBand (tail_arrives), a generator's datagram is delivered at its tail, no DMA.
  if (generator) {
    if (a.q->payload_pattern()) check_payload(*p);
    hca_.count_received(*p);
    return delivered(n, p);
  }
  // The receive DMA, in arrival order (take_verbs).
  const Time now = hca_.now();
  const Time done = p->payload_len ? dma_.transfer(now, p->payload_len) : dma_.drained(now);
  if (done > now) {
    hca_.schedule<&ReceiveEngine::roce_dma_done>(done, this, p, n);
    return;
  }
  deliver_verbs(n, p, pp);
}

void ReceiveEngine::roce_dma_done(Packet* p, PortNum n) {
  // Checked again rather than keep a parsed copy per frame in flight (the QP may have gone).
  const RoceArrival a = check_roce(n, *p);
  if (a.drop) return drop(n, p, *a.drop);
  deliver_verbs(n, p, a.pp);
}

std::string ReceiveEngine::name() const { return std::string(hca_.name()) + "/receive"; }

}  // namespace ibfsim
