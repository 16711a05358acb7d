// A switch's SHARP aggregation node (Scalable Hierarchical Aggregation and Reduction Protocol):
// the reduction engine beside the crossbar that sums (min, max) the chunks a job's hosts send up
// its aggregation tree (sim/fabric/aggregation_tree.h) and sends the result back down.
//
// On the wire everything is a UD SEND Only with Immediate to QP kAggregationQpn of a switch's LID
// (Q_Key kSharpQKey), on a data VL: the immediate names the operation, tree << 24 | sequence
// (24 bits); the payload is the chunk, little-endian elements (sharp_reduction.h). A host sends
// its chunk to its leaf's node; a node that has every child's chunk of an operation (its child
// switches' partial results and its hosts' chunks) reduces them, and sends the result to its
// parent's node, or, at the root, down to every child: one packet per child switch (to its node,
// which passes it on to its own children after `latency`) and per host (to the host's UD QP, with
// the same immediate). The management port hands the node its packets whole (at their tail,
// sim/network/aggregation_agent.h), and it sends its own ahead of the crossbar's, as GMPs go.
//
// Limits (per node, every tree): at most `max_operations` operations at once; an operation holds
// its slot from its first child's chunk until its result leaves the node. A chunk of an operation
// without a slot waits, in arrival order, until one frees (counted: operations that waited, and
// how long). A chunk longer than `buffer_bytes` is an invariant failure (the hosts chunk to it).
//
// Timing: an operation whose last chunk is in at t is reduced on the node's one ALU, which takes
// bytes / bandwidth for it (0: no time) once it is free, and its result leaves `latency` after
// that; a result from the parent leaves for the children `latency` after it is in. Reductions
// carry values when the chunks carry payload (data checking): the result is then the reduction
// of the children's bytes in child order (switches first, then hosts in job order).
//
// Set-up (in band): the Aggregation Manager (sim/workload/sharp_aggregation_manager.h) sends the
// node TreeConfig MADs (sharp_mad.h: GMPs to QP1 of the switch's LID, class 0x0A), which the
// management port hands the node before the switch's SMA. The node's management processor serves
// them one at a time in arrival order, `mad_latency` each: at the end of that time the page is
// taken (the tree programmed once its last page is in) and the GetResp leaves, ahead of the
// crossbar's packets as GMPs go. A node holding `max_trees` trees refuses another
// (kSharpStatusNoTree; counted). Trees are kept until the run ends (no job release).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/network/aggregation_agent.h"
#include "sim/transport/sharp/sharp_mad.h"
#include "sim/transport/sharp/sharp_reduction.h"

namespace ibfsim {

class Switch;

inline constexpr Qpn kAggregationQpn = 0x5A0;           // the node's QP at every switch LID
inline constexpr std::uint32_t kSharpQKey = 0x53484152;  // "SHAR"

struct AggregationNodeConfig {
  Time latency = 200 * kNs;            // from an operation reduced (or a result in) to its packets out
  double bandwidth_gbps = 0;           // the ALU's bytes per ns (GB/s); 0: reductions take no time
  std::uint32_t max_operations = 16;   // operations at once (slots)
  std::uint32_t buffer_bytes = 4096;   // the largest chunk an operation holds
  Time mad_latency = 1 * kUs;          // the management processor's time per TreeConfig MAD
  std::uint32_t max_trees = 16;        // trees (jobs) a node holds at once
};

// Where a child is: a host's UD QP, or a child switch's node (its LID, kAggregationQpn).
struct AggregationEndpoint {
  Lid lid = 0;
  Qpn qpn = 0;
  bool operator==(const AggregationEndpoint& o) const { return lid == o.lid && qpn == o.qpn; }
};

// One tree's part at this node.
struct AggregationGroupSetup {
  std::uint8_t tree = 0;
  SharpOp op = SharpOp::kSum;
  SharpType type = SharpType::kFloat32;
  std::vector<AggregationEndpoint> children;  // child switches first, then hosts in job order
  std::optional<Lid> parent;                  // the parent switch's LID; none at the root
  std::uint8_t sl = 0;
  std::uint16_t p_key = 0xFFFF;
  bool operator==(const AggregationGroupSetup& o) const {
    return tree == o.tree && op == o.op && type == o.type && children == o.children && parent == o.parent &&
           sl == o.sl && p_key == o.p_key;
  }
};

struct AggregationNodeStats {
  std::uint64_t chunks_in = 0;      // child chunks taken
  std::uint64_t operations = 0;     // operations reduced here
  std::uint64_t results_up = 0;     // partial results sent to the parent
  std::uint64_t results_down = 0;   // result packets sent to children
  std::uint64_t waited = 0;         // operations whose first chunk found every slot taken
  Time wait_time = 0;               // their waits for a slot, summed
  std::uint32_t most_active = 0;    // the most slots taken at once
  std::uint64_t lost = 0;           // packets it could not send (no route, or the port down)
  std::uint64_t mads_answered = 0;  // TreeConfig MADs answered (every status)
  std::uint64_t trees_refused = 0;  // trees refused for max_trees
};

class AggregationNode : public AggregationAgent {
 public:
  AggregationNode(Switch& sw, AggregationNodeConfig config);
  std::string name() const;  // "sw1/aggregation", in event traces
  const AggregationNodeConfig& config() const { return config_; }
  const AggregationNodeStats& stats() const { return stats_; }
  std::uint32_t active() const { return active_; }
  std::size_t trees() const { return groups_.size(); }
  // Programs tree g.tree at this node (replacing what it had): what a TreeConfig MAD's last page does.
  void configure(const AggregationGroupSetup& g);

  bool take(Packet* p, PortNum port) override;

  // --- events (event.h) ---
  struct SlotRef {
    std::uint32_t slot;
    std::string text() const { return "slot " + std::to_string(slot); }
  };
  // Operation `slot` is reduced and its latency over: its result leaves.
  void result_ready(SlotRef r);
  // A result from the parent leaves for the children.
  void pass_down(Packet* p);
  // The management processor is done with the oldest MAD: it is applied and answered.
  void mad_served();

 private:
  struct Op {
    bool used = false;
    std::uint32_t key = 0;            // the immediate: tree << 24 | sequence
    std::uint32_t have = 0;           // chunks in
    std::vector<std::uint8_t> got;    // per child
    std::vector<std::uint8_t> acc;    // the reduction so far (empty: payload elided)
    std::uint32_t bytes = 0;
    bool carried = true;
  };
  struct Group {
    AggregationGroupSetup setup;
    std::map<std::uint64_t, std::uint32_t> child_of;  // (LID << 32 | QPN) -> child index
  };

  void absorb(Packet* p, std::uint32_t slot);
  std::optional<std::uint32_t> free_slot() const;
  void drain_waiting();
  // Builds a UD SEND with immediate `key` of `payload` to `to` and sends it out of the LFT's port.
  void send(const Group& g, std::uint32_t key, AggregationEndpoint to, std::uint32_t bytes,
            const std::vector<std::uint8_t>* payload);
  void consume(Packet* p);  // a packet taken here is delivered
  // A GMP of the SHARP class to this node's QP1: queued for the management processor.
  bool take_mad(Packet* p);
  struct PendingMad {
    std::vector<std::uint8_t> mad;
    Lid slid = 0;
    Qpn src_qp = 0;
    std::uint8_t sl = 0;
    std::uint16_t p_key = 0xFFFF;
  };
  std::uint16_t apply_mad(const SharpTreeConfigMad& m);  // the answer's status
  bool resends_held_page(const SharpTreeConfigMad& m) const;

  Switch& sw_;
  AggregationNodeConfig config_;
  std::map<std::uint8_t, Group> groups_;
  std::vector<Op> slots_;
  std::map<std::uint32_t, std::uint32_t> slot_of_;  // key -> slot
  std::uint32_t active_ = 0;
  struct Waiting {
    Packet* p;
    std::uint32_t key;
  };
  std::deque<Waiting> waiting_;
  std::map<std::uint32_t, Time> waiting_since_;  // key -> when its first chunk began to wait
  Time alu_free_ = 0;
  std::deque<PendingMad> mads_;                    // waiting for (or in) the management processor
  Time mad_free_ = 0;                              // when the management processor is free
  std::map<std::uint8_t, AggregationGroupSetup> partial_;  // trees whose pages are coming in
  AggregationNodeStats stats_;
};

}  // namespace ibfsim
