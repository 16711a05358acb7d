#include "sim/subnet_manager/mad/mad_acceptance.h"

#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

namespace {
bool well_formed(const std::uint8_t* mad, std::size_t len) {
  return mad != nullptr && len == kMadBytes && mad[0] == kMadBaseVersion;
}
bool is_subnet_management(std::uint8_t mgmt_class) {
  return mgmt_class == IB_MCLASS_SUBN_LID || mgmt_class == IB_MCLASS_SUBN_DIR;
}
}  // namespace

bool qp0_accepts(const std::uint8_t* mad, std::size_t len) {
  return well_formed(mad, len) && is_subnet_management(mad[1]);
}

bool qp1_accepts(const std::uint8_t* mad, std::size_t len) {
  return well_formed(mad, len) && !is_subnet_management(mad[1]);
}

}  // namespace ibfsim
