#include "sim/ethernet/internet_checksum.h"

namespace ibfsim {

void InternetSum::add(const std::uint8_t* data, std::size_t len) {
  std::size_t i = 0;
  if (odd_ && len > 0) {
    sum_ += data[0];
    i = 1;
    odd_ = false;
  }
  for (; i + 1 < len; i += 2) sum_ += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (i < len) {
    sum_ += static_cast<std::uint32_t>(data[i] << 8);
    odd_ = true;
  }
}

std::uint16_t InternetSum::checksum() const {
  std::uint64_t s = sum_;
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return static_cast<std::uint16_t>(~s & 0xFFFF);
}

std::uint16_t internet_checksum(const std::uint8_t* data, std::size_t len) {
  InternetSum s;
  s.add(data, len);
  return s.checksum();
}

}  // namespace ibfsim
