// An InfiniBand switch: input-buffered ports, LFT routing on the DLID read from the packet bytes,
// virtual cut-through and a round-robin arbiter per output among the inputs that want it.
//
// Forwarding timing: a packet whose LRH is in at `head` and whose tail arrives at `tail` may
// leave on output o at the first edge c of o's clock with
//   time(c) >= head + latency   and   time(c + s_out) >= tail + latency,
// i.e. cut-through after the port-to-port latency, but never so early that the output (which
// takes s_out edges) would run ahead of a slower input. Each input is a FIFO (one data VL); its
// head packet requests its output once eligible and the input frees the packet's buffer space
// (returning credits upstream) when the last symbol has left the output.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/network/lft.h"

namespace ibfsim {

struct SwitchConfig {
  unsigned num_ports = 36;
  Time latency = 100 * kNs;           // port-to-port, LRH in to first symbol out
  std::uint32_t rx_buffer_blocks = 128;  // per input port, 64-byte blocks
  Lid lid = 0;                        // the switch's own LID (management port 0)
  Lft lft;
};

struct SwitchStats {
  std::uint64_t forwarded = 0;
  std::uint64_t discarded = 0;
};

class Switch : public ScheduledModule, public PortOwner, public ActionHandler {
 public:
  Switch(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger);

  // Ports are numbered 1..num_ports.
  LinkPort& port(PortNum n) { return *ports_.at(n - 1); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  const SwitchConfig& config() const { return config_; }
  const SwitchStats& stats() const { return stats_; }

  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(LinkPort& port, Packet* p) override;
  void on_output_free(LinkPort& port) override;
  void on_credits(LinkPort& port) override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

 private:
  enum Kind : std::uint32_t { kEligible = 1, kDiscardAtTail };
  struct Entry {
    Packet* p;
    Time head, tail;
    PortNum out;
    std::uint32_t blocks;
  };
  struct Output {
    std::vector<PortNum> requesters;  // inputs whose head packet is eligible for this output
    PortNum next_rr = 1;              // round-robin: the input served first next time
    PortNum sending_from = 0;         // input whose packet is on the wire now
  };

  void consider_head(PortNum in);
  void try_start(PortNum out);
  void discard_at_tail(PortNum in, Packet* p, Time tail, DropReason reason);

  SwitchConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
  std::vector<std::deque<Entry>> inputs_;  // index = port number - 1
  std::vector<Output> outputs_;
  SwitchStats stats_;
};

}  // namespace ibfsim
