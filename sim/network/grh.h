// GRH, the 40-byte global route header present when LRH.LNH = 3 (IBA Vol1 ch. 8):
//   bytes 0-3: IPVer (4) | TClass (8) | FlowLabel (20); bytes 4-5 PayLen (bytes after the GRH
//   through the ICRC); byte 6 NxtHdr; byte 7 HopLmt; bytes 8-23 SGID; bytes 24-39 DGID.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/big_endian.h"

namespace ibfsim {

constexpr std::size_t kGrhBytes = 40;
constexpr std::uint8_t kGrhIpVer = 6;
constexpr std::uint8_t kGrhNxtHdrIba = 0x1B;  // IBA transport (BTH) follows
constexpr std::uint32_t kGrhFlowLabelMask = 0xFFFFF;

// A decoded GRH. IPVer and FlowLabel are masked to 4 and 20 bits on encode.
struct Grh {
  std::uint8_t ipver = kGrhIpVer;
  std::uint8_t tclass = 0;
  std::uint32_t flow_label = 0;
  std::uint16_t pay_len = 0;
  std::uint8_t nxt_hdr = kGrhNxtHdrIba;
  std::uint8_t hop_lmt = 0;
  std::array<std::uint8_t, 16> sgid{};  // subnet prefix (8 bytes) then port GUID, big-endian
  std::array<std::uint8_t, 16> dgid{};
};

void encode_grh(const Grh& grh, std::uint8_t* out40);
Grh decode_grh(const std::uint8_t* in40);

// Single-field access for a router's hot path (the GRH at `grh`, 40 bytes).
inline std::uint8_t grh_hop_limit(const std::uint8_t* grh) { return grh[7]; }
inline void set_grh_hop_limit(std::uint8_t* grh, std::uint8_t hops) { grh[7] = hops; }
inline std::uint64_t grh_dgid_prefix(const std::uint8_t* grh) { return load_be64(grh + 24); }
inline std::uint64_t grh_dgid_guid(const std::uint8_t* grh) { return load_be64(grh + 32); }
// A GID from a subnet prefix and a port GUID (both big-endian on the wire).
inline std::array<std::uint8_t, 16> make_gid(std::uint64_t prefix, std::uint64_t guid) {
  std::array<std::uint8_t, 16> g{};
  store_be64(g.data(), prefix);
  store_be64(g.data() + 8, guid);
  return g;
}

}  // namespace ibfsim
