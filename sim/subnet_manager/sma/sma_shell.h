// The timed side of a node's SMA, shared by switches (switch_sma.h) and HCAs (hca_sma.h): it takes
// the SMPs the node's management port (a switch's port 0, an HCA's QP0) receives, walks the
// directed route (directed_route.h), serves them one at a time like the node's management
// processor, calls the pure SMA (sma.h) and sends the answers.
//
// Time (`SmaTiming`, a setting per node): every SMP the node handles occupies its management
// processor for `process` (an SMP addressed to the node: decoded, answered, a Set applied to the
// hardware) or `dr_forward` (a directed-route SMP the switch passes on to its next hop), in arrival
// order; the answer or the forwarded SMP is handed to the output at the end of that time. SMPs for
// an SM running on the node (answers, traps) skip the queue: the SM has its own processor.
//
// M_Key (sma.h): a request refused for its M_Key is answered by nothing but a trap 256 (Bad M_Key)
// to the SM the port knows (PortInfo.MasterSMLID), by LID from the port's LID; an SM on this node
// gets it directly. Like the Linux SMAs, at most one such trap per 4.096 us x 2^SubnetTimeOut (of
// the refusing port): a flood of forged SMPs does not become a flood of traps.
//
// Every SMP is a real packet: a UD SEND to QP0 on VL15 carrying the 256-byte MAD (smp_packet.h). A
// packet that is not one (not a UD SEND to QP0, no 256-byte BaseVersion 1 MAD of class 0x01/0x81,
// R38) or that the directed-route rules refuse is discarded and counted as `malformed`. In the
// ledger an SMP is delivered where an agent takes it and a new one is created for each send.
#pragma once
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/link/vl_arbiter.h"
#include "sim/link/lrh.h"
#include "sim/network/management_agent.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/gmp_packet.h"
#include "sim/subnet_manager/sma/sma.h"

namespace ibfsim {

struct SmaTiming {
  Time process = 1 * kUs;        // an SMP addressed to this node
  Time dr_forward = 500 * kNs;   // a directed-route SMP a switch passes on
  // SMPs that may wait for the management processor (QP0's receive queue); one arriving when it
  // is full is dropped and counted (`sma_overflow`). 0: no limit.
  unsigned queue_depth = 0;
};

struct SmaStats {
  std::uint64_t processed = 0;   // requests answered (or discarded for their M_Key)
  std::uint64_t forwarded = 0;   // directed-route SMPs passed on (switches)
  std::uint64_t discarded = 0;   // malformed, refused by the walk, or with nowhere to go
  std::uint64_t overflowed = 0;  // dropped because the queue was full
  std::uint64_t sets_applied = 0;
  std::uint64_t traps_sent = 0;
  std::uint64_t gmps_answered = 0;  // GMPs (QP1, data VL) the node's agents answered
  std::uint64_t m_key_violations = 0;  // requests refused for their M_Key (all ports)
};

// Receives what the SMA hands an SM on the same node: answers to its requests and traps.
class SmpReceiver {
 public:
  virtual ~SmpReceiver() = default;
  // `slid` is the LRH SLID (the trap's sender, or 0xFFFF for a directed-route answer).
  virtual void on_smp(const Smp& smp, PortNum port, Lid slid) = 0;
  // The physical link of the node's `port` came up or went down.
  virtual void on_port_state_change(PortNum /*port*/) {}
  // An answer to one of the SM's GMPs (QP1), e.g. a Congestion Control GetResp or an SA
  // ReportResp, or an SA request.
  virtual void on_gmp(const ReceivedGmp& /*gmp*/, PortNum /*port*/) {}
};

// Receives the GMPs for a GSI client on this node (the CM agent, cm/cm_agent.h, which carries the
// SA client, sa/sa_client.h): SA GetResp, GetTableResp and DeleteResp (class 0x03 with the R bit),
// SA Reports of the Notices the port subscribed to, and every CM MAD (class 0x07).
class GsiClient {
 public:
  virtual ~GsiClient() = default;
  virtual void on_gsi_answer(const ReceivedGmp& gmp, PortNum port) = 0;
};

class SmaShell : public ManagementAgent {
 public:
  SmaState& state() { return state_; }
  const SmaState& state() const { return state_; }
  const SmaStats& stats() const { return stats_; }
  const SmaTiming& timing() const { return timing_; }
  void set_timing(const SmaTiming& t) { timing_ = t; }

  void on_management_packet(Packet* p, PortNum port) override;
  // Event (event.h): the management processor is done with the SMP at the head of its queue.
  void smp_served();

  // --- a subnet manager running on this node (subnet_manager.h) ---
  // An SM runs on `port` (an HCA port, or a switch's management port 0): answers and traps go to
  // `sm`, the port's PortInfo shows IsSM, and SMInfo is answered with `info` (update it with
  // set_sm_info).
  void attach_sm(SmpReceiver* sm, PortNum port, const SmInfo& info);
  void set_sm_info(const SmInfo& info) { state_.sm_info = info; }
  // Sends one of the SM's SMPs: a directed-route one along its path from this node, a LID-routed
  // one to `dlid` (out of `port` on an HCA, where the LFT says on a switch).
  void send_from_sm(const Smp& smp, PortNum port, Lid dlid = kLidPermissive);
  // Sends one of the SM's GMPs (QP1 to QP1) to `dlid` out of `port` with service level `sl`.
  virtual void send_gmp_from_sm(const Mad& mad, PortNum port, Lid dlid, std::uint8_t sl) {
    send_gmp(mad, dlid, sl, port);
  }
  // --- GSI clients on this node (an HCA's SA client, sa/sa_client.h, its CM agent) ---
  // CM MADs arriving on QP1 go to the client attached last, SA Reports to the one attached first
  // (a scenario's subscriber, made at bring-up before any CM agent or IPoIB interface); SA answers
  // go to every client (each takes the TransactionIDs it sent); SA requests and ReportResps go to
  // the SM running here (none: dropped, counted as discarded).
  void attach_gsi_client(GsiClient* c) { gsi_clients_.push_back(c); }
  // Every GMP of management class `mgmt_class` this node receives goes to `c` (a vendor class's
  // manager on this host: SHARP's aggregation manager takes the answers of its class 0x0A).
  void attach_class_client(std::uint8_t mgmt_class, GsiClient* c) { class_clients_.push_back({mgmt_class, c}); }
  // Sends a client's GMP (QP1 to QP1) to `dlid` out of `port` with service level `sl`.
  void send_gsi(const Mad& mad, PortNum port, Lid dlid, std::uint8_t sl) { send_gmp(mad, dlid, sl, port); }
  // Whether the SM on `port` reaches the fabric: an HCA port's link is up; a switch's management
  // port is once any of the switch's links is.
  virtual bool sm_port_up(PortNum port) const = 0;
  // The module whose calendar the node's agents (and an SM on it) schedule their events on.
  ScheduledModule& module() { return module_; }

 protected:
  SmaShell(ScheduledModule& module, PacketPool& pool, PacketLedger& ledger, SmaState state, DrNode node,
           SmaTiming timing);

  // --- what the node provides ---
  virtual void send_packet(PortNum port, Packet* p) = 0;
  // The SLID of an SMP this node sends by LID out of `port`.
  virtual Lid own_lid(PortNum port) const = 0;
  // The port an SMP to `dlid` leaves by (a CA: the port it came in on), or 0 if none.
  virtual PortNum lid_route(Lid dlid, PortNum arrival) const = 0;
  // Brings the live fields of port p's PortInfo (states, link width and speed) up to date.
  virtual void sync_port(PortNum p) = 0;
  // Programs the hardware after a Set the SMA applied.
  virtual void apply(const Smp& request, const SmaResult& result, PortNum arrival) = 0;
  // An answer or trap for an SM on this node; false if none runs here.
  bool deliver_to_sm(const Smp& smp, PortNum port, Lid slid);
  // A TrapRepress arrived (switches stop repeating their trap).
  virtual void on_trap_repress(const Smp& /*smp*/) {}
  // A GMP addressed to this node (QP1 on a data VL, LID-routed): a request for one of the node's
  // GSI agents (the Congestion Control Agent) or an answer for an SM running here. Returns the
  // answer to send back to the requester, if any. Default: none (the GMP is discarded).
  virtual std::optional<Mad> on_gmp(const ReceivedGmp& /*gmp*/, PortNum /*port*/) { return std::nullopt; }
  // Sends a GMP packet out of `port` on its data VL (the node's GSI send queue).
  virtual void send_gmp_packet(PortNum port, Packet* p) = 0;
  // The data VL a GMP with `sl` leaves `port` on (the node's SL->VL table).
  virtual std::uint8_t gmp_vl(PortNum port, std::uint8_t sl) const = 0;

  // Sends `mad` as a GMP to `dlid` out of `port` (counted as created).
  void send_gmp(const Mad& mad, Lid dlid, std::uint8_t sl, PortNum port);

  // Sends `smp` out of `port` with LRH DLID/SLID as given (counted as created).
  void send_smp(const Smp& smp, Lid dlid, Lid slid, PortNum port);
  // Sends a directed-route SMP on from this node: applies the walk as from a local origin and
  // sends it out its next port. One whose directed part ends here is served by this node's SMA (a
  // request with HopCount 0, as if it came in on `local_port`) or handed to its SM (an answer).
  // Returns false if the walk refused it (counted as discarded).
  bool send_directed(Smp smp, PortNum local_port);
  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  const DrNode& dr_node() const { return node_; }
  SmaStats stats_;
  SmaState state_;
  SmpReceiver* sm_ = nullptr;  // the SM running on this node, if any
  std::vector<GsiClient*> gsi_clients_;
  std::vector<std::pair<std::uint8_t, GsiClient*>> class_clients_;

 private:
  struct Job {
    Smp smp;          // after this node's step of the directed-route walk
    DrDecision decision;
    Lrh lrh;
    PortNum port;     // arrival port
    bool by_lid;      // reached the node by LID rather than on the permissive LID
  };
  void start_next();
  void serve(Job& job);
  void answer(const Job& job);
  void discard();
  // Trap 256 for `bad`, refused by the M_Key of port `keyed`.
  void report_bad_m_key(const Smp& bad, PortNum keyed);

  ScheduledModule& module_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  DrNode node_;
  SmaTiming timing_;
  std::deque<Job> queue_;
  bool busy_ = false;
  static constexpr std::uint64_t kBadMKeyTrapTids = 0x2560000000000000ull;  // TIDs of trap 256
  std::uint64_t bad_m_key_traps_ = 0;
  Time bad_m_key_quiet_until_ = 0;
};

// Writes an SMP packet (smp_packet.h) into a fresh packet from `pool`.
Packet* make_smp_packet(PacketPool& pool, const Smp& smp, Lid dlid, Lid slid);

// The live fields of a port's PortInfo, read from its link: PortState, PortPhysicalState (LinkUp
// once trained, Polling while down), LinkWidthActive and LinkSpeed(Ext)Active.
void sync_live_port_info(PortInfo& info, const LinkPort& port);
// A PortInfo at power-up for a physical port: capabilities from the link port (VLCap,
// OperationalVLs, 4096-byte MTUCap, 64-entry VL arbitration tables), the enabled speeds and widths
// given (PortInfo encodings), NeighborMTU from `mtu_bytes`.
PortInfo power_up_port_info(const LinkPort& port, std::uint8_t speeds_enabled, std::uint8_t speeds_ext_enabled,
                            std::uint8_t widths_enabled, std::uint32_t mtu_bytes, unsigned hoq_life_code);
// VL arbitration: the SMA's four blocks <-> the arbiter's tables (trailing weight-0 entries dropped).
void store_vl_arbitration(SmaPort& port, const VlArbConfig& config);
VlArbConfig vl_arbitration_of(const SmaPort& port);

}  // namespace ibfsim
