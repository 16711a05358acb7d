// Offers UD SEND messages from one HCA at a given load. Load 1.0 means back-to-back packets at the
// full rate of the source's link: the mean gap between messages is the packet's serialization time
// (in symbol edges of that link, delimiters included) divided by the load. It runs on the HCA's
// own calendar, so its posts are ordered with the HCA's other actions at the same instant.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/rng.h"
#include "sim/transport/hca.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

struct UdDestination {
  Lid lid;
  Qpn qpn;
};

class UdTrafficGenerator {
 public:
  static constexpr std::size_t kNoSkip = std::numeric_limits<std::size_t>::max();

  // Messages are created in [begin, stop) (begin: see start); those created in [measure_begin,
  // measure_end) are measured. Each goes to a destination drawn uniformly from `destinations`
  // except the one at index `skip` (the source itself): one list serves every source of a flow,
  // so a fabric of N hosts holds N destinations, not N x N.
  UdTrafficGenerator(Hca& hca, Qpn src_qp, std::uint32_t q_key, const WorkloadSpec& spec,
                     std::shared_ptr<const std::vector<UdDestination>> destinations, std::size_t skip, RngStream rng,
                     Time stop, Time measure_begin, Time measure_end, std::uint16_t flow = 0);

  void start(Time begin = 0);  // schedules the first message, within one mean gap after `begin`
  Time mean_gap() const { return static_cast<Time>(mean_gap_fs_); }
  std::uint64_t posted() const { return posted_; }
  std::uint64_t measured_posted() const { return measured_posted_; }
  const Hca& hca() const { return hca_; }
  // In event traces: the flow and its source HCA.
  std::string name() const { return spec_.name + "@" + std::string(hca_.name()); }
  Qpn src_qp() const { return src_qp_; }

  // Event (event.h): the next message's arrival time has come; it is posted now.
  void message_due();

 private:
  Time next_arrival();

  Hca& hca_;
  Qpn src_qp_;
  std::uint32_t q_key_;
  WorkloadSpec spec_;
  std::shared_ptr<const std::vector<UdDestination>> destinations_;
  std::size_t skip_;
  std::size_t choices_;  // destinations without the skipped one
  RngStream rng_;
  Time stop_, measure_begin_, measure_end_;
  double mean_gap_fs_ = 0;
  Time first_ = 0;
  Time last_ = 0;
  std::uint64_t posted_ = 0;
  std::uint64_t measured_posted_ = 0;
  std::uint16_t flow_ = 0;
};

}  // namespace ibfsim
