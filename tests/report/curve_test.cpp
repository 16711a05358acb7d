// A sweep's curve from points' results: rows, series, the saturation point by each criterion, and
// the CSV's exact text.
#include <catch2/catch.hpp>

#include "sim/report/curve.h"

using namespace ibfsim;

namespace {

nlohmann::json point(double offered, double accepted, double mean_ns, bool saturated = false) {
  nlohmann::json j;
  j["partial"] = false;
  j["load"] = {{"offered", offered}, {"accepted", accepted}, {"offered_payload_gbps", offered * 100},
               {"accepted_payload_gbps", accepted * 100}, {"sources", 8}};
  j["message_latency"] = {{"count", 100}, {"mean_ns", mean_ns}, {"p50_ns", mean_ns}, {"p90_ns", mean_ns},
                          {"p99_ns", 2 * mean_ns}, {"p99_9_ns", 2 * mean_ns}, {"max_ns", 3 * mean_ns}};
  j["saturation"] = {{"saturated", saturated}};
  return j;
}

}  // namespace

TEST_CASE("curve: the first point that drops 5% below its offered load is the saturation point", "[report][curve]") {
  // Loads 0.2, 0.4, 0.6, 0.8: accepted follows up to 0.4, then 0.55 < 0.6 x 0.95 = 0.57.
  const Curve c = build_curve({"workload.load"}, {{"0.2"}, {"0.4"}, {"0.6"}, {"0.8"}},
                              {point(0.2, 0.2, 500), point(0.4, 0.39, 800), point(0.6, 0.55, 2000), point(0.8, 0.55, 9000)},
                              SaturationCriteria{});
  REQUIRE(c.series.size() == 1);
  CHECK(c.series[0].zero_load_latency_ns == Approx(500));
  REQUIRE(c.series[0].saturation_row);
  CHECK(*c.series[0].saturation_row == 2);
  CHECK(c.series[0].max_accepted_load == Approx(0.55));
  CHECK_FALSE(c.rows[1].saturated);  // 0.39 >= 0.38
  CHECK(c.rows[3].saturated);
  const auto s = saturation_json(c);
  CHECK(s["series"][0]["saturation_point"]["offered_load"] == 0.6);
  CHECK(s["series"][0]["last_unsaturated"]["offered_load"] == 0.4);
}

TEST_CASE("curve: latency beyond 10x zero-load, or a run that could not drain, also saturates", "[report][curve]") {
  const Curve lat = build_curve({"k"}, {{"a"}, {"b"}}, {point(0.1, 0.1, 500), point(0.3, 0.3, 5001)}, SaturationCriteria{});
  CHECK(lat.rows[1].saturated);
  const Curve ok = build_curve({"k"}, {{"a"}, {"b"}}, {point(0.1, 0.1, 500), point(0.3, 0.3, 5000)}, SaturationCriteria{});
  CHECK_FALSE(ok.rows[1].saturated);
  const Curve drain = build_curve({"k"}, {{"a"}, {"b"}}, {point(0.1, 0.1, 500), point(0.3, 0.3, 600, true)}, SaturationCriteria{});
  CHECK(drain.rows[1].saturated);
  CHECK(drain.rows[1].run_saturated);
}

TEST_CASE("curve: the second key splits the points into series, each with its own saturation", "[report][curve]") {
  const Curve c = build_curve({"workload.load", "workload.pattern"},
                              {{"0.2", "uniform"}, {"0.2", "transpose"}, {"0.8", "uniform"}, {"0.8", "transpose"}},
                              {point(0.2, 0.2, 500), point(0.2, 0.2, 600), point(0.8, 0.79, 900), point(0.8, 0.3, 9000)},
                              SaturationCriteria{});
  REQUIRE(c.series.size() == 2);
  CHECK(c.series[0].label == "workload.pattern=uniform");
  CHECK(c.series[1].label == "workload.pattern=transpose");
  CHECK_FALSE(c.series[0].saturation_row);
  REQUIRE(c.series[1].saturation_row);
  CHECK(*c.series[1].saturation_row == 3);
}

TEST_CASE("curve.csv: one row per point in point order, failed points kept with empty figures", "[report][curve]") {
  const Curve c = build_curve({"workload.load"}, {{"0.5"}, {"0.9"}}, {point(0.5, 0.5, 531.4471), std::nullopt},
                              SaturationCriteria{});
  CHECK(curve_csv(c) ==
        "point,workload.load,status,offered_load,accepted_load,offered_payload_gbps,accepted_payload_gbps,messages,"
        "msg_mean_ns,msg_p50_ns,msg_p90_ns,msg_p99_ns,msg_p99_9_ns,msg_max_ns,pkt_mean_ns,pkt_p99_ns,net_mean_ns,"
        "fct_mean_ns,run_saturated,saturated\n"
        "0,0.5,ok,0.500000,0.500000,50.0000,50.0000,100,531.447,531.447,531.447,1062.894,1062.894,1594.341,,,,,0,0\n"
        "1,0.9,failed,,,,,0,,,,,,,,,,,0,0\n");
  // The plot data leaves the failed point out.
  CHECK(plot_data_csv(c) == "# curve\n0.500000,0.500000,531.447,1062.894\n");
}

TEST_CASE("curve: an interrupted point is listed as partial but neither plotted nor judged", "[report][curve]") {
  nlohmann::json cut = point(0.3, 0.1, 400);
  cut["partial"] = true;
  const Curve c = build_curve({"k"}, {{"a"}, {"b"}}, {point(0.2, 0.2, 500), cut}, SaturationCriteria{});
  CHECK(c.rows[1].status == "partial");
  CHECK(c.series[0].rows == std::vector<std::size_t>{0});
  CHECK_FALSE(c.series[0].saturation_row);  // 0.1 < 0.3 x 0.95 would have counted
}

TEST_CASE("curve metrics: one column each in curve.csv, a data block per series, and their plots", "[report][curve][metric]") {
  nlohmann::json a = point(0.5, 0.5, 500), b = point(0.5, 0.5, 700);
  a["flows"] = {{{"name", "victim"}, {"gbps", 31.5}}};
  b["flows"] = {{{"name", "victim"}, {"gbps", 50.25}}};
  a["hot"] = 0.99;
  b["hot"] = 0.9587;
  const std::vector<CurveMetric> metrics = {{"victim", "flows[name=victim].gbps"}, {"hot", "hot"}, {"none", "nothing"}};
  const Curve c = build_curve({"cc.threshold"}, {{"4"}, {"12"}, {"14"}}, {a, b, std::nullopt}, SaturationCriteria{}, metrics);
  const std::string csv = curve_csv(c);
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header.size() > 15);
  CHECK(header.substr(header.size() - 16) == ",victim,hot,none");
  // A metric a point lacks, and every metric of a failed point, are empty cells.
  CHECK(csv.find(",31.5,0.99,\n") != std::string::npos);
  CHECK(csv.find(",50.25,0.9587,\n") != std::string::npos);
  CHECK(csv.find("2,14,failed,") != std::string::npos);
  CHECK(csv.substr(csv.size() - 4) == ",,,\n");
  CHECK(metrics_data_csv(c) == "# curve\n4,31.5,0.99,\n12,50.25,0.9587,\n");
  const std::string gp = gnuplot_script(c, "cc");
  CHECK(gp.find("set output 'metrics.png'") != std::string::npos);
  CHECK(gp.find("set multiplot layout 3,1") != std::string::npos);
  CHECK(gp.find("set output 'tradeoff.svg'") != std::string::npos);
  CHECK(gp.find("using 2:3:1 with labels") != std::string::npos);
  // Without metrics: no metrics data and no metrics plots.
  const Curve plain = build_curve({"cc.threshold"}, {{"4"}, {"12"}}, {a, b}, SaturationCriteria{});
  CHECK(metrics_data_csv(plain).empty());
  CHECK(gnuplot_script(plain, "cc").find("metrics") == std::string::npos);
}
