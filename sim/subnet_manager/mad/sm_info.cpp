#include "sim/subnet_manager/mad/sm_info.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

SmpData encode_sm_info(const SmInfo& si) {
  SmpData out{};
  store_be64(&out[0], si.guid);
  store_be64(&out[8], si.sm_key);
  store_be32(&out[16], si.act_count);
  out[20] = static_cast<std::uint8_t>((si.priority & 0x0F) << 4 | (si.sm_state & 0x0F));
  return out;
}

SmInfo decode_sm_info(const std::uint8_t* in21) {
  SmInfo si;
  si.guid = load_be64(in21);
  si.sm_key = load_be64(in21 + 8);
  si.act_count = load_be32(in21 + 16);
  si.priority = in21[20] >> 4;
  si.sm_state = in21[20] & 0x0F;
  return si;
}

}  // namespace ibfsim
