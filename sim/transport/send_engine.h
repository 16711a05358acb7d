// The send engine of one HCA port: its send queues, one per VL, served by the port's output stage
// (port_output.h, which also sends the SMPs, GMPs and CNPs outside them), and what fills them:
//   - verbs QPs with something to send wait on their VL's ring and take turns, each building its
//     next packet only when that VL's queue is empty (one packet staged per VL); the payload is
//     read over the host interface (DMA), and the packet may go once that is done. A packet is
//     staged as the one ahead of it starts, so its DMA overlaps that one's time on the wire;
//   - the traffic generator's UD QPs and raw packets are injected at the wire: built as they are
//     posted and queued at once, with no doorbell and no payload DMA.
// Congestion control (hca_congestion_control.h) may hold a VL's next packet for its flow's
// inter-packet delay, and picks among the QPs of a ring one whose packet may go.
#pragma once
#include <string>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/ring_queue.h"
#include "sim/core/time.h"
#include "sim/link/port_output.h"
#include "sim/transport/host_interface.h"
#include "sim/transport/queue_pair.h"

namespace ibfsim {

class Hca;
class EthernetPort;
struct RocePortConfig;
class RoceAddressBook;

// What the send engines of one HCA share.
struct SendShared {
  explicit SendShared(const HostInterfaceConfig& host) : dma(host) {}
  DmaPipe dma;                        // the host interface's read direction: staged payloads
  bool payload_wake_pending = false;  // a SendEngine::payload_ready is scheduled
  bool pulling = false;  // an engine is staging from its QPs: a QP woken meanwhile waits for it
};

class SendEngine : public PortOutput::Source {
 public:
  // A source of datagrams that offers more than the port takes keeps its messages unbuilt while
  // their VL's send queue is full (kFeedDepth packets built): it waits here, in the order of its
  // next message's arrival, and builds that message when the queue has room again. So a source
  // past saturation holds one pending arrival, not a growing queue of packets, and the packets
  // leave in the order and at the times they would have if every one had been built on arrival.
  class DatagramFeeder {
   public:
    virtual ~DatagramFeeder() = default;
    // The VL has room: post the waiting message now (it may then wait again for its next).
    virtual void feed() = 0;
  };
  static constexpr std::size_t kFeedDepth = 4;

  SendEngine(Hca& hca, PortNum n, const VlArbConfig& arbitration, SendShared& shared);
  // Its name in event traces: the HCA's, and the block's.
  std::string name() const;
  SendEngine(const SendEngine&) = delete;
  SendEngine& operator=(const SendEngine&) = delete;

  PortNum port_number() const { return n_; }
  PortOutput& output() { return output_; }
  const PortOutput& output() const { return output_; }
  // The port's output looks for the next packet to send (PortOutput::try_send; on Ethernet,
  // ethernet_try_send).
  void try_send() {
    if (eth_) ethernet_try_send();
    else output_.try_send();
  }
  // Makes this engine send on Ethernet port `port` (send_engine_ethernet.cpp): its packets are
  // framed as RoCE v2 as they go, no credits are waited for, and the VLs with a packet ready take
  // turns (round robin; the SL->VL table still picks the queue). The references must outlive it.
  void attach_ethernet(EthernetPort& port, const RocePortConfig& roce, const RoceAddressBook& book) {
    eth_ = &port;
    roce_ = &roce;
    book_ = &book;
  }

  // Hca::post_ud_send on generator QP q (of this port): the datagram `d` is built now, carrying
  // the payload pattern when payloads are carried, and queued; its SL must map to an operational
  // data VL, else it is dropped and counted (R16). Returns the packet id.
  std::uint64_t post_datagram(QueuePair& q, const QueuePair::Datagram& d, bool measured, std::uint16_t flow,
                              Time created = kTimeNever);
  // Whether a datagram for VL vl may be built now: its queue holds fewer than kFeedDepth and no
  // feeder waits on it (always, for VL15 or a VL not operational: the post drops it and counts it).
  bool has_room(std::uint8_t vl) const {
    return vl == kVl15 || vl >= output_.port().op_vls() || (queues_[vl].size() < kFeedDepth && feeders_[vl].empty());
  }
  // Feeder f's next message arrived at `arrival` and waits for room on VL vl.
  void wait_for_room(std::uint8_t vl, DatagramFeeder* f, Time arrival);
  // Hca::send_raw: a copy of `raw`, queued on the VL its LRH names. Returns the packet id.
  std::uint64_t send_raw(const Packet& raw);
  // Verbs QP q, of this port, has something to send (TransportEnv::wake): it joins its VL's ring.
  void wake(QueuePair& q);
  // A packet of this port that will never be sent: counted as injected and dropped at once, so
  // that the ledger balances.
  void drop_unsent(Packet* p, DropReason reason);

  // Packets in the send queues: all, or VL vl's.
  std::size_t queued() const;
  std::size_t queued(std::uint8_t vl) const { return queues_[vl].size(); }
  // When the payload DMA of the packet staged on VL vl is (or was) done.
  Time staged_ready(std::uint8_t vl) const { return staged_ready_[vl]; }

  // --- PortOutput::Source ---
  // Stages a packet on each VL whose queue is empty, from the QPs waiting on it.
  void prepare() override;
  std::uint16_t waiting_vls() const override { return queued_vls_; }
  bool unarbitrated_waiting() const override;
  // kNone while the VL's next packet waits for its payload or its congestion control delay.
  PortOutput::Candidacy candidate(std::uint8_t vl) override;
  // Arms the wake-ups for the payloads and delays the survey found.
  void surveyed() override;
  bool send_unarbitrated(PortOutput& out) override;
  Packet* take(std::uint8_t vl) override;
  // Counts the packet, tells the observer and its QP, and stages the next one.
  void sent(std::uint8_t vl, Packet* p, Time start) override;
  bool blocked_after_send(std::uint8_t vl) override;
  void tx_done(Packet*) override {}
  void drop_own(Packet* p, DropReason reason) override;

  // --- events (event.h) ---
  // The payload DMA of a staged packet is done. The host interface is the HCA's, so one wake
  // serves every port: each looks again.
  void payload_ready();

 private:
  // A packet waiting for the port, and the verbs QP that built it (told when it goes on the wire).
  struct Queued {
    Packet* p = nullptr;
    QueuePair* qp = nullptr;
    Time ready = 0;      // its payload DMA done
    bool pass = false;   // a QP's packet with nothing to read from host memory (an ACK, inline)
  };
  void enqueue(std::uint8_t vl, Packet* p, QueuePair* qp, Time ready = 0, bool pass = false);
  // Queues a packet built at post time, or drops it if its VL is not operational.
  void inject(Packet* p, std::uint8_t vl, bool vl15_allowed);
  // Lets the waiting feeders of VL vl build while its queue has room (after a packet left it).
  void feed(std::uint8_t vl);
  // Stages from the QPs of every VL whose ring holds some and whose queue is empty.
  void pull_from_qps();
  // Builds the next packet of QP q (taken off VL v's ring) and stages it.
  void stage_from(QueuePair& q, std::uint8_t v);

  // The Ethernet port's output: picks a VL whose packet is ready, frames it as RoCE v2 and sends it.
  void ethernet_try_send();

  Hca& hca_;
  PortNum n_;
  EthernetPort* eth_ = nullptr;  // null: InfiniBand (output_)
  const RocePortConfig* roce_ = nullptr;
  const RoceAddressBook* book_ = nullptr;
  std::uint8_t eth_next_vl_ = 0;  // round robin among ready VLs
  SendShared& shared_;
  PortOutput output_;
  std::array<RingQueue<Queued>, kMaxDataVls + 1> queues_;
  std::uint16_t queued_vls_ = 0;                         // bit v set while queues_[v] is not empty
  std::array<std::deque<QueuePair*>, kMaxDataVls + 1> rings_;  // verbs QPs to serve, per VL
  std::uint16_t ring_vls_ = 0;                           // bit v set while rings_[v] is not empty
  std::array<Time, kMaxDataVls + 1> staged_ready_{};     // DMA of the staged packet done
  std::array<std::uint8_t, kMaxDataVls + 1> passing_{};  // queued entries with `pass` set
  QueuePair* taken_qp_ = nullptr;  // the verbs QP of the packet take() handed out
  Time dma_wait_ = kTimeNever, cc_wait_ = kTimeNever;  // found by the survey: when to look again
  std::vector<std::uint8_t> payload_;  // the generator's payload pattern, reused packet to packet
  // Feeders waiting for room, per VL, earliest arrival first (then the order they came to wait).
  struct WaitingFeeder {
    Time arrival;
    std::uint64_t order;
    DatagramFeeder* feeder;
    bool operator>(const WaitingFeeder& o) const {
      return arrival != o.arrival ? arrival > o.arrival : order > o.order;
    }
  };
  std::array<std::priority_queue<WaitingFeeder, std::vector<WaitingFeeder>, std::greater<WaitingFeeder>>,
             kMaxDataVls + 1>
      feeders_;
  std::uint64_t feeder_order_ = 0;
  bool feeding_ = false;  // feed() is posting: the output is already looking, no try_send
};

}  // namespace ibfsim
