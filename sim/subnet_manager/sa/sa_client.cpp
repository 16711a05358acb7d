#include "sim/subnet_manager/sa/sa_client.h"

#include "sim/core/big_endian.h"
#include "sim/subnet_manager/sa/sa_report.h"

namespace ibfsim {

SaClient::SaClient(SmaShell& sma, PortNum port, SaClientConfig config, bool attach)
    : sma_(sma), port_(port), config_(config),
      // TIDs unique per port and client: the port GUID's low 32 bits, the tag, then a count.
      next_tid_((sma.state().ports.at(port).guid & 0xFFFFFFFFull) << 32 | std::uint64_t{config.tid_tag} << 24) {
  if (attach) sma_.attach_gsi_client(this);
}

std::uint64_t SaClient::query(SaMad request, Done done) {
  const std::uint64_t tid = ++next_tid_;
  request.header.transaction_id = tid;
  pending_[tid] = Pending{encode_sa_mad(request), 0, std::move(done)};
  send(tid);
  return tid;
}

void SaClient::send(std::uint64_t tid) {
  Pending& p = pending_.at(tid);
  ++p.tries;
  ++stats_.sent;
  if (p.tries > 1) ++stats_.resent;
  const Lid sa_lid = sma_.state().ports.at(port_).info.master_sm_lid;
  sma_.send_gsi(p.mad, port_, sa_lid, config_.sl);
  sma_.module().schedule<&SaClient::query_timed_out>(ScheduledModule::now() + config_.timeout, this, tid, p.tries);
}

void SaClient::on_gsi_answer(const ReceivedGmp& gmp, PortNum) {
  if (gmp.mad[3] == IB_MAD_METHOD_REPORT) {
    const SaMad report = decode_sa_mad(gmp.mad);
    ++stats_.reports;
    sma_.send_gsi(encode_sa_mad(make_sa_report_resp(report)), port_, gmp.lrh.slid, gmp.lrh.sl);
    if (on_report_) on_report_(report, ScheduledModule::now());
    return;
  }
  const std::uint64_t tid = load_be64(gmp.mad.data() + 8);
  auto it = pending_.find(tid);
  if (it == pending_.end()) return;  // late: answered already or given up on
  const SaMad a = decode_sa_mad(gmp.mad);
  if (a.header.status == IB_MAD_STATUS_BUSY) return;  // sent again when the timer runs out
  Done done = std::move(it->second.done);
  pending_.erase(it);
  ++stats_.answered;
  if (done) done(&a);
}

void SaClient::query_timed_out(std::uint64_t tid, unsigned tries) {
  auto it = pending_.find(tid);
  if (it == pending_.end() || it->second.tries != tries) return;
  if (it->second.tries <= config_.retries) return send(tid);
  Done done = std::move(it->second.done);
  pending_.erase(it);
  ++stats_.failed;
  if (done) done(nullptr);
}

}  // namespace ibfsim
