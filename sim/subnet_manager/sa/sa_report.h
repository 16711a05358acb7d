// SubnAdmReport(Notice) (IBA Vol1 13.4.8.2, 15.2.1): how the SA forwards a Notice to a port that
// subscribed to it (inform_info.h), and the SubnAdmReportResp that acknowledges it. The SA MAD
// carries the whole 80-byte Notice in its data (bytes 56-135): the 64 bytes a Trap's SMP holds
// (mad/notice.h) and then IssuerGID (16 bytes), which does not fit an SMP. Method Report (0x06),
// attribute Notice (0x0002); the answer is the same MAD with method ReportResp (0x86).
#pragma once
#include <cstdint>

#include "sim/subnet_manager/mad/notice.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/subnet_manager/sa/sa_mad.h"

namespace ibfsim {

constexpr std::size_t kSaNoticeBytes = 80;

// A Report of `n` issued by the port with GID `issuer_gid`, TransactionID `tid`.
SaMad make_sa_report(const Notice& n, const Gid& issuer_gid, std::uint64_t tid);
// The ReportResp to `report`: the same TID, attribute and Notice, method 0x86, status 0.
SaMad make_sa_report_resp(const SaMad& report);
// The Notice and IssuerGID a Report carries.
Notice report_notice(const SaMad& report);
Gid report_issuer_gid(const SaMad& report);

}  // namespace ibfsim
