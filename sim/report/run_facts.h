// What a run's results.json and printed summary say besides its registered statistics
// (stat_tables.h): plain data the workload gathers from the scenario and the fabric once the run is
// over, for run_results.h and run_summary.h. Times are in femtoseconds, as simulated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/core/time.h"
#include "sim/report/latency_histogram.h"
#include "sim/report/latency_stats.h"

namespace ibfsim {

// One sweep of the subnet manager (results.json "subnet_manager" "sweeps").
struct SweepFacts {
  std::string trigger;
  Time started = 0, done = 0;  // done 0: not finished
  std::uint64_t smps = 0, requests = 0, retries = 0, errors = 0, lft_blocks = 0;
  std::size_t nodes = 0, switches = 0, links = 0;
  std::optional<std::uint64_t> ar_smps;  // adaptive routing Sets, with an adaptive routing engine
};

// The in-band subnet manager (absent: static LIDs and routes).
struct SubnetManagerFacts {
  std::string host;
  unsigned port = 0;
  std::string routing;
  unsigned lmc = 0;
  std::uint64_t smps_sent = 0, traps_received = 0;
  bool configured = false;           // its first sweep brought the fabric up (else: stopped during it)
  std::vector<SweepFacts> sweeps;    // the first one is the bring-up
  std::vector<std::string> notes;
  // M_Key protection (subnet_manager.m_key set): its settings, the trap 256s the SM received and
  // every node whose ports counted M_Key violations (PortInfo.M_KeyViolations, summed over ports).
  struct MKeyFacts {
    unsigned protect_bits = 0, lease_period_s = 0;
    std::uint64_t bad_m_key_traps = 0;
    std::vector<std::pair<std::string, std::uint64_t>> violations;
  };
  std::optional<MKeyFacts> m_key;
};

// Payload offered and accepted over the measurement window.
struct ThroughputFacts {
  std::uint64_t offered_bytes = 0;
  std::uint64_t accepted_bytes = 0, accepted_packets = 0;
  Time window = 0;
  double accepted_gbps() const;
  double offered_gbps() const;
};

// A flow of the UD traffic generator.
struct GeneratorFlowFacts {
  std::string name;
  unsigned sl = 0;
  std::uint64_t message_size = 0;
  double load = 0;
  std::string arrival, destination;
  std::size_t sources = 0;
  const LatencyStats* latency = nullptr;
  const LatencyStats* network_latency = nullptr;
  ThroughputFacts throughput;
};

// The HCA model an HCA ran with (results.json "hca_model").
struct HcaModelFacts {
  std::string hca;
  Time doorbell_to_wire = 0, wire_to_completion = 0;
  unsigned pcie_gen = 0, pcie_width = 0, pcie_max_payload = 0;
  bool pcie_unlimited = false;
  double host_interface_gbytes_per_s = 0;  // 0 when unlimited
  std::vector<std::uint16_t> p_keys;
  std::string memory_keys;  // how it makes memory keys; empty: sequential (the default, not shown)
  bool rc_out_of_order = false;
};

// A cable: its training, when it came up, went down and came back, and its PHY's error counts.
struct LinkFacts {
  std::string a, b, rate, trained, phy_mode;  // trained: the rate it trained to, or "down"
  std::string fec;                              // the FEC code it runs (fec.h); empty: none
  bool lane_reversed = false;
  Time training = 0;
  std::vector<Time> up, active, down;  // up[0] and active[0]: after the first training
  struct PhyCounts {
    std::uint64_t bits_flipped = 0, symbol_errors = 0, bad_frames = 0, skips = 0;  // both directions
  };
  std::optional<PhyCounts> phy;  // bit-exact links only
};

// A link fault and what it cost each destination host.
struct FaultFacts {
  std::string link;
  bool up = false;
  Time at = 0;
  bool subnet_manager = false;        // whether a resweep could follow
  std::optional<Time> resweep_done;   // the first sweep started after it that finished
  // Adaptive routing's fast recovery: when the last switch that took a fault notification about it
  // stopped choosing the failed path (before the next fault).
  std::optional<Time> ar_moved;
  struct Destination {
    std::string node;
    Time last_before = kTimeNever, first_after = kTimeNever;  // kTimeNever: none
  };
  std::vector<Destination> destinations;
};

// A switch an attack sent SMPs to (rogue_smp, smp_flood): what its SMA did with them since the
// attack began (attack_targets.csv).
struct AttackTargetFacts {
  std::string attack, target;     // the attack's name, the switch's
  std::vector<unsigned> path;     // the directed route to it, from the attacker
  std::uint64_t smps_processed = 0, smps_overflowed = 0, m_key_refused = 0;
  std::optional<bool> hijack_in_place;  // rogue_smp: the attacker's LID or LFT block is in place
};

// The congestion control settings (results.json "congestion_control" "settings").
struct CcSettingsFacts {
  unsigned threshold = 0, packet_size = 0, marking_rate = 0, cs_threshold = 0;
  bool per_sl = false;
  double ccti_timer_us = 0;
  unsigned ccti_increase = 0, ccti_min = 0, trigger_threshold = 0, ccti_limit = 0;
  std::vector<std::string> cct;  // "shift:multiplier" up to CCTI_Limit
};

// The adaptive routing settings (results.json "adaptive_routing" "settings").
struct ArSettingsFacts {
  std::string routing;
  std::vector<unsigned> sls;
  Time flowlet_gap = 0;
  unsigned credit_levels = 0;
  unsigned flowlet_margin = 1;
  bool fast_recovery = false;
  unsigned congestion_threshold = 0;  // blocks; 0: no congestion notifications
  Time congestion_hold = 0;
};

// The figures a load sweep plots, over every load-driven flow and class of the run.
struct StudyFigures {
  bool load_driven = false;
  double offered_load = 0, accepted_load = 0;  // fractions of the sources' injection links
  double offered_gbps = 0, accepted_gbps = 0;  // payload
  std::size_t sources = 0;
  LatencyHistogram message_latency, packet_latency, network_latency;
  std::uint64_t measured_undelivered = 0, waiting_at_sources = 0;
  bool saturated = false;
  std::string saturation_reason;
};

// Everything results.json and the summary say about a run that is not a registered statistic.
struct RunFacts {
  std::string version, scenario_file, topology_file;
  bool partial = false;  // stopped early (Ctrl-C)
  std::string stopped_by;  // the signal that stopped it ("SIGTERM"), if one did
  std::vector<std::string> warnings;  // the scenario's (results.json "warnings", the summary)
  std::size_t hcas = 0, switches = 0, cables = 0;
  // Cables per rate they carry ("4x EDR"), slowest first; one entry when the fabric has one rate.
  std::vector<std::pair<std::string, std::size_t>> cable_rates;
  std::uint64_t seed = 1;

  // Phases. With a subnet manager that never finished its first sweep (stopped early), fabric_up
  // is when the bring-up was interrupted.
  Time start = 0, warmup = 0, measure = 0, drain_limit = 0, end = 0, fabric_up = 0;
  bool start_given = false;  // phases.start was set (otherwise traffic starts once the fabric is up)
  bool drained = false;
  std::optional<SubnetManagerFacts> subnet_manager;

  const LatencyStats* latency = nullptr;  // every measured packet of the generator flows
  const LatencyStats* network_latency = nullptr;
  ThroughputFacts throughput;
  // Every flow in the order of `workload:`: a verbs flow's or traffic class's own results, or a
  // generator flow.
  std::vector<std::variant<nlohmann::json, GeneratorFlowFacts>> flows;
  std::vector<HcaModelFacts> hca_models;  // with verbs flows only
  StudyFigures study;
  std::vector<LinkFacts> links;
  std::vector<FaultFacts> faults;
  std::optional<CcSettingsFacts> congestion_control;
  std::optional<ArSettingsFacts> adaptive_routing;

  // For the summary only.
  std::vector<std::string> class_summaries, verbs_summaries, attack_summaries;
  std::vector<std::string> collective_tables;  // nccl-tests' table of each collective; the trace replay's summary
  std::vector<nlohmann::json> attacks;  // `attacks:`, each as the attack reports itself
  std::vector<AttackTargetFacts> attack_targets;  // every switch an attack sent SMPs to
  std::string results_path;
  std::string report_path;  // report.html (run_report.h)
  struct TimeSeries {
    std::size_t samples = 0;
    std::string csv_path, plot_note;  // plot_note: why no plot was made (empty: made)
  };
  std::optional<TimeSeries> time_series;
};

}  // namespace ibfsim
