// A scenario: which fabric, what traffic, how long, what to write. Read from YAML (every key is
// documented in docs/scenario.md); `--set key=value` overrides are applied to the YAML first.
#pragma once
#include <cstdint>
#include <optional>
#include <yaml-cpp/yaml.h>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/topology.h"
#include "sim/workload/attack_spec.h"
#include "sim/workload/congestion_control_spec.h"
#include "sim/workload/simulation_spec.h"
#include "sim/workload/hca_model_spec.h"
#include "sim/workload/intra_node_spec.h"
#include "sim/workload/ipoib_spec.h"
#include "sim/workload/nccl_spec.h"
#include "sim/workload/roce_spec.h"
#include "sim/workload/trace_replay_spec.h"
#include "sim/workload/traffic_class_spec.h"
#include "sim/workload/cm_spec.h"
#include "sim/workload/srq_spec.h"
#include "sim/workload/verbs_flow_spec.h"

namespace ibfsim {

enum class Arrival { kPoisson, kConstant };

// One traffic flow: a set of sources sending UD SENDs to a destination rule at a load.
struct WorkloadSpec {
  std::string name = "flow0";            // for per-flow statistics
  std::vector<std::string> sources;      // HCA names that send; empty = every HCA
  std::string destination = "random";    // "random" (uniform over the other HCAs), an HCA, or a multicast group
  std::uint32_t message_size = 2048;     // UD SEND payload bytes, <= mtu
  std::uint32_t mtu = 4096;              // path MTU (256, 512, 1024, 2048 or 4096)
  double load = 0.5;                     // fraction of each source link's packet rate, (0, 1]
  Arrival arrival = Arrival::kPoisson;
  std::uint8_t sl = 0;                   // service level, mapped to a VL by SL->VL tables
};

struct Phases {
  // When traffic starts; the other phases and the faults count from here. Unset: once the fabric is
  // up, as a job starts on a ready fabric: when the subnet manager has finished its first sweep,
  // or (subnet_manager: static) once every link that trains is up (links train from time 0).
  std::optional<Time> start;
  Time warmup = 10 * kUs;   // traffic runs, nothing is measured
  Time measure = 100 * kUs; // packets created here are measured
  Time drain = 100 * kUs;   // no new traffic; the run ends when all is delivered or this expires
  // With verbs flows: the longest the run may last after `start` (they run until they are done).
  Time limit = kSec;
};

struct Outputs {
  bool pcap = false;               // trace.pcap + trace_links.csv
  bool pcap_link_packets = false;  // flow-control packets in the capture too
  std::uint32_t pcap_snaplen = 0;  // bytes kept of each frame in trace.pcap; 0 whole frames
  bool packet_log = false;         // packets.csv: every packet a source sent
  bool data_check = false;         // carry real payload bytes and check them at the receiver
  bool vcd = false;                // waves.vcd: credits and queue depth per VL of the listed ports
  std::vector<std::string> vcd_ports;  // "node/port"; empty = every switch port
  TimeSeriesSpec time_series;          // time_series.csv and its plots (interval 0: none)
  bool compress = false;  // the CSV tables zstd-compressed: ports.csv.zst, ... (report/table_file.h)
};

// The scenario's `subnet_manager:` (docs/scenario.md). `static` replaces the SM by the static LIDs
// and routes of the walking skeleton (static_routing.h).
// A host whose SA client subscribes, right after the bring-up, to the Notices of `traps` (one
// SubnAdmSet(InformInfo) each; 0xFFFF: every trap), `subnet_manager.sa.subscribers`.
struct SaSubscriberSpec {
  std::string host;
  std::vector<std::uint16_t> traps;
};

struct SubnetManagerSpec {
  bool in_band = true;
  std::string host;                  // empty: the first HCA with a cabled port
  SubnetManagerConfig config;        // sweep.lmc / routing, max_wire_smps, timeouts, sweep_interval
  SmaTiming sma;                     // every node's SMA
  std::vector<std::pair<std::string, SmaTiming>> sma_by_node;
  bool adaptive_routing_given = false;  // `adaptive_routing:` was set (it acts with ar_ftree, ar_updn)
  std::vector<SaSubscriberSpec> subscribers;  // sa.subscribers
};

struct Scenario {
  std::string file;           // the scenario file, for messages
  std::string topology_file;  // resolved path
  Topology topology;
  std::uint64_t seed = 1;
  SimulationSpec simulation;  // `simulation:` (threads); never changes the results
  std::vector<WorkloadSpec> flows;  // `workload:` is one flow (a map) or several (a list): UD generator flows
  std::vector<VerbsFlowSpec> verbs_flows;  // ... and verbs flows (transport rc, uc or ud)
  std::vector<TrafficClassSpec> classes;   // ... and traffic classes (entries with a `pattern:`)
  // Every `workload:` entry in file order: its kind and index in flows, verbs_flows or classes.
  enum class EntryKind { kGenerator, kVerbs, kClass };
  std::vector<std::pair<EntryKind, std::size_t>> workload_order;
  HcaModelSpec hca_model;     // `hca_model:`
  LinkSettings link;
  PhySettings phy;
  SubnetManagerSpec subnet_manager;
  CongestionControlSettings congestion_control;  // `congestion_control:` (off when absent)
  std::vector<LinkFault> faults;
  std::vector<std::string> warnings;  // about the topology (disconnected parts, links negotiating down)
  // Multicast groups (`multicast:`), by name; a flow whose destination names a group sends to it.
  std::vector<std::pair<std::string, std::vector<std::string>>> multicast;
  Phases phases;
  Outputs outputs;
  std::vector<AttackSpec> attacks;  // `attacks:`
  std::optional<IpoibSpec> ipoib;   // `ipoib:` (ipoib_spec.h)
  std::vector<NcclCollectiveSpec> collectives;  // `collectives:`, run one after the other
  IntraNodeSpec intra_node;                     // `intra_node:` (a server's GPU fabric; collectives use it)
  CmSpec cm;                                    // `cm:` (flows with connect: cm)
  std::optional<TraceReplaySpec> trace;         // `trace:` (trace_replay_spec.h)
  SrqSpec srq;                                  // `shared_receive_queue:` (flows with srq: true)
  FabricKind fabric = FabricKind::kInfiniband;  // `fabric:`
  RoceSpec roce;                                // `roce:` (fabric: roce only)
};

// Where the scenario's subnet manager runs: the named HCA, or the first HCA (declaration order)
// with a cabled port; on that HCA's first cabled port. Its config is the scenario's. Throws
// InputError if there is no such port. Requires subnet_manager.in_band.
SubnetManagerSettings subnet_manager_settings(const Scenario& sc);
// With routers: a subnet manager for every other subnet (topology_subnets.h), the primary's
// settings on the first HCA (declaration order) with a port in that subnet, or else its first
// switch's port 0.
std::vector<SubnetManagerSettings> other_subnet_managers(const Scenario& sc, const SubnetManagerSettings& primary);

// Reads a scenario file, applies overrides ("a.b=value", in order) and loads its topology
// (a path relative to the scenario file). Throws InputError naming file:line:col.
Scenario load_scenario(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides);
// The same for a document already read (and overridden) from `path`, which locates the topology
// and the messages; topology_overrides are keys of the topology file ("--set topology.KEY=VALUE"
// without "topology.").
Scenario parse_scenario(const YAML::Node& root, const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& topology_overrides = {});

}  // namespace ibfsim
