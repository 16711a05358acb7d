// A traffic class's figures across MPI ranks (traffic_class.h, encode_figures): what its rank
// computed, as bytes, and taken in by the ranks whose copy of the class never ran.
#include "sim/core/byte_strings.h"
#include "sim/core/rank_event_codec.h"
#include "sim/workload/traffic_class.h"

namespace ibfsim {

std::vector<std::uint8_t> TrafficClass::encode_figures() const {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  put_string(w, results().dump());
  put_string(w, summary());
  put_string(w, fct_csv_rows());
  message_latency().encode(w);
  packet_latency().encode(w);
  network_latency().encode(w);
  w.put(measured_undelivered());
  w.put(messages_waiting_at_sources());
  ClassTotals t;
  add_totals(t);
  w.put(t);  // its doubles by their bits: the sums every rank adds them into are the one-rank sums
  return out;
}

void TrafficClass::take_in_figures(const std::vector<std::uint8_t>& bytes) {
  ByteReader r(bytes);
  auto f = std::make_unique<Figures>();
  f->results = nlohmann::json::parse(get_string(r));
  f->summary = get_string(r);
  f->fct_rows = get_string(r);
  f->message_latency = LatencyHistogram::decode(r);
  f->packet_latency = LatencyHistogram::decode(r);
  f->network_latency = LatencyHistogram::decode(r);
  f->measured_undelivered = r.get<std::uint64_t>();
  f->waiting_at_sources = r.get<std::uint64_t>();
  f->totals = r.get<ClassTotals>();
  IBFSIM_CHECK(r.done(), "a traffic class's figures: bytes left over");
  figures_ = std::move(f);
}

}  // namespace ibfsim
