#include "sim/link/link.h"

namespace ibfsim {

Link::Link(LinkPort& a, ScheduledModule& a_module, LinkPort& b, ScheduledModule& b_module, const LinkRate& rate,
           std::uint64_t prop_cycles, std::uint32_t id_ab, std::uint32_t id_ba, FecTiming fec)
    : a_(a), b_(b), ab_(std::make_unique<Wire>(b, b_module, rate, prop_cycles, id_ab, fec)),
      ba_(std::make_unique<Wire>(a, a_module, rate, prop_cycles, id_ba, fec)) {
  a.connect(*ab_, *ba_, b.buffer_blocks());
  b.connect(*ba_, *ab_, a.buffer_blocks());
}

}  // namespace ibfsim
