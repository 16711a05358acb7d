#include "sim/transport/roce/roce_packet.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"

namespace ibfsim {

RoceFrameError load_roce_frame(Packet& p, const std::uint8_t* f, std::size_t len, bool carry_payload) {
  const ParsedRoceFrame r = parse_roce_frame(f, len);
  if (!r.ok()) return r.error;
  const RoceFrameLayout& l = r.layout;
  // A CNP's 16 reserved bytes follow the BTH as its body.
  const std::size_t header_len = r.cnp ? l.bth_at + kBthBytes : l.payload_at;
  IBFSIM_CHECK(header_len <= Packet::kMaxHeaderBytes, "load_roce_frame: headers longer than a Packet holds");
  p.framing = Framing::kEthernet;
  p.header_len = static_cast<std::uint16_t>(header_len);
  std::copy(f, f + header_len, p.header.begin());
  const std::size_t body = l.icrc_at - header_len;
  const std::size_t pad = r.cnp ? 0 : r.h.bth.pad_cnt;
  p.payload_len = static_cast<std::uint32_t>(body - pad);
  p.pad_len = static_cast<std::uint8_t>(pad);
  const std::uint8_t* payload = f + header_len;
  if (carry_payload) {
    p.payload.assign(payload, payload + p.payload_len);
  } else {
    p.payload.clear();
    IBFSIM_CHECK(std::all_of(payload, payload + p.payload_len, [](std::uint8_t b) { return b == 0; }),
                 "load_roce_frame: an elided payload must be zeros");
  }
  p.has_icrc = true;
  std::copy(f + l.icrc_at, f + l.icrc_at + kIcrcBytes, p.icrc.begin());
  p.eth_pad_len = static_cast<std::uint8_t>(l.fcs_at - (l.icrc_at + kIcrcBytes));
  std::copy(f + l.fcs_at, f + l.fcs_at + kEthernetFcsBytes, p.fcs.begin());
  return RoceFrameError::kNone;
}

}  // namespace ibfsim
