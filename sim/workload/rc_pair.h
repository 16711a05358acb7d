// Two RC queue pairs made and connected to each other the way a collective library or an MPI
// over verbs connects its peers out of band: created on each end's PD and CQs, then RESET -> INIT
// -> RTR -> RTS at once (PSNs 0, one outstanding READ/atomic, the shortest RNR timer). Used by the
// NCCL-style collectives and the trace replay; the caller posts its receives.
#pragma once
#include <array>
#include <cstdint>

#include "sim/transport/hca.h"

namespace ibfsim {

struct RcPairEnd {
  Hca* hca = nullptr;
  verbs::PdHandle pd = 0;
  verbs::CqHandle send_cq = 0, recv_cq = 0;
};

struct RcPairSettings {
  std::uint32_t max_send_wr = 16, max_recv_wr = 128;
  unsigned access = verbs::IBV_ACCESS_LOCAL_WRITE;  // the QPs' remote access rights
  std::uint32_t mtu = 4096;                         // path MTU in bytes (256..4096)
  std::uint8_t sl = 0;
  const char* who = "rc pair";                      // names the caller in a refused step's message
};

// The QP of ends[0] and of ends[1], connected to each other, in RTS.
std::array<QueuePair*, 2> connect_rc_pair(const RcPairEnd (&ends)[2], const RcPairSettings& s);

// The ibv_mtu of a path MTU in bytes (4096 for anything not 256..2048).
verbs::ibv_mtu ibv_mtu_of(std::uint32_t bytes);

}  // namespace ibfsim
