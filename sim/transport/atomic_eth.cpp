#include "sim/transport/atomic_eth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_atomic_eth(const AtomicEth& h, std::uint8_t* out28) {
  store_be64(out28, h.va);
  store_be32(out28 + 8, h.r_key);
  store_be64(out28 + 12, h.swap_add);
  store_be64(out28 + 20, h.compare);
}

AtomicEth decode_atomic_eth(const std::uint8_t* in28) {
  return {load_be64(in28), load_be32(in28 + 8), load_be64(in28 + 12), load_be64(in28 + 20)};
}

void encode_atomic_ack_eth(const AtomicAckEth& h, std::uint8_t* out8) { store_be64(out8, h.orig_data); }
AtomicAckEth decode_atomic_ack_eth(const std::uint8_t* in8) { return {load_be64(in8)}; }

}  // namespace ibfsim
