// Sets FECN in a packet a switch forwards (IBA Vol1 Annex A10): the BTH byte 4 bit 7 of an IBA
// packet (LNH 2: BTH at byte 8; LNH 3: after the 40-byte GRH). The ICRC treats BTH byte 4 as
// variant (all ones in its input, sim/transport/icrc.h), so marking leaves it valid (R12); the
// VCRC is rewritten, as on every hop. Raw packets (LNH 0/1) carry no BTH and are never marked.
#pragma once
#include "sim/core/packet.h"

namespace ibfsim {

// Marks p (and rewrites its VCRC when `rewrite_vcrc`). False if p has no BTH.
bool mark_fecn(Packet& p, bool rewrite_vcrc = true);
// Whether p carries FECN (false without a BTH).
bool packet_fecn(const Packet& p);

}  // namespace ibfsim
