// SA event subscriptions in band: the SM runs on h1 of h1..h4 on sw1 (4x QDR, 1 m cables, switch
// latency 100 ns). h2, h3 and h4 subscribe to trap 128 with SubnAdmSet(InformInfo); h3 then
// unsubscribes. h4's cable fails: sw1's SMA raises trap 128, the SM forwards it as
// SubnAdmReport(Notice) to the subscribers: h2 acknowledges with ReportResp, h4 (cut off) never
// does and the SM resends, then gives up; h3 gets nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <systemc>
#include <vector>

#include "sim/subnet_manager/sa/inform_info.h"
#include "sim/subnet_manager/sa/sa_client.h"
#include "sim/subnet_manager/sa/sa_report.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kTopology =
    "defaults: {link: {speed: QDR, width: 4x}, switch: {latency: 100ns}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca},"
    " {name: h3, type: hca}, {name: h4, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1, length: 1m}, {from: h2/1, to: sw1/2, length: 1m},"
    " {from: h3/1, to: sw1/3, length: 1m}, {from: h4/1, to: sw1/4, length: 1m}]\n";

struct Query {
  SaClient* client = nullptr;
  SaMad request;
  std::optional<SaMad> answer;
  void fire() {
    client->query(request, [this](const SaMad* a) {
      if (a) answer = *a;
    });
  }
};

SaMad inform(bool subscribe) {
  InformInfo i;
  i.trap_number_or_device = kTrapLinkStateChange;
  i.subscribe = subscribe;
  SaData d{};
  const auto b = encode_inform_info(i);
  std::copy(b.begin(), b.end(), d.begin());
  return make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO, 0, d, 0);
}

const std::vector<std::string> kFields = {
    "infiniband.mad.method", "infiniband.mad.attributeid", "infiniband.mad.status",
    "infiniband.informinfo.subscribe", "infiniband.informinfo.isgeneric", "infiniband.informinfo.trapnumberdeviceid",
    "infiniband.informinfo.qpn", "infiniband.informinfo.lidrangebegin", "infiniband.notice.isgeneric",
    "infiniband.notice.type", "infiniband.notice.producertypevendorid", "infiniband.notice.trapnumberdeviceid",
    "infiniband.notice.issuerlid", "_ws.malformed"};

// tshark's reading of the SA MADs (class 0x03) of `pcap`, one map of kFields per frame.
std::vector<std::map<std::string, std::string>> sa_frames(const std::string& pcap) {
  std::string cmd = "/usr/bin/tshark -n -r '" + pcap + "' -Y 'infiniband.mad.mgmtclass == 3' -T fields -E separator=';'";
  for (const auto& f : kFields) cmd += " -e " + f;
  const CommandResult r = run_command("(" + cmd + " 2>/dev/null)");
  INFO(cmd << "\n" << r.output.substr(0, 3000));
  REQUIRE(r.exit_code == 0);
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, ';');) cells.push_back(c);
    if (!line.empty() && line.back() == ';') cells.emplace_back();
    REQUIRE(cells.size() == kFields.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size(); ++i) row[kFields[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

std::uint64_t num(const std::map<std::string, std::string>& row, const std::string& field) {
  INFO(field << " = '" << row.at(field) << "'");
  REQUIRE_FALSE(row.at(field).empty());
  return std::stoull(row.at(field), nullptr, 0);
}

}  // namespace

TEST_CASE("SA Reports: trap 128 reaches the subscribers at the time the wire and the SA take, resent to one "
          "that does not answer",
          "[subnet_manager][sa]") {
  // The SA takes 200 us per request and per trap it forwards: long enough that the re-sweep the
  // trap starts is over (checked below) when the Reports leave, so they meet idle links.
  constexpr Time kSa = 200 * kUs;
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = 1;
  sm.config.sa_latency = kSa;
  o.subnet_manager = sm;
  const std::string pcap = scratch_dir("sa_report_in_band") + "/run.pcap";
  o.pcap_path = pcap;
  Fabric& f = build_fabric(kTopology, o);
  static Time done = 0;
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    if (done == 0) {
      done = r.done;
      sc_core::sc_pause();
    }
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f.subnet_manager()->configured());

  SaClientConfig cc;
  cc.timeout = 1 * kMs;  // longer than the SA's queue of 200 us requests: no resends
  SaClient c2(*f.hca_sma(2), 1, cc), c3(*f.hca_sma(3), 1, cc), c4(*f.hca_sma(4), 1, cc);
  static std::vector<Time> at2, at3, at4;
  static std::vector<SaMad> got2;
  c2.set_on_report([](const SaMad& r, Time t) {
    at2.push_back(t);
    got2.push_back(r);
  });
  c3.set_on_report([](const SaMad&, Time t) { at3.push_back(t); });
  c4.set_on_report([](const SaMad&, Time t) { at4.push_back(t); });
  static Query s2, s3, s4, u3;
  s2 = Query{&c2, inform(true)};
  s3 = Query{&c3, inform(true)};
  s4 = Query{&c4, inform(true)};
  u3 = Query{&c3, inform(false)};
  const Time t = (done + 10 * kUs) / kUs * kUs;
  fire_at(*f.hca(2), t, &s2);
  fire_at(*f.hca(3), t + 1 * kUs, &s3);
  fire_at(*f.hca(4), t + 2 * kUs, &s4);
  fire_at(*f.hca(3), t + 700 * kUs, &u3);  // after the three answers (200 us apart)
  const Time fault = t + 1000 * kUs;
  f.schedule_faults({LinkFault{fault, 4, 1, false}});  // h4's cable
  run_for(f, 1000 * kUs + 700 * kUs);

  for (Query* q : {&s2, &s3, &s4, &u3}) {
    REQUIRE(q->answer);
    CHECK(q->client->stats().resent == 0);
    CHECK(q->answer->header.status == 0);
    CHECK(q->answer->header.method == IB_MAD_METHOD_GET_RESP);
    CHECK(q->answer->header.attribute_id == IB_MAD_ATTR_INFORM_INFO);
    CHECK(decode_inform_info(q->answer->data.data()).trap_number_or_device == 128);
  }
  REQUIRE(f.subnet_manager()->sa().subscriptions().all().size() == 2);  // h2's and h4's

  // By hand (the rules of sa_in_band_test.cpp and sma_fabric_test.cpp): sw1's SMA sees its port 4
  // go down at `fault` and sends trap 128 after its 1 us of processing, on sw1's port-1 clock edge
  // (1 ns at 4x QDR): the 290-byte SMP + 2 delimiters take 73 edges, the 1 m cable 5: the SM has it
  // at fault + 1078 ns. The SA forwards it 200 us later; the Report (a 290-byte GMP) takes 186 ns
  // to h2 through sw1 (h1 -> sw1 78 ns, 100 ns switch latency, sw1 -> h2 78 ns, cut through):
  // fault + 201264 ns.
  REQUIRE(at2.size() == 1);
  CHECK(at2[0] == fault + 201264 * kNs);
  const Notice n = report_notice(got2[0]);
  CHECK(n.trap_number_or_device == kTrapLinkStateChange);
  CHECK(n.issuer_lid == f.switch_at(0)->lid());
  CHECK(report_issuer_gid(got2[0]) == gid_of(kDefaultGidPrefix, f.switch_sma(0)->state().ports[0].guid));
  CHECK(got2[0].header.method == IB_MAD_METHOD_REPORT);
  CHECK(got2[0].header.attribute_id == IB_MAD_ATTR_NOTICE);
  // The re-sweep the trap started was over before the Reports left.
  REQUIRE(f.subnet_manager()->sweeps().size() == 2);
  CHECK(f.subnet_manager()->sweeps()[1].done < fault + 201078 * kNs);
  CHECK(at3.empty());  // unsubscribed
  CHECK(at4.empty());  // cut off
  CHECK(c2.stats().reports == 1);

  const auto& reports = f.subnet_manager()->sa_stats().reports;
  REQUIRE(reports.size() == 2);
  const auto& r2 = reports.at(f.hca(2)->lid());
  CHECK(r2.sent == 1);
  CHECK(r2.acknowledged == 1);
  CHECK(r2.resent == 0);
  CHECK(r2.failed == 0);
  // h4's: sent, then again after each 100 us timeout (smp_timeout), 3 times (smp_retries), then
  // given up 100 us after the last: fault + 201078 ns + 400 us, within the run.
  const auto& r4 = reports.at(f.hca(4)->lid());
  CHECK(r4.sent == 1);
  CHECK(r4.resent == 3);
  CHECK(r4.acknowledged == 0);
  CHECK(r4.failed == 1);

  // The capture, as tshark (Debian 12's Wireshark 4.0) reads it: the InformInfo Sets and their
  // answers, the Reports and ReportResps, no malformed frame.
  f.finish();
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark absent: the capture is not decoded");
    return;
  }
  std::map<unsigned, unsigned> by_method;
  for (const auto& row : sa_frames(pcap)) {
    CHECK(row.at("_ws.malformed").empty());
    const auto method = static_cast<unsigned>(num(row, "infiniband.mad.method"));
    ++by_method[method];
    if (method == IB_MAD_METHOD_SET || method == IB_MAD_METHOD_GET_RESP) {
      CHECK(num(row, "infiniband.mad.attributeid") == IB_MAD_ATTR_INFORM_INFO);
      CHECK(num(row, "infiniband.informinfo.isgeneric") == 1);
      CHECK(num(row, "infiniband.informinfo.trapnumberdeviceid") == 128);
      CHECK(num(row, "infiniband.informinfo.qpn") == 1);
      CHECK(num(row, "infiniband.informinfo.lidrangebegin") == 0xFFFF);
    } else {
      CHECK(num(row, "infiniband.mad.attributeid") == IB_MAD_ATTR_NOTICE);
      CHECK(num(row, "infiniband.notice.isgeneric") == 1);
      CHECK(num(row, "infiniband.notice.type") == kNoticeTypeUrgent);
      CHECK(num(row, "infiniband.notice.producertypevendorid") == kNoticeProducerSwitch);
      CHECK(num(row, "infiniband.notice.trapnumberdeviceid") == 128);
      CHECK(num(row, "infiniband.notice.issuerlid") == f.switch_at(0)->lid());
    }
  }
  // A MAD is in the capture once per link it crosses: the 4 Sets and their 4 answers, host to
  // sw1 and sw1 to host, 8 frames each; the Report to h2 and its ReportResp 2 each; the 4 Reports
  // to h4 (1 + 3 resends) only on h1 -> sw1 (sw1's port to h4 is down): 6 Reports.
  CHECK(by_method.size() == 4);
  CHECK(by_method[IB_MAD_METHOD_SET] == 8);
  CHECK(by_method[IB_MAD_METHOD_GET_RESP] == 8);
  CHECK(by_method[IB_MAD_METHOD_REPORT] == 6);
  CHECK(by_method[IB_MAD_METHOD_REPORT_RESP] == 2);
}
