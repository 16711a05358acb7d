#include "sim/transport/roce/roce_cnp.h"

#include <array>

namespace ibfsim {

std::vector<std::uint8_t> build_roce_cnp(const RoceAddressing& a, Qpn dest_qp, std::uint16_t p_key) {
  std::array<std::uint8_t, kRoceCnpTransportBytes> t{};  // the reserved bytes stay 0
  Bth bth;
  bth.opcode = kOpcodeRoceCnp;
  bth.p_key = p_key;
  bth.becn = true;
  bth.dest_qp = dest_qp;
  encode_bth(bth, t.data());
  return frame_roce_transport(a, t.data(), t.size(), 0, nullptr, 0);
}

}  // namespace ibfsim
