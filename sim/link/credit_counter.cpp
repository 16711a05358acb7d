#include "sim/link/credit_counter.h"

#include "sim/core/error.h"

namespace ibfsim {

void CreditCounter::consume(std::uint32_t blocks) {
  IBFSIM_CHECK(can_send(blocks), "packet sent without enough credits");
  fctbs_ = static_cast<std::uint16_t>((fctbs_ + blocks) & kCreditMask);
}

}  // namespace ibfsim
