#include "sim/report/histogram_json.h"

namespace ibfsim {

nlohmann::json histogram_json(const LatencyHistogram& h) {
  nlohmann::json j;
  j["count"] = h.count();
  if (h.count() == 0) return j;
  auto ns = [](double fs) { return fs / 1e6; };
  j["min_ns"] = ns(static_cast<double>(h.min()));
  j["mean_ns"] = ns(h.mean_fs());
  j["p50_ns"] = ns(static_cast<double>(h.percentile(50)));
  j["p90_ns"] = ns(static_cast<double>(h.percentile(90)));
  j["p99_ns"] = ns(static_cast<double>(h.percentile(99)));
  j["p99_9_ns"] = ns(static_cast<double>(h.percentile(99.9)));
  j["max_ns"] = ns(static_cast<double>(h.max()));
  return j;
}

}  // namespace ibfsim
