#include "sim/report/erf_record.h"

#include <stdexcept>
#include <string>

namespace ibfsim {

std::uint64_t erf_timestamp(Time t_fs) {
  // A 64-bit fs count spans about 5.1 hours, far below the 2^32 s the seconds field holds.
  static_assert(kTimeNever / kSec <= 0xFFFFFFFFu, "ERF seconds field is 32 bits");
  const std::uint64_t seconds = t_fs / kSec;
  // frac_fs < 10^15 < 2^50, so frac_fs * 2^32 < 2^82: exact in 128 bits.
  const unsigned __int128 frac_fs = t_fs % kSec;
  const std::uint64_t frac = static_cast<std::uint64_t>((frac_fs << 32) / kSec);
  return (seconds << 32) | frac;
}

std::array<std::uint8_t, kErfHeaderBytes> erf_header(Time timestamp_fs, std::uint8_t erf_type,
                                                     std::size_t frame_len, std::size_t captured_len) {
  if (captured_len > frame_len) {
    throw std::invalid_argument("ERF record of " + std::to_string(captured_len) + " captured bytes of a " +
                                std::to_string(frame_len) + "-byte frame");
  }
  if (frame_len > kErfMaxFrameBytes) {
    throw std::invalid_argument("frame of " + std::to_string(frame_len) +
                                " bytes is too long for an ERF record (max " +
                                std::to_string(kErfMaxFrameBytes) + ")");
  }
  const std::uint64_t ts = erf_timestamp(timestamp_fs);
  const std::size_t rlen = kErfHeaderBytes + captured_len;
  std::array<std::uint8_t, kErfHeaderBytes> h{};
  for (int i = 0; i < 8; ++i) h[i] = static_cast<std::uint8_t>(ts >> (8 * i));  // little-endian
  h[8] = erf_type;
  h[9] = kErfFlagVaryingLength;
  h[10] = static_cast<std::uint8_t>(rlen >> 8);  // big-endian from here on
  h[11] = static_cast<std::uint8_t>(rlen);
  h[12] = 0;  // lctr: a simulated capture loses nothing
  h[13] = 0;
  h[14] = static_cast<std::uint8_t>(frame_len >> 8);
  h[15] = static_cast<std::uint8_t>(frame_len);
  return h;
}

}  // namespace ibfsim
