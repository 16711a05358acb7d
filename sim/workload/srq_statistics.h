// shared_receive_queues.csv: a row per server SRQ (server_srq.h), by HCA: its size and limit, the
// buffers posted and taken, what it held at the end, and the limit event (how many, the first's
// time). Registered only when a flow says srq: true.
#pragma once
#include <cstddef>
#include <map>
#include <memory>

#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"
#include "sim/workload/server_srq.h"

namespace ibfsim {

void register_srq_statistics(StatsRegistry& r, const Fabric& fabric,
                             const std::map<std::size_t, std::unique_ptr<ServerSrq>>& srqs);

}  // namespace ibfsim
