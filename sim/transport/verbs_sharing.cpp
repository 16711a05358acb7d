// Shared receive queues and address handles of an HCA (verbs_resources.h): the verbs objects
// that several QPs use at once.
#include <cerrno>

#include "sim/transport/hca.h"
#include "sim/transport/verbs_resources.h"

namespace ibfsim {

using namespace verbs;

namespace {
// The largest SRQ and the most scatter elements per receive (ConnectX's device limits are of this order).
constexpr std::uint32_t kMaxSrqWr = 32768, kMaxSrqSge = 32;
}  // namespace

SrqHandle VerbsResources::create_srq(PdHandle pd, const ibv_srq_init_attr& init) {
  const ibv_srq_attr& a = init.attr;
  if (pd == 0 || pd > pds_ || a.max_wr == 0 || a.max_wr > kMaxSrqWr || a.max_sge == 0 || a.max_sge > kMaxSrqSge)
    return 0;
  const auto h = static_cast<SrqHandle>(srqs_.size() + 1);
  srqs_.push_back(std::make_unique<SharedReceiveQueue>(h, pd, a));
  return h;
}

int VerbsResources::destroy_srq(SrqHandle h) {
  SharedReceiveQueue* s = srq(h);
  if (s == nullptr) return EINVAL;
  if (s->qps() > 0) return EBUSY;  // QPs still take receives from it
  srqs_[h - 1].reset();
  return 0;
}

AhHandle VerbsResources::create_ah(PdHandle pd, const ibv_ah_attr& attr) {
  if (pd == 0 || pd > pds_ || attr.port_num < 1 || attr.port_num > hca_.num_ports() || attr.sl > 15) return 0;
  ahs_.push_back({pd, attr, true});
  return static_cast<AhHandle>(ahs_.size());
}

int VerbsResources::destroy_ah(AhHandle h) {
  if (ah(h) == nullptr) return EINVAL;
  ahs_[h - 1].live = false;  // posted WQEs keep their copy of the address vector
  return 0;
}

}  // namespace ibfsim
