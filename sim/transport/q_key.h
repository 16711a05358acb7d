// Queue keys (IBA Vol1 ch. 9-10; R36 in docs/compliance.md). A UD QP accepts a packet only if its
// DETH.Q_Key is the QP's own, except QP0 (the SMI), which checks none, and QP1 (the GSI), whose
// Q_Key is always the well-known 0x80010000. A Q_Key with bit 31 set is "controlled": an
// application cannot send it (the HCA substitutes the sending QP's own Q_Key).
#pragma once
#include <cstdint>

#include "sim/core/ids.h"

namespace ibfsim {

constexpr std::uint32_t kGsiQKey = 0x80010000;

constexpr bool q_key_controlled(std::uint32_t k) { return (k & 0x80000000u) != 0; }
constexpr bool ud_q_key_accepted(Qpn qpn, std::uint32_t qp_q_key, std::uint32_t packet_q_key) {
  return qpn == 0 || packet_q_key == (qpn == 1 ? kGsiQKey : qp_q_key);
}

}  // namespace ibfsim
