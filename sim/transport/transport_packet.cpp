#include "sim/transport/transport_packet.h"

#include "sim/core/error.h"
#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "sim/transport/immdt.h"

namespace ibfsim {

namespace {

std::size_t ext_bytes(std::uint8_t ext) {
  std::size_t n = 0;
  if (ext & kExtDeth) n += kDethBytes;
  if (ext & kExtReth) n += kRethBytes;
  if (ext & kExtAtomicEth) n += kAtomicEthBytes;
  if (ext & kExtAeth) n += kAethBytes;
  if (ext & kExtAtomicAckEth) n += kAtomicAckEthBytes;
  if (ext & kExtImmdt) n += kImmdtBytes;
  if (ext & kExtIeth) n += kIethBytes;
  return n;
}
}  // namespace

std::optional<OpcodeLayout> opcode_layout(std::uint8_t opcode) {
  const std::uint8_t service = opcode_service(opcode);
  const std::uint8_t o = opcode_operation(opcode);
  if (service == kOpcodeUdBase) {
    if (o == op::kSendOnly) return OpcodeLayout{kExtDeth, true};
    if (o == op::kSendOnlyImm) return OpcodeLayout{kExtDeth | kExtImmdt, true};
    return std::nullopt;
  }
  if (service != kOpcodeRcBase && service != kOpcodeUcBase) return std::nullopt;
  const bool rc = service == kOpcodeRcBase;
  switch (o) {
    case op::kSendFirst:
    case op::kSendMiddle:
    case op::kSendLast:
    case op::kSendOnly:
    case op::kRdmaWriteMiddle:
    case op::kRdmaWriteLast: return OpcodeLayout{0, true};
    case op::kSendLastImm:
    case op::kSendOnlyImm:
    case op::kRdmaWriteLastImm: return OpcodeLayout{kExtImmdt, true};
    case op::kRdmaWriteFirst:
    case op::kRdmaWriteOnly: return OpcodeLayout{kExtReth, true};
    case op::kRdmaWriteOnlyImm: return OpcodeLayout{kExtReth | kExtImmdt, true};
    default: break;
  }
  if (!rc) return std::nullopt;  // UC has no READ, atomics, ACKs or SEND with Invalidate
  switch (o) {
    case op::kSendLastInvalidate:
    case op::kSendOnlyInvalidate: return OpcodeLayout{kExtIeth, true};
    case op::kRdmaReadRequest: return OpcodeLayout{kExtReth, false};
    case op::kRdmaReadRespFirst:
    case op::kRdmaReadRespLast:
    case op::kRdmaReadRespOnly: return OpcodeLayout{kExtAeth, true};
    case op::kRdmaReadRespMiddle: return OpcodeLayout{0, true};
    case op::kAcknowledge: return OpcodeLayout{kExtAeth, false};
    case op::kAtomicAcknowledge: return OpcodeLayout{kExtAeth | kExtAtomicAckEth, false};
    case op::kCmpSwap:
    case op::kFetchAdd: return OpcodeLayout{kExtAtomicEth, false};
    default: return std::nullopt;
  }
}

std::size_t base_transport_bytes(std::uint8_t ext) { return kBthBytes + ext_bytes(ext); }

std::size_t encode_base_transport(const TransportHeaders& h, std::uint8_t ext, std::uint8_t pad_cnt,
                                  std::uint8_t* out) {
  Bth bth = h.bth;
  bth.pad_cnt = pad_cnt;
  encode_bth(bth, out);
  std::size_t at = kBthBytes;
  if (ext & kExtDeth) encode_deth(h.deth, out + at), at += kDethBytes;
  if (ext & kExtReth) encode_reth(h.reth, out + at), at += kRethBytes;
  if (ext & kExtAtomicEth) encode_atomic_eth(h.atomic_eth, out + at), at += kAtomicEthBytes;
  if (ext & kExtAeth) encode_aeth(h.aeth, out + at), at += kAethBytes;
  if (ext & kExtAtomicAckEth) encode_atomic_ack_eth(h.atomic_ack_eth, out + at), at += kAtomicAckEthBytes;
  if (ext & kExtImmdt) encode_immdt({h.imm}, out + at), at += kImmdtBytes;
  if (ext & kExtIeth) encode_ieth(h.ieth, out + at), at += kIethBytes;
  return at;
}

void decode_extended_headers(const std::uint8_t* in, std::uint8_t ext, TransportHeaders& h) {
  std::size_t at = 0;
  if (ext & kExtDeth) h.deth = decode_deth(in + at), at += kDethBytes;
  if (ext & kExtReth) h.reth = decode_reth(in + at), at += kRethBytes;
  if (ext & kExtAtomicEth) h.atomic_eth = decode_atomic_eth(in + at), at += kAtomicEthBytes;
  if (ext & kExtAeth) h.aeth = decode_aeth(in + at), at += kAethBytes;
  if (ext & kExtAtomicAckEth) h.atomic_ack_eth = decode_atomic_ack_eth(in + at), at += kAtomicAckEthBytes;
  if (ext & kExtImmdt) h.imm = decode_immdt(in + at).data, at += kImmdtBytes;
  if (ext & kExtIeth) h.ieth = decode_ieth(in + at), at += kIethBytes;
}

void build_transport_packet(Packet& p, const TransportHeaders& h, std::uint32_t payload_len,
                            const std::uint8_t* payload) {
  const auto layout = opcode_layout(h.bth.opcode);
  IBFSIM_CHECK(layout.has_value(), "build_transport_packet: unsupported opcode");
  IBFSIM_CHECK(layout->payload || payload_len == 0, "build_transport_packet: opcode carries no payload");
  const std::uint8_t ext = layout->headers;
  const std::size_t grh_bytes = h.grh ? kGrhBytes : 0;
  const std::size_t bth_at = kLrhBytes + grh_bytes;
  p.header_len = static_cast<std::uint16_t>(bth_at + kBthBytes + ext_bytes(ext));
  p.payload_len = payload_len;
  p.pad_len = static_cast<std::uint8_t>((4 - payload_len) & 3);
  p.has_icrc = true;
  if (payload != nullptr)
    p.payload.assign(payload, payload + payload_len);
  else
    p.payload.clear();

  Lrh lrh = h.lrh;
  lrh.lnh = h.grh ? kLnhIbaGlobal : kLnhIbaLocal;
  lrh.pkt_len = static_cast<std::uint16_t>(p.pkt_len_words());
  encode_lrh(lrh, &p.header[0]);
  if (h.grh) {
    Grh grh = *h.grh;
    grh.nxt_hdr = kGrhNxtHdrIba;
    grh.pay_len = static_cast<std::uint16_t>(4 * lrh.pkt_len - kLrhBytes - kGrhBytes + 0);
    encode_grh(grh, &p.header[kLrhBytes]);
  }
  encode_base_transport(h, ext, p.pad_len, &p.header[bth_at]);

  write_icrc(p);
  write_vcrc(p);
}

ParsedPacket parse_transport_packet(const Packet& p) {
  ParsedPacket r;
  const std::uint8_t* b = p.header.data();
  if (p.header_len < kLrhBytes) return r.error = ParseError::kBadLength, r;
  r.h.lrh = decode_lrh(b);
  std::size_t at = kLrhBytes;
  if (r.h.lrh.lnh == kLnhIbaGlobal) {
    if (p.header_len < kLrhBytes + kGrhBytes) return r.error = ParseError::kBadLength, r;
    r.h.grh = decode_grh(b + at);
    const auto& g = *r.h.grh;
    if (g.ipver != kGrhIpVer || g.nxt_hdr != kGrhNxtHdrIba ||
        g.pay_len != 4u * r.h.lrh.pkt_len - kLrhBytes - kGrhBytes)
      return r.error = ParseError::kBadGrh, r;
    at += kGrhBytes;
  } else if (r.h.lrh.lnh != kLnhIbaLocal) {
    return r.error = ParseError::kNotIba, r;
  }
  if (p.header_len < at + kBthBytes) return r.error = ParseError::kBadLength, r;
  r.h.bth = decode_bth(b + at);
  at += kBthBytes;
  const auto layout = opcode_layout(r.h.bth.opcode);
  if (!layout) return r.error = ParseError::kUnsupportedOpcode, r;
  r.ext = layout->headers;
  if (p.header_len != at + ext_bytes(r.ext)) return r.error = ParseError::kBadLength, r;
  // Payload and pad: what PktLen leaves after the headers and the ICRC, PadCnt of it being pad.
  const std::int64_t body = std::int64_t{4} * r.h.lrh.pkt_len - static_cast<std::int64_t>(p.header_len) -
                            static_cast<std::int64_t>(kIcrcBytes);
  if (body < r.h.bth.pad_cnt || (!layout->payload && body != 0)) return r.error = ParseError::kBadLength, r;
  r.payload_len = static_cast<std::uint32_t>(body - r.h.bth.pad_cnt);
  decode_extended_headers(b + at, r.ext, r.h);
  return r;
}

}  // namespace ibfsim
