// Which MADs the two special QPs take (rule R38, IBA Vol1 ch. 13): a MAD is exactly 256 bytes with
// BaseVersion 1; QP0 (the SMI) takes only the subnet management classes 0x01 and 0x81, QP1 (the
// GSI) every other class. A MAD that fails is discarded. ClassVersion is not checked here: an
// agent answers an unsupported one with IB_MAD_STATUS_UNSUP_CLASS_VER rather than dropping it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

bool qp0_accepts(const std::uint8_t* mad, std::size_t len);
bool qp1_accepts(const std::uint8_t* mad, std::size_t len);

}  // namespace ibfsim
