// SLtoVLMappingTable (IBA Vol1 14.2.5.8): 16 SLs each mapped to a VL. HCAs have one per port, switches
// one per (input port, output port). An SL mapped to VL15, or to a VL the output does not operate,
// means the packet is dropped (R16).
#pragma once
#include <array>
#include <cstdint>

namespace ibfsim {

class SlToVlTable {
 public:
  // Default: SL s -> VL (s mod op_vls), so every SL lands on an operational data VL.
  static SlToVlTable identity_modulo(unsigned op_vls);
  static SlToVlTable from(const std::array<std::uint8_t, 16>& vls) { SlToVlTable t; t.vl_ = vls; return t; }

  std::uint8_t vl(std::uint8_t sl) const { return vl_[sl & 15]; }
  void set(std::uint8_t sl, std::uint8_t vl) { vl_[sl & 15] = vl & 15; }
  // The 8-byte attribute layout: SL 2k in the high nibble, SL 2k+1 in the low nibble of byte k.
  std::array<std::uint8_t, 8> encode() const;
  static SlToVlTable decode(const std::array<std::uint8_t, 8>& bytes);

 private:
  std::array<std::uint8_t, 16> vl_{};
};

}  // namespace ibfsim
