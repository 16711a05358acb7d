// A RoCE v2 end node for tests of the Ethernet fabric: it sends the frames it is given (built by
// build_roce_frame) as fast as its port allows, from a set time, and records every frame that
// arrives (when its tail arrived, and its bytes as parse_roce_frame reads them). No queue pair: the
// frames are the test's.
#pragma once
#include <deque>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/ethernet/ethernet_port.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/roce/roce_packet.h"

namespace ibfsim::test {

class RoceEndpoint final : public ScheduledModule, public EthernetPortOwner {
 public:
  struct Received {
    Time head = 0, tail = 0;
    std::vector<std::uint8_t> frame;
    ParsedRoceFrame parsed;
  };

  RoceEndpoint(const sc_core::sc_module_name& name, PacketPool& pool, PacketLedger& ledger)
      : ScheduledModule(name), pool_(pool), ledger_(ledger), port_(*this, *this, 1, std::string(name) + "/1") {}

  EthernetPort& port() { return port_; }
  // Frames to send from `at` on, back to back.
  void send_at(Time at, const std::vector<std::vector<std::uint8_t>>& frames) {
    for (const auto& f : frames) {
      Packet* p = pool_.acquire();
      IBFSIM_CHECK(load_roce_frame(*p, f.data(), f.size(), false) == RoceFrameError::kNone, "not a RoCE frame");
      p->id = next_id_++;
      ledger_.created();
      waiting_.push_back(p);
    }
    schedule<&RoceEndpoint::kick>(at, this);
  }
  const std::vector<Received>& received() const { return received_; }
  const std::vector<Time>& sent_at() const { return sent_at_; }

  void kick() {
    if (waiting_.empty() || !port_.idle()) return;
    Packet* p = waiting_.front();
    waiting_.pop_front();
    ledger_.injected();
    sent_at_.push_back(port_.transmit(p));
  }
  void tail_arrives(Packet* p, Time head) {
    Received r;
    r.head = head;
    r.tail = now();
    p->write_frame(r.frame);
    r.parsed = parse_roce_frame(r.frame.data(), r.frame.size());
    received_.push_back(std::move(r));
    ledger_.delivered();
    pool_.release(p);
  }
  void on_frame_head(EthernetPort&, Packet* p, Time head, Time tail) override {
    schedule<&RoceEndpoint::tail_arrives>(tail, this, p, head);
  }
  void on_tx_done(EthernetPort&) override { kick(); }

 private:
  PacketPool& pool_;
  PacketLedger& ledger_;
  EthernetPort port_;
  std::deque<Packet*> waiting_;
  std::vector<Received> received_;
  std::vector<Time> sent_at_;
  std::uint64_t next_id_ = 1;
};

}  // namespace ibfsim::test
