// The subnet manager as it runs inside the simulation, on one HCA port (OpenSM on a host) or on a
// switch's management port 0 (OpenSM on a managed switch): the timed shell around the sweep
// (sm_sweep.h). It sends the sweep's SMPs through its node's SMA (hca_sma.h, switch_sma.h) onto the
// fabric, so every SMP crosses the simulated links on VL15 and every answer comes back the same
// way; it never reads or writes a module directly.
//
//   * At most `max_wire_smps` requests are outstanding at once (OpenSM's max_wire_smps, 4).
//   * A request with no answer after `smp_timeout` is sent again, at most `smp_retries` times,
//     then given up (the sweep goes on without it). OpenSM waits 200 ms (transaction_timeout);
//     the default here is shorter so that a lost SMP does not dominate a run of microseconds.
//   * The first sweep starts when the SM's port comes up (its link trained; on a switch, the first
//     of its links). A trap 128 (a switch port changed state) is answered with TrapRepress and
//     starts a new heavy sweep, right away or as soon as the running one ends; so does a change of
//     a port of the SM's own switch (which sends no trap to itself), and the periodic sweep every
//     `sweep_interval` (0: none). Other traps (256, Bad M_Key) are answered with TrapRepress and
//     counted.
//   * The SM's own processing takes no simulated time; only the SMPs do.
//   * Its Subnet Administrator (sa/subnet_administrator.h) answers SA MADs (class 0x03) that reach
//     QP1 of the SM's node: one at a time, in arrival order, each `sa.latency` after it was
//     taken up, from the picture the last sweep left (while no sweep has finished, or one runs,
//     the answer is status Busy). The answer goes back to the requester's LID on the SL the
//     request came on. MFT blocks that a multicast join or leave changed are Set right after, with
//     LID-routed SMPs to each switch (retried as the sweep's SMPs are).
//   * Event forwarding (IBA Vol1 13.4.8, OpenSM's osm_inform.c): ports subscribe with SubnAdmSet
//     (InformInfo) (sa/inform_subscriptions.h). Every trap the SM receives is forwarded, `sa.latency`
//     after its arrival (the SA's processing, alongside the request queue), as a SubnAdmReport
//     (Notice, with IssuerGID the issuing port's GUID from the last sweep) to QP1 of each subscriber
//     whose InformInfo matches it, on the SL it subscribed on. A Report with no ReportResp after
//     `smp_timeout` is sent again, at most `smp_retries` times, then given up: OpenSM sends its
//     Reports expecting a response through the same transaction machinery as its SMPs
//     (transaction_timeout, transaction_retries 3). A switch repeating a trap (no TrapRepress
//     reached it) is forwarded again.
#pragma once
#include <atomic>
#include <deque>
#include <map>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/subnet_manager/mad/notice.h"
#include "sim/subnet_manager/sa/subnet_administrator.h"
#include "sim/subnet_manager/sma/sma_shell.h"
#include "sim/subnet_manager/sm/sm_sweep.h"

namespace ibfsim {

struct SubnetManagerConfig {
  SmSweepConfig sweep;
  unsigned max_wire_smps = 4;
  Time smp_timeout = 100 * kUs;
  unsigned smp_retries = 3;
  Time sweep_interval = 0;
  std::uint8_t priority = 0;  // SMInfo.Priority
  Time sa_latency = 2 * kUs;   // the SA's processing time per request
  SaSettings sa;
};

// Congestion control MADs (class 0x21) the SM sends to one node after its first sweep: to the
// LID of port `port` (0 for a switch's management port) of the node with `node_guid`.
struct CcTarget {
  Guid node_guid = 0;
  PortNum port = 0;
  std::vector<Mad> mads;  // Sets, in the order sent (cc_configuration.h)
};

// One heavy sweep, for results.
struct SweepRecord {
  std::string trigger;         // "port up", "trap 128", "periodic"
  Time started = 0, done = 0;
  std::uint64_t smps_sent = 0;  // SMPs the SM put on the wire (retries included)
  std::uint64_t retries = 0;
  std::uint64_t requests = 0;  // distinct requests of the sweep
  std::uint64_t errors = 0;    // bad statuses and requests given up on
  std::uint64_t lft_blocks = 0;
  std::uint64_t ar_smps = 0;  // adaptive routing Sets
  std::size_t nodes = 0, switches = 0, cas = 0, links = 0;
};

class SubnetManager : public SmpReceiver {
 public:
  static const char* name() { return "subnet manager"; }  // in event traces
  // Runs on `port` of the node whose SMA is `sma` (an HCA port 1..N, or 0 on a switch), and attaches
  // itself to it.
  SubnetManager(SmaShell& sma, PortNum port, SubnetManagerConfig config);

  // Sweeps as soon as the SM's port is up (now, if it already is). Call once, before or during
  // the run.
  void start();
  // Called after every sweep, once its last answer is in.
  void set_on_sweep_done(std::function<void(const SweepRecord&)> f) { on_done_ = std::move(f); }

  void on_smp(const Smp& smp, PortNum port, Lid slid) override;
  void on_port_state_change(PortNum port) override;
  void on_gmp(const ReceivedGmp& gmp, PortNum port) override;
  // Congestion control step (IBA Annex A10, OpenSM's osm_congestion_control): once the first
  // sweep has configured the fabric, the SM sends these Sets as GMPs (QP1, service level `sl`, a
  // data VL) and the first sweep counts as done only when every one is answered (or given up on
  // after smp_retries resends, like SMPs). Call before start().
  void set_cc_targets(std::vector<CcTarget> targets, std::uint8_t sl) {
    cc_targets_ = std::move(targets);
    cc_sl_ = sl;
  }
  std::uint64_t cc_mads_sent() const { return cc_sent_; }          // retries included
  std::uint64_t cc_mads_answered() const { return cc_answered_; }  // GetResp with status 0
  std::uint64_t cc_mads_failed() const { return cc_failed_; }      // bad status or given up

  // --- events (event.h) ---
  // A sweep is due (the port came up, or trap 128 arrived): it starts unless one is running.
  void sweep_due();
  // The answer to SMP `tid` (sent for the `tries`th time) or CC MAD `tid` is late.
  void smp_timed_out(std::uint64_t tid, unsigned tries);
  void cc_mad_timed_out(std::uint64_t tid, unsigned tries);
  // The SA has processed the request at the head of its queue; an MFT Set of the SA is late.
  void sa_served();
  void mft_set_timed_out(std::uint64_t tid, unsigned tries);
  // The SA has processed trap `id`: its Reports go out. Report `tid` is late.
  void report_due(std::uint64_t id);
  void report_timed_out(std::uint64_t tid, unsigned tries);
  // The periodic sweep of `generation` is due (stale if a later sweep re-armed it).
  void periodic_sweep_due(std::uint64_t generation);

  bool sweeping() const { return sweeping_; }
  // Whether the first sweep is over: LIDs, LFTs programmed and ports activated.
  bool configured() const { return ever_configured_; }
  const std::vector<SweepRecord>& sweeps() const { return records_; }
  const SmSweep& sweep() const { return sweep_; }
  std::uint64_t smps_sent() const { return smps_sent_; }
  std::uint64_t traps_received() const { return traps_; }
  std::uint64_t bad_m_key_traps() const { return bad_m_key_traps_; }  // trap 256, among traps_received
  const SubnetAdministrator& sa() const { return sa_; }
  struct SaStats {
    std::uint64_t requests = 0;  // SA MADs taken
    std::uint64_t answered = 0;  // answers sent (status Busy among them)
    std::uint64_t busy = 0;
    std::uint64_t mft_sets = 0;  // MFT Set SMPs sent for multicast groups (retries included)
    std::uint64_t mft_failed = 0;
    // By attribute (PathRecord 0x35, ...): requests taken, answers sent (Busy among them).
    std::map<std::uint16_t, std::uint64_t> requests_by_attribute, answers_by_attribute;
    // Reports (SubnAdmReport) by subscriber LID: Reports sent (first sends), resends,
    // acknowledged (a ReportResp arrived), given up after the resends.
    struct Reports {
      std::uint64_t sent = 0, resent = 0, acknowledged = 0, failed = 0;
    };
    std::map<Lid, Reports> reports;
  };
  const SaStats& sa_stats() const { return sa_stats_; }
  PortNum port() const { return port_; }
  const SubnetManagerConfig& config() const { return config_; }

  // What the current sweep has done, for a progress display on another thread: written with
  // relaxed atomic stores whenever the SM sends, read by anyone, never read by the simulation.
  struct Published {
    std::atomic<std::uint8_t> phase{0};      // SweepPhase
    std::atomic<std::uint64_t> nodes{0};     // nodes discovered
    std::atomic<std::uint64_t> requests{0};  // SMPs asked for (retries not counted)
  };
  const Published& published() const { return published_; }

 private:
  struct CcInFlight {
    Mad mad{};
    Lid dlid = 0;
    unsigned tries = 0;
  };
  bool start_cc();  // false when there is nothing to send
  void send_cc(std::uint64_t tid);
  void finish_sweep();
  SaSubnet sa_view() const;
  void send_mft_set(std::uint64_t tid);
  struct SaRequest {
    Mad mad{};
    Lid slid = 0;
    std::uint8_t sl = 0;
  };
  struct InFlight {
    Smp smp;
    unsigned tries = 0;
  };
  void begin_sweep(const std::string& trigger);
  // A sweep is wanted: now, or after the running one.
  void request_sweep(const char* trigger);
  void pump();
  void send(std::uint64_t tid);
  void check_done();
  Time now() const { return ScheduledModule::now(); }

  SmaShell& sma_;
  PortNum port_;
  SubnetManagerConfig config_;
  SmSweep sweep_;
  std::unordered_map<std::uint64_t, InFlight> in_flight_;
  bool started_ = false;       // start() was called
  bool sweeping_ = false;
  bool start_pending_ = false;  // a sweep_due event is scheduled
  std::string pending_trigger_;  // a sweep asked for while one runs
  std::vector<SweepRecord> records_;
  std::uint64_t smps_sent_ = 0, retries_ = 0, traps_ = 0, bad_m_key_traps_ = 0;
  std::uint64_t sweep_smps_ = 0, sweep_retries_ = 0;
  std::uint64_t periodic_generation_ = 0;
  std::function<void(const SweepRecord&)> on_done_;
  std::vector<CcTarget> cc_targets_;
  std::uint8_t cc_sl_ = 0;
  bool cc_done_ = false;  // the CC step ran (after the first sweep)
  std::unordered_map<std::uint64_t, CcInFlight> cc_in_flight_;
  std::uint64_t cc_sent_ = 0, cc_answered_ = 0, cc_failed_ = 0;
  Published published_;
  SubnetAdministrator sa_;
  std::deque<SaRequest> sa_queue_;
  bool sa_busy_ = false;
  bool ever_configured_ = false;
  struct MftInFlight {
    Smp smp;
    Lid dlid = 0;  // the switch's LID
    unsigned tries = 0;
  };
  std::unordered_map<std::uint64_t, MftInFlight> mft_in_flight_;
  std::uint64_t next_mft_tid_ = 0x5A00000000000000ull;
  struct ReportInFlight {
    Mad mad{};
    Lid dlid = 0;
    std::uint8_t sl = 0;
    unsigned tries = 0;
  };
  void send_report(std::uint64_t tid);
  std::map<std::uint64_t, std::pair<Notice, Gid>> traps_to_forward_;  // by id, until report_due
  std::uint64_t next_trap_id_ = 0;
  std::unordered_map<std::uint64_t, ReportInFlight> reports_in_flight_;
  std::uint64_t next_report_tid_ = 0x02DAB00000000000ull;
  SaStats sa_stats_;
};

}  // namespace ibfsim
