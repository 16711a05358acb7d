// The output stage of one port of a node, in front of its link transmitter; switches and HCAs
// share it (as Garnet's routers share an OutputUnit). It decides what goes on the wire next:
//   1. management packets the node sends itself (SMPs, on VL15: no credits needed, R3);
//   2. then GMPs (QP1 MADs) on their data VL, once that VL has credits, outside VL arbitration;
//   3. then the node's own unarbitrated packets (an HCA's CNPs), if any;
//   4. then the VL arbiter's choice among the VLs whose next packet fits (VL15 first, R19).
// Data packets come from the node through a Source: a switch's crossbar requests, an HCA's send
// queues. The output keeps each data VL's credit-stall time (a packet is ready and its VL has no
// credits) and is woken when the port is free again or credits return (try_send).
#pragma once
#include <cstdint>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/ring_queue.h"
#include "sim/link/link_port.h"
#include "sim/link/vl_arbiter.h"

namespace ibfsim {

class PortOutput {
 public:
  // Where a VL's next data packet stands.
  enum class Candidacy : std::uint8_t {
    kNone,     // nothing that may go yet (no packet, or it waits for its payload or a rate limit)
    kBlocked,  // a packet is ready but its VL lacks credits: the VL stalls
    kReady,    // a packet may go now
  };

  class Source {
   public:
    virtual ~Source() = default;
    // Before anything else, each time the output looks for work: drop what the port's state can
    // no longer carry (a switch, R20), stage packets (an HCA).
    virtual void prepare() {}
    // VLs (bit v, VL15 included) on which data packets wait for this output.
    virtual std::uint16_t waiting_vls() const = 0;
    // Whether packets outside arbitration wait (an HCA's CNPs).
    virtual bool unarbitrated_waiting() const { return false; }
    // Where VL v's next packet stands; a source may remember which packet it meant for take().
    virtual Candidacy candidate(std::uint8_t vl) = 0;
    // Every waiting VL has been asked (an HCA arms its wake-ups for payloads and rate limits).
    virtual void surveyed() {}
    // Sends one of its unarbitrated packets if one may go now (through send()); true if it did.
    virtual bool send_unarbitrated(PortOutput& /*out*/) { return false; }
    // The arbiter chose VL v (candidate() said kReady just before): the packet to send.
    virtual Packet* take(std::uint8_t vl) = 0;
    // Packet p, taken from VL v, started at `start` (now on the wire).
    virtual void sent(std::uint8_t vl, Packet* p, Time start) = 0;
    // After a packet of VL v left: whether what still waits on v lacks credits now.
    virtual bool blocked_after_send(std::uint8_t vl) = 0;
    // A data packet of this source finished on the wire (its last edge left).
    virtual void tx_done(Packet* p) = 0;
    // A management packet of the node is lost: the port went down (counted by the node).
    virtual void drop_own(Packet* p, DropReason reason) = 0;
  };

  // `survey_when_busy`: look at the waiting VLs even while the port is busy, so that each VL's
  // credit-stall time follows every credit return and every new packet exactly (HCAs: a few
  // queues); otherwise only when the port can start a packet, which saves the survey per credit
  // return on a busy output with many requests (switches), and a stall is then seen to end when
  // the port is next free.
  PortOutput(LinkPort& port, Source& source, VlArbConfig arbitration, bool survey_when_busy);
  PortOutput(const PortOutput&) = delete;
  PortOutput& operator=(const PortOutput&) = delete;

  LinkPort& port() { return port_; }
  const LinkPort& port() const { return port_; }
  // Queues an SMP (VL15) of the node's own, sent ahead of everything else.
  void send_management(Packet* p);
  // Queues a GMP of the node's own on the data VL in its LRH, sent once that VL has credits.
  void send_gsi(Packet* p);
  std::size_t queued_own() const { return management_.size() + gsi_.size(); }
  // Starts a packet of the node outside arbitration now (a source's send_unarbitrated).
  Time send(Packet* p);

  // Looks for the next packet to send: when the node has something new, when the port is free
  // again or when credits returned (PortOwner::on_output_free, on_credits).
  void try_send();
  // The port's transmitter finished packet p.
  void tx_done(Packet* p);

  // The VL arbitration tables of this output (the arbiter starts afresh).
  void set_vl_arbitration(const VlArbConfig& config);
  const VlArbConfig& vl_arbitration() const { return arb_config_; }

 private:
  // Waits for the port if anything waits for it.
  void wait_if_busy_work();
  bool anything_waits() const;

  LinkPort& port_;
  Source& source_;
  VlArbiter arbiter_;
  VlArbConfig arb_config_;
  RingQueue<Packet*> management_;  // the node's SMPs
  RingQueue<Packet*> gsi_;         // the node's GMPs (QP1) on data VLs
  Packet* own_on_wire_ = nullptr;
  bool survey_when_busy_;  // an SMP or GMP of the node being sent (tx_done is not the source's)
};

}  // namespace ibfsim
