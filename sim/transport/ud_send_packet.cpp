#include "sim/transport/ud_send_packet.h"

#include "sim/link/vcrc.h"
#include "sim/transport/icrc.h"
#include "sim/transport/immdt.h"

namespace ibfsim {

namespace {
constexpr std::size_t kBthAt = kLrhBytes;
constexpr std::size_t kDethAt = kBthAt + kBthBytes;
constexpr std::size_t kImmdtAt = kDethAt + kDethBytes;
}  // namespace

void build_ud_send(Packet& p, const UdSendFields& f, std::uint32_t payload_len,
                   const std::uint8_t* payload) {
  p.header_len = static_cast<std::uint16_t>(kImmdtAt + (f.imm ? kImmdtBytes : 0));
  p.payload_len = payload_len;
  p.pad_len = static_cast<std::uint8_t>((4 - payload_len) & 3);
  p.has_icrc = true;
  if (payload != nullptr)
    p.payload.assign(payload, payload + payload_len);
  else
    p.payload.clear();

  Lrh lrh;
  lrh.vl = f.vl;
  lrh.sl = f.sl;
  lrh.lnh = kLnhIbaLocal;
  lrh.dlid = f.dlid;
  lrh.pkt_len = static_cast<std::uint16_t>(p.pkt_len_words());
  lrh.slid = f.slid;
  encode_lrh(lrh, &p.header[0]);

  Bth bth;
  bth.opcode = f.imm ? kOpcodeUdSendOnlyImm : kOpcodeUdSendOnly;
  bth.se = f.se;
  bth.pad_cnt = p.pad_len;
  bth.p_key = f.p_key;
  bth.dest_qp = f.dest_qp;
  bth.psn = f.psn;
  encode_bth(bth, &p.header[kBthAt]);

  encode_deth({f.q_key, f.src_qp}, &p.header[kDethAt]);
  if (f.imm) encode_immdt({*f.imm}, &p.header[kImmdtAt]);

  write_icrc(p);
  write_vcrc(p);
}

std::optional<UdSendView> parse_ud_send(const Packet& p) {
  const std::uint8_t* h = p.header.data();
  if (p.header_len < kImmdtAt || lrh_lnh(h) != kLnhIbaLocal) return std::nullopt;
  const std::uint8_t opcode = h[kBthAt];
  if (opcode != kOpcodeUdSendOnly && opcode != kOpcodeUdSendOnlyImm) return std::nullopt;
  const bool has_imm = opcode == kOpcodeUdSendOnlyImm;
  if (has_imm && p.header_len < kImmdtAt + kImmdtBytes) return std::nullopt;

  UdSendView v{decode_lrh(h), decode_bth(h + kBthAt), decode_deth(h + kDethAt), std::nullopt};
  if (has_imm) v.imm = decode_immdt(h + kImmdtAt).data;
  return v;
}

}  // namespace ibfsim
