// Offers UD SEND messages from one HCA at a given load. Load 1.0 means back-to-back packets at the
// full rate of the source's link: the mean gap between messages is the packet's serialization time
// (in symbol edges of that link, delimiters included; on Ethernet the RoCE v2 frame with its
// preamble, SFD and inter-frame gap) divided by the load. It runs on the HCA's
// own calendar, so its posts are ordered with the HCA's other actions at the same instant.
//
// Past saturation it builds no backlog: while its VL's send queue is full it leaves its messages
// unbuilt and waits for room (SendEngine::DatagramFeeder), then builds the one that arrived first,
// dated from its arrival, and draws the next. Arrivals are drawn from the generator's own random
// stream in the same order either way, so the packets and their times are those of building every
// message on arrival; memory and the cost per delivered packet stay flat however long the run and
// however high the offered load. settle() counts what arrived and was never built.
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

class UdTrafficGenerator : public SendEngine::DatagramFeeder {
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
  // Messages that arrived in the measurement window: built, or (after settle) still waiting.
  std::uint64_t measured_posted() const { return measured_posted_ + measured_waiting_; }
  // Messages that arrived before `end` (and before the generator stopped) and were never built,
  // waiting for room when the run ended: drawn now, without building them, and counted. Once,
  // after the simulation.
  void settle(Time end);
  std::uint64_t waiting() const { return waiting_; }
  const Hca& hca() const { return hca_; }
  // In event traces: the flow and its source HCA.
  std::string name() const { return spec_.name + "@" + std::string(hca_.name()); }
  Qpn src_qp() const { return src_qp_; }

  // Event (event.h): the next message's arrival time has come; it is posted now, or waits for
  // room in the send queue.
  void message_due();
  // SendEngine::DatagramFeeder: the send queue has room for the waiting message.
  void feed() override;

 private:
  Time next_arrival();
  // The message arriving at pending_ is due: post it if its VL has room, else wait for room.
  void offer();
  // Builds and posts the message that arrived at pending_, then draws the next arrival.
  void post_pending();

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
  Time pending_ = 0;  // the arrival of the message due and not yet built
  std::uint64_t drawn_ = 0;  // arrivals drawn: built, or counted by settle()
  bool waiting_for_room_ = false;
  std::uint64_t waiting_ = 0, measured_waiting_ = 0;  // settle()
  std::uint64_t posted_ = 0;
  std::uint64_t measured_posted_ = 0;
  std::uint16_t flow_ = 0;
};

}  // namespace ibfsim
