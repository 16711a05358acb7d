// One output port of a switch, as the crossbar sees it: the requests of the input heads (and
// multicast copies) waiting for it, per output VL, and the round robin among their inputs within
// a VL. It is the switch's Source for the port's output stage (sim/link/port_output.h), which
// also sends the management port's own SMPs and GMPs and runs the VL arbiter among the VLs whose
// chosen packet fits (VL15 first, then the high/low tables).
//
// Within a VL, the winner is the first requesting input at or after the round-robin pointer
// whose packet fits the VL's credits (by input port, then input VL); the pointer moves past each
// input served. A VL with requests none of which fits is blocked (credit stall). The packet
// granted leaves with the output VL in its LRH and, under congestion control, FECN
// (congestion_detector.h); the VCRC is rewritten when either changed.
// An output that can no longer carry what waits for it discards it (R20): the data VLs of a port
// not Active, and VL15 too once it is down.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/link/link_port.h"
#include "sim/link/port_output.h"
#include "sim/link/vl_arbiter.h"

namespace ibfsim {

class Switch;

// Who requests an output: the head of queue `vl` of input port `in` (in 0: nobody).
struct Requester {
  PortNum in = 0;
  std::uint8_t vl = 0;
  bool operator==(const Requester& o) const { return in == o.in && vl == o.vl; }
};

class OutputUnit final : public PortOutput::Source {
 public:
  // `num_ports`: the switch's, over which the round robin turns; `hoq_life`: HOQLife of the port.
  OutputUnit(Switch& sw, LinkPort& port, unsigned num_ports, const VlArbConfig& arbitration, Time hoq_life);

  LinkPort& port() { return port_; }
  PortOutput& stage() { return stage_; }
  const PortOutput& stage() const { return stage_; }
  // PortInfo.HOQLife (R17): how long a head may wait here before it is discarded.
  Time hoq_life() const { return hoq_life_; }
  void set_hoq_life(Time t) { hoq_life_ = t; }

  // `r`'s packet of `blocks` credits waits for output VL `vl`.
  // The requests waiting on output VL `vl`.
  std::size_t requests(std::uint8_t vl) const { return requests_[vl].size(); }
  void request(std::uint8_t vl, Requester r, std::uint32_t blocks) {
    requests_[vl].push_back(Request{r, blocks});
    waiting_ |= static_cast<std::uint16_t>(1u << vl);
  }
  // Takes `r`'s request off output VL `vl` (where it is).
  void withdraw(std::uint8_t vl, Requester r);
  // Takes `r`'s requests off every VL.
  void withdraw(Requester r);
  // Looks for the next packet to send (something new to send, the port free, credits back).
  void try_start() { stage_.try_send(); }
  // The input whose packet is on the wire (in 0: none of the inputs'), and its link_seq here.
  Requester sending() const { return sending_; }
  std::uint64_t sending_seq() const { return sending_seq_; }

  // --- PortOutput::Source ---
  void prepare() override;
  std::uint16_t waiting_vls() const override { return waiting_; }
  PortOutput::Candidacy candidate(std::uint8_t vl) override;
  Packet* take(std::uint8_t vl) override;
  void sent(std::uint8_t vl, Packet* p, Time start) override;
  bool blocked_after_send(std::uint8_t vl) override;
  void tx_done(Packet* p) override;
  void drop_own(Packet* p, DropReason reason) override;

 private:
  struct Request {
    Requester from;
    std::uint32_t blocks;  // its packet's credits
  };
  // Clears VL v's waiting bit when nothing waits for it any more.
  void clear_if_idle(unsigned v) {
    if (requests_[v].empty()) waiting_ &= static_cast<std::uint16_t>(~(1u << v));
  }
  // Whether the packet of `e` leaves on `vl` with FECN (out of line: the hot path keeps a null test).
  bool cc_depart(std::uint8_t vl, std::uint32_t blocks, bool marked);

  Switch& sw_;
  LinkPort& port_;
  PortNum out_;
  unsigned num_ports_;
  Time hoq_life_;
  std::array<std::vector<Request>, kMaxDataVls + 1> requests_;  // per output VL
  std::uint16_t waiting_ = 0;  // bit v: requests_[v] not empty
  std::array<PortNum, kMaxDataVls + 1> next_rr_{};
  std::array<std::int16_t, kMaxDataVls + 1> winner_{};  // per VL: the request candidate() found
  Requester sending_;
  std::uint64_t sending_seq_ = 0;
  PortOutput stage_;
};

}  // namespace ibfsim
