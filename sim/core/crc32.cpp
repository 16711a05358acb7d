#include "sim/core/crc32.h"

#include <boost/crc.hpp>

#include "sim/core/crc_zero_run.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kXorOut = 0xFFFFFFFF;
// From an all-zero register without final xor: checksum() is the raw register.
using Crc32FromZero = boost::crc_optimal<32, 0x04C11DB7, 0, 0, true, true>;

std::uint32_t from_zero(const std::uint8_t* data, std::size_t len) {
  Crc32FromZero crc;
  crc.process_bytes(data, len);
  return crc.checksum();
}

}  // namespace

std::uint32_t crc32_runs(const ByteRun* first, const ByteRun* last) {
  // Leading real runs (the headers) stream through Boost; from the first elided run on, the
  // register continues by linearity so that zeros cost O(log n).
  boost::crc_32_type lead;
  for (; first != last && first->data != nullptr; ++first) lead.process_bytes(first->data, first->len);
  if (first == last) return lead.checksum();
  const std::uint32_t reg = lead.checksum() ^ kXorOut;
  return crc_continue_runs<std::uint32_t, kCrc32ReflectedPoly>(reg, first, last, from_zero) ^ kXorOut;
}

}  // namespace ibfsim
