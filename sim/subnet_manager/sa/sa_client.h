// An SA client on an HCA port (what libibumad users such as librdmacm's path resolution or
// ibsim's saquery do through QP1): it sends SA requests as GMPs to the SM's LID (the port's
// PortInfo.MasterSMLID, which the SM set) and hands each answer to the caller. A request with no
// answer after `timeout`, or answered Busy (the SM sweeping), is sent again, at most `retries`
// times; then the caller hears of no answer. Answers are matched by TransactionID.
// A SubnAdmReport (a Notice the port subscribed to with an InformInfo Set, inform_info.h) is
// answered at once with SubnAdmReportResp to its sender (the same TID, on the SL it came on), then
// handed to the report callback; a resent Report (the same TID again) is acknowledged again.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "sim/core/time.h"
#include "sim/subnet_manager/sa/sa_mad.h"
#include "sim/subnet_manager/sma/sma_shell.h"

namespace ibfsim {

struct SaClientConfig {
  Time timeout = 100 * kUs;
  unsigned retries = 3;
  std::uint8_t sl = 0;  // the SL of the requests (the answer comes back on it)
  // Bits 31-24 of the TransactionIDs: clients on one port (every one sees every SA answer) must
  // differ here.
  std::uint8_t tid_tag = 0;
};

struct SaClientStats {
  std::uint64_t sent = 0;      // requests put on the wire, resends included
  std::uint64_t resent = 0;
  std::uint64_t answered = 0;  // answers handed to callers (any status but Busy)
  std::uint64_t failed = 0;    // given up on
  std::uint64_t reports = 0;   // SubnAdmReports received (and acknowledged), resends included
};

class SaClient : public GsiClient {
 public:
  static const char* name() { return "sa client"; }  // in event traces
  // Called with the answer, or nullptr when there was none after the retries.
  using Done = std::function<void(const SaMad* answer)>;
  // Called for every Report received: the MAD and when it arrived.
  using OnReport = std::function<void(const SaMad& report, Time at)>;

  // Sends from `port` of `sma` (an HCA's); attaches itself as the node's GSI client unless
  // `attach` is false (a CM agent, cm/cm_agent.h, is the node's client and hands it SA answers).
  SaClient(SmaShell& sma, PortNum port, SaClientConfig config = {}, bool attach = true);

  // Sends `request` (its TransactionID replaced by the client's next) now; returns the TID.
  std::uint64_t query(SaMad request, Done done);
  void on_gsi_answer(const ReceivedGmp& gmp, PortNum port) override;
  void set_on_report(OnReport f) { on_report_ = std::move(f); }
  // Event (event.h): the answer to `tid`, sent for the `tries`th time, is late.
  void query_timed_out(std::uint64_t tid, unsigned tries);

  const SaClientStats& stats() const { return stats_; }
  PortNum port() const { return port_; }

 private:
  struct Pending {
    Mad mad{};
    unsigned tries = 0;
    Done done;
  };
  void send(std::uint64_t tid);

  SmaShell& sma_;
  PortNum port_;
  SaClientConfig config_;
  std::uint64_t next_tid_;
  std::unordered_map<std::uint64_t, Pending> pending_;
  SaClientStats stats_;
  OnReport on_report_;
};

}  // namespace ibfsim
