// M_Key protection (IBA Vol1 14.2.4, rule R41): whether an SMA acts on an SMP given the port's
// M_Key and M_KeyProtectBits. An SMP's M_Key is valid when it equals the port's or the port's is 0.
// With an invalid M_Key, SubnSet and SubnTrapRepress are never acted on; SubnGet is answered at
// protection levels 0 and 1 (level 1 hides the M_Key in the PortInfo it returns) and refused at
// levels 2 and 3. A refused SMP is discarded without a response, M_KeyViolations is incremented
// and Trap 256 may be sent. The behaviour mirrors check_mkey() in the Linux qib/hfi1 SMAs; the
// M_KeyLeasePeriod timer (which clears the protection bits) is state the SMA keeps, not part of
// this check.
#pragma once
#include <cstdint>

namespace ibfsim {

// The SMA's verdict on an incoming SMP's M_Key.
enum class MKeyCheck : std::uint8_t {
  kAccept,            // act on it; a PortInfo answer shows the real M_Key
  kAcceptHiddenMKey,  // act on it (a Get at level 1); PortInfo:M_Key reads 0 in the answer
  kViolation,         // discard, M_KeyViolations++
};

MKeyCheck check_m_key(std::uint64_t port_m_key, std::uint8_t protect_bits, std::uint8_t method,
                      std::uint64_t smp_m_key);

}  // namespace ibfsim
