#include "sim/ethernet/pfc_frame.h"

#include <algorithm>

#include "sim/core/big_endian.h"
#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/ethernet/ethernet_fcs.h"

namespace ibfsim {

namespace {
void encode_content(const PfcFrame& f, std::uint8_t* b) {
  EthernetHeader h;
  h.dst = kPfcDestinationMac;
  h.src = f.src;
  h.ether_type = kEtherTypeMacControl;
  std::size_t at = encode_ethernet_header(h, b);
  store_be16(b + at, kMacControlOpcodePfc);
  store_be16(b + at + 2, f.class_enable);
  for (unsigned i = 0; i < kPfcClasses; ++i) store_be16(b + at + 4 + 2 * i, f.quanta[i]);
}
}  // namespace

std::vector<std::uint8_t> encode_pfc_frame(const PfcFrame& f) {
  std::vector<std::uint8_t> out(kPfcContentBytes);
  encode_content(f, out.data());
  append_ethernet_fcs(out);
  return out;
}

void build_pfc_packet(Packet& p, const PfcFrame& f) {
  p.framing = Framing::kEthernet;
  p.header_len = kPfcContentBytes;
  encode_content(f, p.header.data());
  p.payload_len = 0;
  p.payload.clear();
  p.pad_len = 0;
  p.has_icrc = false;
  p.eth_pad_len = static_cast<std::uint8_t>(ethernet_pad_bytes(kPfcContentBytes));
  const std::uint32_t fcs = ethernet_fcs({ByteRun{p.header.data(), kPfcContentBytes}, ByteRun{nullptr, p.eth_pad_len}});
  store_crc32(p.fcs.data(), fcs);
}

bool is_mac_control_frame(const std::uint8_t* f, std::size_t len) {
  return len >= kEthernetHeaderBytes && load_be16(f + 12) == kEtherTypeMacControl;
}

ParsedPfcFrame parse_pfc_frame(const std::uint8_t* f, std::size_t len) {
  ParsedPfcFrame r;
  if (len < kPfcFrameBytes) {
    r.error = PfcFrameError::kTooShort;
    return r;
  }
  if (!ethernet_fcs_ok(f, len)) {
    r.error = PfcFrameError::kBadFcs;
    return r;
  }
  if (!is_mac_control_frame(f, len)) {
    r.error = PfcFrameError::kNotMacControl;
    return r;
  }
  if (load_be16(f + 14) != kMacControlOpcodePfc) {
    r.error = PfcFrameError::kNotPfc;
    return r;
  }
  if (!std::equal(kPfcDestinationMac.begin(), kPfcDestinationMac.end(), f)) {
    r.error = PfcFrameError::kBadDestination;
    return r;
  }
  std::copy(f + 6, f + 12, r.frame.src.begin());
  r.frame.class_enable = static_cast<std::uint8_t>(load_be16(f + 16) & 0xFF);
  for (unsigned i = 0; i < kPfcClasses; ++i) r.frame.quanta[i] = load_be16(f + 18 + 2 * i);
  return r;
}

}  // namespace ibfsim
