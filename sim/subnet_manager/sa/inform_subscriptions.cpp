#include "sim/subnet_manager/sa/inform_subscriptions.h"

#include <algorithm>

namespace ibfsim {

SaMad InformSubscriptions::set(const SaMad& q, Lid requester, std::uint8_t sl) {
  if (q.header.method != IB_MAD_METHOD_SET) return make_sa_response(q, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  SaMad a = make_sa_response(q, 0);
  a.data = q.data;  // the answer echoes the InformInfo
  const InformInfo i = decode_inform_info(q.data.data());
  if (q.data[23] > 1 || !inform_info_valid(i)) {
    a.header.status = IB_SA_MAD_STATUS_REQ_INVALID;
    return a;
  }
  InformInfo key = i;
  key.subscribe = true;
  auto same = [&](const Subscription& s) { return s.subscriber == requester && s.info == key; };
  auto it = std::find_if(subs_.begin(), subs_.end(), same);
  if (i.subscribe) {
    if (it == subs_.end()) subs_.push_back(Subscription{requester, sl, key});
  } else if (it == subs_.end()) {
    a.header.status = IB_SA_MAD_STATUS_REQ_INVALID;
  } else {
    subs_.erase(it);
  }
  return a;
}

std::vector<Subscription> InformSubscriptions::matching(const Notice& n, const Gid& issuer_gid) const {
  std::vector<Subscription> out;
  for (const Subscription& s : subs_)
    if (inform_matches(s.info, n, issuer_gid)) out.push_back(s);
  return out;
}

}  // namespace ibfsim
