// The destination side of InfiniBand congestion control (IBA Vol1 Annex A10, rule R42): a CA that
// accepts a FECN-marked packet returns a BECN to the QP that sent it. An RC request whose
// responder owes a response (an ACK, a NAK, a READ response, an atomic ACK not yet sent) carries
// the BECN there; everything else (UD, UC, an RC request with no response due, RC responses
// arriving at a requester) is answered with a CNP (cnp.h) to the source QP: UD's DETH.SrcQP, or
// the connected QP of RC and UC.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/cnp.h"

namespace ibfsim {

// Congestion control counters of one QP of an HCA (the generator's UD QP or a verbs QP).
struct CcQpCounters {
  // As a destination:
  std::uint64_t fecn_received = 0;     // FECN-marked packets it accepted
  std::uint64_t becn_on_response = 0;  // ... whose BECN rode on a response it owed
  std::uint64_t cnp_sent = 0;          // ... answered with a CNP
  // As a source:
  std::uint64_t becn_received = 0;     // BECNs on responses (ACKs, READ responses) to it
  std::uint64_t cnp_received = 0;      // CNPs addressed to it
};

enum class BecnCarrier : std::uint8_t { kResponse, kCnp };

// Where the BECN for an accepted FECN-marked packet goes: on the response its responder owes
// (`response_due`: only RC requests can have one), else in a CNP.
inline BecnCarrier becn_carrier(bool response_due) { return response_due ? BecnCarrier::kResponse : BecnCarrier::kCnp; }

// The CNP answering a marked packet (its LRH, GRH if any, and BTH as received) that the QP
// `source_qp` sent: from the port that took it (`my_lid`, SGID `my_gid` when a GRH is needed) back
// to its SLID on its SL, mapped to `vl`, with its P_Key.
CnpFields cnp_for(const Lrh& lrh, const std::optional<Grh>& grh, const Bth& bth, Qpn source_qp, Lid my_lid,
                  std::uint8_t vl, const std::array<std::uint8_t, 16>& my_gid);

}  // namespace ibfsim
