#include "sim/subnet_manager/sa/sa_report.h"

#include <algorithm>

namespace ibfsim {

SaMad make_sa_report(const Notice& n, const Gid& issuer_gid, std::uint64_t tid) {
  SaData record{};
  const SmpData first = encode_notice(n);
  std::copy(first.begin(), first.end(), record.begin());
  std::copy(issuer_gid.begin(), issuer_gid.end(), record.begin() + 64);
  SaMad m = make_sa_request(IB_MAD_METHOD_REPORT, IB_MAD_ATTR_NOTICE, 0, record, tid);
  return m;
}

SaMad make_sa_report_resp(const SaMad& report) {
  SaMad m = report;
  m.header.method = IB_MAD_METHOD_REPORT_RESP;
  m.header.status = 0;
  return m;
}

Notice report_notice(const SaMad& report) { return decode_notice(report.data.data()); }

Gid report_issuer_gid(const SaMad& report) {
  Gid g{};
  std::copy_n(report.data.begin() + 64, g.size(), g.begin());
  return g;
}

}  // namespace ibfsim
