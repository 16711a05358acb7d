#include "sim/subnet_manager/mad/m_key_check.h"

#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

MKeyCheck check_m_key(std::uint64_t port_m_key, std::uint8_t protect_bits, std::uint8_t method,
                      std::uint64_t smp_m_key) {
  if (port_m_key == 0 || smp_m_key == port_m_key) return MKeyCheck::kAccept;
  switch (method) {
    case IB_MAD_METHOD_GET:
      if (protect_bits == 0) return MKeyCheck::kAccept;
      if (protect_bits == 1) return MKeyCheck::kAcceptHiddenMKey;
      return MKeyCheck::kViolation;
    case IB_MAD_METHOD_SET:
    case IB_MAD_METHOD_TRAP_REPRESS:
      return MKeyCheck::kViolation;
    default:  // no other method is M_Key protected
      return MKeyCheck::kAccept;
  }
}

}  // namespace ibfsim
