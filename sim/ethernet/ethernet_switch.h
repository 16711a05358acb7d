// An Ethernet L3 switch (an IP router at every port, as the leaf and spine switches of a RoCE v2
// fabric are): frames in, the routing unit of l3_forwarding.h (longest prefix, ECMP), output
// queues per priority, frames out. One module; its ports meet other nodes only at the wire.
//
// Timing. A frame's decision is taken when its head (l3_decision_bytes) has arrived. It becomes
// eligible for its output `latency` after its head (cut-through) or after its tail
// (store-and-forward), and leaves on the output's first free byte edge from then on, the highest
// priority first (strict priority), first come first served within one. Cut-through applies only
// where the output is not faster than the input (a faster output would run out of bytes before the
// tail is in: such a frame is stored and forwarded).
//
// Buffer. Every queued frame takes its bytes (MAC .. FCS) from one buffer the outputs share, from
// its head until its last byte has left, charged to its ingress port and priority (pfc_ingress.h).
// A frame of a lossy priority that finds the shared part too full is dropped, as are frames the
// routing unit refuses; each drop is counted with its reason (EthernetDrop) and in the packet
// ledger, when its tail has arrived. Lossless priorities (EthernetSwitchConfig::pfc, off by
// default) have reservations per ingress port and never drop: the ingress port sends XOFF and XON
// (PFC frames, ethernet_switch_pfc.cpp), and every output honours the PFC frames it receives (a
// paused priority starts no frame; the others go on).
//
// ECN. With marking on (EthernetSwitchConfig::ecn, ecn_marking.h), a frame joining an output
// queue may be marked CE by the bytes that queue holds (frames routed to it, from their decision
// until their last byte has left), before the rewrite below recomputes its FCS.
//
// Rewrite. A forwarded frame leaves with the output port's MAC as source, the next hop's (the far
// end of that port's cable) as destination, TTL or Hop Limit one less and a new FCS; RoCE's ICRC
// masks those fields and stays good.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/ring_queue.h"
#include "sim/core/scheduled_module.h"
#include "sim/ethernet/ecn_marking.h"
#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ethernet_port.h"
#include "sim/ethernet/pfc_headroom.h"
#include "sim/ethernet/pfc_ingress.h"
#include "sim/ethernet/route_table.h"

namespace ibfsim {

// Why an Ethernet switch dropped a frame.
enum class EthernetDrop : std::uint8_t {
  kNotIp,        // not IPv4 (without options) or IPv6
  kNoRoute,      // no route contains its destination
  kTtlExpired,   // TTL or Hop Limit would reach 0
  kBufferFull,   // the shared buffer had no room for it (a lossy priority)
  kCount
};
const char* ethernet_drop_name(EthernetDrop d);

constexpr unsigned kEthernetPriorities = 8;

class EthernetSwitch;
// Hears when a PFC frame begins a pause of one of a switch's egress ports (the run's deadlock
// detector, fabric/pfc_deadlock_detector.h: it wakes only while pauses last).
class PfcPauseWatcher {
 public:
  virtual ~PfcPauseWatcher() = default;
  virtual void pause_began(EthernetSwitch& sw, PortNum port, unsigned prio) = 0;
};

struct EthernetSwitchConfig {
  unsigned num_ports = 2;
  std::vector<MacAddress> port_macs;       // [port-1]: the source MAC of frames it sends
  std::vector<MacAddress> neighbour_macs;  // [port-1]: the MAC of the port at the far end of its cable
  RouteTable routes;
  std::uint32_t ecmp_seed = 0;  // per switch (ecmp.h)
  bool cut_through = true;
  Time latency = 0;                        // decision point to eligible at the output (fs)
  std::uint64_t buffer_bytes = 16u << 20;  // shared by every output queue
  EthernetPfcConfig pfc;                   // lossless priorities (pfc_ingress.h); off by default
  EcnMarkingConfig ecn;                    // RED/ECN marking at every egress queue (off by default)
  std::uint64_t ecn_seed = 0;              // its draws: RngStream(ecn_seed, ecn_stream)
  std::uint64_t ecn_stream = kEcnMarkStream;
};

// The part of a switch's configuration its node in a fabric plan gives (ports, MACs, routes, ECMP
// seed); timing and buffer stay the defaults for the caller to set.
EthernetSwitchConfig switch_config_from_plan(const EthernetNodePlan& node);

struct EthernetSwitchStats {
  std::array<std::uint64_t, static_cast<int>(EthernetDrop::kCount)> dropped{};
  std::uint64_t forwarded = 0;
  std::uint64_t buffer_peak_bytes = 0;
  std::uint64_t dropped_total() const;
};

class EthernetSwitch final : public ScheduledModule, public EthernetPortOwner {
 public:
  EthernetSwitch(const sc_core::sc_module_name& name, EthernetSwitchConfig config, PacketPool& pool,
                 PacketLedger& ledger);

  EthernetPort& port(PortNum n) { return *ports_.at(n - 1); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  const EthernetSwitchConfig& config() const { return config_; }
  const EthernetSwitchStats& stats() const { return stats_; }
  // The egress queues' bytes and the frames marked CE per port.
  const EcnMarker& ecn() const { return ecn_; }
  std::uint64_t buffer_used() const { return buffer_used_; }
  // Frames waiting in the output queues.
  std::size_t queued_frames() const;
  // Frames waiting in output `out`'s queue of priority `prio`.
  std::size_t queued_frames(PortNum out, unsigned prio) const { return queues_.at(out - 1).at(prio).size(); }
  void set_pause_watcher(PfcPauseWatcher* w) { pause_watcher_ = w; }

  // Where a forwarded frame waits.
  struct QueueRef {
    PortNum out = 0;
    std::uint8_t priority = 0;
    PfcCharge charge;  // what its bytes are charged to (pfc_ingress.h)
    std::string text() const;
  };
  // --- events ---
  // Frame `p` may leave by its output now.
  void frame_eligible(Packet* p, QueueRef q);
  // The tail of dropped frame `p` has arrived: it is gone.
  void drop_at_tail(Packet* p, EthernetDrop why);

  // EthernetPortOwner
  void on_frame_head(EthernetPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(EthernetPort& port) override;
  void on_tx_ready(EthernetPort& port) override { try_send(port.number()); }
  void on_paused(EthernetPort& port, unsigned prio) override {
    if (pause_watcher_) pause_watcher_->pause_began(*this, port.number(), prio);
  }

  // --- PFC (ethernet_switch_pfc.cpp) ---
  // The headroom of port n's lossless priorities: the configured one, or computed from its cable.
  PfcHeadroom pfc_headroom(PortNum n) const;
  std::uint64_t pfc_headroom_bytes(PortNum n) const;
  const PfcIngress& pfc() const { return pfc_; }
  // XOFF still holds for (in, prio): sent again (the generation of the XOFF it refreshes).
  void pfc_refresh(PortNum in, std::uint8_t prio, std::uint32_t generation);

 private:
  void try_send(PortNum out);
  // PFC's hooks (ethernet_switch_pfc.cpp): a frame's admission to the buffer, its leaving it.
  PfcIngress::Admission pfc_admit(EthernetPort& in, std::uint8_t prio, std::uint64_t bytes);
  void pfc_left(PortNum out, std::uint64_t bytes);
  void pfc_signal(PortNum in, std::uint8_t prio, bool xoff);

  EthernetSwitchConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  std::vector<std::unique_ptr<EthernetPort>> ports_;
  // [port-1][priority]
  std::vector<std::array<RingQueue<Packet*>, kEthernetPriorities>> queues_;
  std::uint64_t buffer_used_ = 0;
  EthernetSwitchStats stats_;
  PfcIngress pfc_;
  std::vector<std::uint32_t> pfc_generation_;  // [(port-1) * 8 + prio]: XOFFs sent
  EcnMarker ecn_;
  std::vector<std::uint8_t> tx_priority_;  // [port-1]: the queue of the frame it sends
  PfcPauseWatcher* pause_watcher_ = nullptr;
};

}  // namespace ibfsim
