// A verbs flow's figures (verbs_flow.h), as perftest reports them: bandwidth over first post to
// last completion, latency samples (t_typical the median), completions by status, the QPs'
// transport counters and the data check; its entry in results.json and its printed summary.
#include <fmt/format.h>

#include "sim/workload/perftest_latency.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

namespace {

double ns(double fs) { return fs / 1e6; }

nlohmann::json qp_stats_json(const QpStats& s) {
  return {{"packets_sent", s.packets_sent},
          {"packets_retransmitted", s.packets_retransmitted},
          {"acks_sent", s.acks_sent},
          {"acks_received", s.acks_received},
          {"seq_naks_sent", s.naks_seq_sent},
          {"seq_naks_received", s.naks_seq_received},
          {"rnr_naks_sent", s.rnr_naks_sent},
          {"rnr_naks_received", s.rnr_naks_received},
          {"error_naks_sent", s.naks_error_sent},
          {"error_naks_received", s.naks_error_received},
          {"ack_timeouts", s.ack_timeouts},
          {"retry_exceeded", s.retry_exceeded},
          {"rnr_retry_exceeded", s.rnr_retry_exceeded},
          {"implied_naks", s.implied_naks},
          {"stale_responses", s.stale_responses},
          {"duplicates_received", s.duplicates_received},
          {"out_of_sequence_dropped", s.out_of_sequence_dropped},
          {"uc_messages_dropped", s.uc_messages_dropped},
          {"qkey_violations", s.qkey_violations},
          {"no_receive_dropped", s.no_recv_wqe_dropped},
          {"remote_access_errors", s.remote_access_errors},
          {"ooo_placed", s.ooo_placed},
          {"ooo_held", s.ooo_held},
          {"ooo_read_responses", s.ooo_read_responses}};
}

nlohmann::json status_json(const std::map<int, std::uint64_t>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [st, n] : m) j[wc_status_str(static_cast<ibv_wc_status>(st))] = n;
  return j;
}

std::string status_text(const std::map<int, std::uint64_t>& m) {
  std::string s;
  for (const auto& [st, n] : m) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", wc_status_str(static_cast<ibv_wc_status>(st)), n);
  return s.empty() ? "none" : s;
}

nlohmann::json latency_json(const std::vector<Time>& samples, double rtt_factor) {
  const PerftestLatency l = perftest_latency(samples, rtt_factor);
  nlohmann::json j;
  j["count"] = l.count;
  if (l.count == 0) return j;
  j["min_ns"] = ns(l.min_fs);
  j["typical_ns"] = ns(l.typical_fs);
  j["mean_ns"] = ns(l.mean_fs);
  j["stdev_ns"] = ns(l.stdev_fs);
  j["p99_ns"] = ns(l.p99_fs);
  j["p99_9_ns"] = ns(l.p99_9_fs);
  j["max_ns"] = ns(l.max_fs);
  return j;
}

}  // namespace

nlohmann::json VerbsFlow::results() const {
  const Side& a = sides_[0];
  const Side& b = sides_[1];
  nlohmann::json j;
  j["name"] = spec_.name;
  j["transport"] = spec_.type == IBV_QPT_RC ? "rc" : spec_.type == IBV_QPT_UC ? "uc" : "ud";
  j["verb"] = verb_name(spec_.verb);
  j["test"] = lat() ? "lat" : "bw";
  j["from"] = spec_.from;
  j["to"] = spec_.to;
  j["message_size_bytes"] = spec_.message_size;
  if (spec_.duration) j["duration_ns"] = ns(static_cast<double>(*spec_.duration));
  else j["iterations"] = spec_.iterations;
  j["tx_depth"] = spec_.tx_depth;
  j["inline_size"] = spec_.inline_size;
  j["mtu"] = mtu_bytes(spec_.qp.mtu);
  j["start_ns"] = ns(static_cast<double>(begin_));
  j["finished"] = done();
  j["messages_posted"] = a.sent;
  const auto ok = a.send_status.count(IBV_WC_SUCCESS) ? a.send_status.at(IBV_WC_SUCCESS) : 0;
  j["messages_completed"] = ok;
  j["bytes_completed"] = bytes_completed_;
  const Time elapsed = first_post_ != kTimeNever && last_completion_ > first_post_ ? last_completion_ - first_post_ : 0;
  j["first_post_ns"] = first_post_ == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(first_post_)));
  j["last_completion_ns"] = ns(static_cast<double>(last_completion_));
  j["elapsed_ns"] = ns(static_cast<double>(elapsed));
  // As ib_*_bw reports: bytes / (last completion - first post); MB = 2^20 bytes, Gb = 10^9 bits.
  const double secs = static_cast<double>(elapsed) / 1e15;
  j["bandwidth_gbps"] = secs > 0 ? static_cast<double>(bytes_completed_) * 8 / secs / 1e9 : 0.0;
  j["bandwidth_mbytes_per_s"] = secs > 0 ? static_cast<double>(bytes_completed_) / secs / 1048576.0 : 0.0;
  j["message_rate_mpps"] = secs > 0 ? static_cast<double>(ok) / secs / 1e6 : 0.0;
  if (lat()) {
    std::vector<Time> d;
    for (std::size_t k = 0; k + 1 < a.posted_at.size(); ++k) d.push_back(a.posted_at[k + 1] - a.posted_at[k]);
    j["latency"] = latency_json(d, ping_pong() ? 2.0 : 1.0);
    j["latency"]["definition"] = ping_pong() ? "(post[i+1] - post[i]) / 2, ping-pong (ib_write_lat, ib_send_lat)"
                                             : "post[i+1] - post[i] (ib_read_lat, ib_atomic_lat)";
  } else {
    j["latency"] = latency_json(completion_latency_, 1.0);
    j["latency"]["definition"] = "post to completion, per message";
  }
  auto side_json = [&](const Side& s, const std::string& name) {
    return nlohmann::json{{"hca", name},
                          {"qpn", s.qp->qpn()},
                          {"qp_state", qp_state_str(s.qp->state())},
                          {"send_completions", status_json(s.send_status)},
                          {"receive_completions", status_json(s.recv_status)},
                          {"receives_posted", s.recvs_posted},
                          {"counters", qp_stats_json(s.qp->stats())}};
  };
  j["from_side"] = side_json(a, spec_.from);
  j["to_side"] = side_json(b, spec_.to);
  j["completions"] = status_json(a.send_status);
  j["receive_completions"] = status_json(b.recv_status);
  const QpStats& sa = a.qp->stats();
  const QpStats& sb = b.qp->stats();
  j["retransmitted_packets"] = sa.packets_retransmitted + sb.packets_retransmitted;
  j["rnr_naks"] = sa.rnr_naks_received + sb.rnr_naks_received;
  j["seq_naks"] = sa.naks_seq_received + sb.naks_seq_received;
  j["ack_timeouts"] = sa.ack_timeouts + sb.ack_timeouts;
  j["remote_access_errors"] = sa.remote_access_errors + sb.remote_access_errors;
  j["qkey_violations"] = sa.qkey_violations + sb.qkey_violations;
  if (window_) j["window"] = window_results();
  if (cm_) j["connection"] = cm_results();
  if (data_check_) {
    // Lost: messages the requester completed that never completed a receive at the target (SEND,
    // WRITE with immediate). UC and UD may lose messages; RC never may.
    std::uint64_t lost = 0;
    if (verb_needs_recv(spec_.verb)) {
      for (int i = 0; i < 2; ++i) {
        const Side& snd = sides_[i];
        const Side& rcv = sides_[1 - i];
        const std::uint64_t sent_ok = snd.send_status.count(IBV_WC_SUCCESS) ? snd.send_status.at(IBV_WC_SUCCESS) : 0;
        const std::uint64_t got = rcv.recv_status.count(IBV_WC_SUCCESS) ? rcv.recv_status.at(IBV_WC_SUCCESS) : 0;
        lost += sent_ok > got ? sent_ok - got : 0;
      }
    }
    nlohmann::json dc{{"messages_checked", checked_}, {"content_mismatches", mismatches_}, {"out_of_order", out_of_order_},
                      {"lost", lost}};
    check_memory_at_end(dc);
    dc["passed"] = mismatches_ == 0 && out_of_order_ == 0 && dc["target_bytes_differing"].get<std::uint64_t>() == 0 &&
                   (spec_.type != IBV_QPT_RC || lost == 0);
    j["data_check"] = dc;
  } else {
    j["data_check"] = nullptr;
  }
  return j;
}

std::string VerbsFlow::summary() const {
  const nlohmann::json r = results();
  const Side& a = sides_[0];
  std::string t = spec_.type == IBV_QPT_RC ? "RC" : spec_.type == IBV_QPT_UC ? "UC" : "UD";
  std::string s = fmt::format("  flow {}: {} {} {} {} {}, {} B x {}{}: {} of {} completed ({}){}\n", spec_.name, t,
                              verb_name(spec_.verb), spec_.from, ping_pong() ? "<->" : "->", spec_.to, spec_.message_size,
                              spec_.duration ? format_duration(*spec_.duration) : std::to_string(spec_.iterations),
                              lat() ? ", latency test" : fmt::format(", tx_depth {}", spec_.tx_depth),
                              r["messages_completed"].get<std::uint64_t>(), a.sent, status_text(a.send_status),
                              done() ? "" : ", NOT FINISHED when the run ended");
  const auto& l = r["latency"];
  if (lat()) {
    if (l["count"].get<std::size_t>() > 0)
      s += fmt::format("    t_min {:.4f} us, t_typical {:.4f} us, t_avg {:.4f} us, t_max {:.4f} us ({} samples)\n",
                       l["min_ns"].get<double>() / 1e3, l["typical_ns"].get<double>() / 1e3,
                       l["mean_ns"].get<double>() / 1e3, l["max_ns"].get<double>() / 1e3, l["count"].get<std::size_t>());
  } else if (r["elapsed_ns"].get<double>() > 0) {
    s += fmt::format("    BW average {:.2f} Gb/s ({:.2f} MB/s), {:.4f} Mpps over {}\n", r["bandwidth_gbps"].get<double>(),
                     r["bandwidth_mbytes_per_s"].get<double>(), r["message_rate_mpps"].get<double>(),
                     format_duration(static_cast<Time>(r["elapsed_ns"].get<double>() * 1e6 + 0.5)));
  }
  s += fmt::format("    transport: {} retransmitted, {} RNR NAKs, {} sequence NAKs, {} ACK timeouts; QPs {} / {}\n",
                   r["retransmitted_packets"].get<std::uint64_t>(), r["rnr_naks"].get<std::uint64_t>(),
                   r["seq_naks"].get<std::uint64_t>(), r["ack_timeouts"].get<std::uint64_t>(),
                   qp_state_str(sides_[0].qp->state()), qp_state_str(sides_[1].qp->state()));
  if (cm_) {
    const auto& c = r["connection"];
    auto us = [](const nlohmann::json& v) { return v.is_null() ? std::string("-") : fmt::format("{:.3f} us", v.get<double>() / 1e3); };
    s += fmt::format("    connect: cm, {}; path query {}, set-up {} (passive {}), {} retries, {} MRAs{}\n",
                     c["outcome"].get<std::string>(), us(c["path_query_ns"]), us(c["setup_ns"]), us(c["passive_setup_ns"]),
                     c["retries"].get<unsigned>(), c["mras_received"].get<unsigned>(),
                     c["reject_reason"].is_null() ? "" : fmt::format(", REJ reason {}", c["reject_reason"].get<unsigned>()));
  }
  if (window_) {
    const auto& w = r["window"];
    s += fmt::format("    window: type {}, R_Key {:#010x}, bind {}", w["type"].get<int>(), w["rkey"].get<std::uint32_t>(),
                     w["bind_status"].is_null() ? "not done" : w["bind_status"].get<std::string>());
    if (w.contains("invalidate_after")) {
      const auto& inv = w["invalidation_received"];
      const auto& next = w["first_after_invalidation"];
      s += fmt::format("; {} messages through it, SEND with Invalidate {}, next message {}",
                       w["messages_before_invalidation"].get<std::uint64_t>(),
                       inv["status"].is_null() ? "not received" : inv["status"].get<std::string>(),
                       next["status"].is_null() ? "none" : next["status"].get<std::string>());
      if (!w["target_bytes_changed_after_invalidation"].is_null())
        s += fmt::format("; {} target bytes changed after it", w["target_bytes_changed_after_invalidation"].get<std::uint64_t>());
    }
    s += "\n";
  }
  if (data_check_) {
    const auto& dc = r["data_check"];
    s += fmt::format("    data check: {} checked, {} mismatches, {} out of order, {} lost; target memory {}\n",
                     dc["messages_checked"].get<std::uint64_t>(), dc["content_mismatches"].get<std::uint64_t>(),
                     dc["out_of_order"].get<std::uint64_t>(), dc["lost"].get<std::uint64_t>(),
                     dc["target_unchanged"].get<bool>() ? "unchanged"
                     : dc["target_bytes_differing"].get<std::uint64_t>() == 0
                         ? "as expected"
                         : fmt::format("differs in {} bytes", dc["target_bytes_differing"].get<std::uint64_t>()));
  }
  return s;
}

}  // namespace ibfsim
