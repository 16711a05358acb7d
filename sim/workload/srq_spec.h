// The scenario's `shared_receive_queue:` section (docs/scenario.md): the SRQ a server HCA posts its
// receive buffers to, shared by every verbs flow that says `srq: true` and targets that HCA
// (workload/server_srq.h). One SRQ per target HCA, all with these settings.
#pragma once
#include <cstdint>

namespace ibfsim {

class YamlMap;

struct SrqSpec {
  std::uint32_t max_wr = 512;  // receive WQEs the server keeps posted (ibv_srq_attr.max_wr)
  std::uint32_t limit = 0;     // ibv_modify_srq(IBV_SRQ_LIMIT): the event when fewer remain; 0: not armed
};

// Throws InputError naming the key: max_wr in 1..32768 (the HCA's limit), limit below max_wr.
SrqSpec parse_srq(const YamlMap& m);

}  // namespace ibfsim
