// The scenario's `cm:` section (docs/scenario.md): how every HCA's Communication Manager
// (subnet_manager/cm/cm_agent.h) behaves for the verbs flows that connect through it
// (`connect: cm`), and the values their REQs carry. The defaults are librdmacm's.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/workload/verbs_flow_spec.h"

namespace ibfsim {

class YamlMap;

struct CmSpec {
  Time processing = 1 * kUs;             // per CM MAD received and per REQ built, one at a time
  std::uint8_t response_timeout = 20;    // the REQ's CM response timeouts (librdmacm CMA_CM_RESPONSE_TIMEOUT)
  std::uint8_t max_retries = 15;         // MaxCMRetries (librdmacm CMA_MAX_CM_RETRIES)
  unsigned max_connections = 0;          // per HCA, passive connections at once; 0: no limit
  bool mra = true;                       // MRA when a REQ would wait longer than its sender allows
  Time sa_timeout = 100 * kUs;           // the SA client's wait for a PathRecord answer
  unsigned sa_retries = 3;
  bool disconnect = true;                // the active side sends a DREQ once its flow is done (rdma_disconnect)

  CmAgentConfig agent_config() const;
};

CmSpec parse_cm(const YamlMap& m);

// Flows with `connect: cm` need the in-band subnet manager (its SA answers their PathRecord
// queries). `verbs_maps[i]` is flow i's map. Throws InputError at the flow's `connect`.
void check_cm_flows(const std::vector<YamlMap>& verbs_maps, const std::vector<VerbsFlowSpec>& flows, bool in_band);

}  // namespace ibfsim
