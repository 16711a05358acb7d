// A latency histogram as results.json gives it: count and min/mean/p50/p90/p99/p99.9/max in ns.
#pragma once
#include <nlohmann/json.hpp>

#include "sim/report/latency_histogram.h"

namespace ibfsim {

// {"count": N} alone when the histogram is empty.
nlohmann::json histogram_json(const LatencyHistogram& h);

}  // namespace ibfsim
