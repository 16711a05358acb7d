// The transport's encoded timers (IBA Vol1 ch. 9): the local ACK timeout and the RNR NAK
// timer, both as exact femtosecond durations.
#pragma once
#include <array>
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

// Local ACK timeout 4.096 us x 2^code; code 0 means the timer is off (kTimeNever).
constexpr Time local_ack_timeout(std::uint8_t code) {
  return code == 0 ? kTimeNever : (Time{4'096'000'000} << (code & 0x1F));
}

// RNR NAK timer codes 0-31 in microseconds x 100 (code 0 = 655.36 ms, 1 = 0.01 ms, ...).
constexpr std::array<std::uint32_t, 32> kRnrTimerCentiMicros = {
    65536000, 1000,  2000,  3000,  4000,  6000,   8000,   12000,  16000,  24000,  32000,
    48000,   64000, 96000, 128000, 192000, 256000, 384000, 512000, 768000, 1024000, 1536000,
    2048000, 3072000, 4096000, 6144000, 8192000, 12288000, 16384000, 24576000, 32768000, 49152000};

constexpr Time rnr_timer(std::uint8_t code) { return Time{kRnrTimerCentiMicros[code & 0x1F]} * 10'000'000; }

}  // namespace ibfsim
