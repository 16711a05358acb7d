// Encoder for the 16-byte ERF (Endace Extensible Record Format) record header. Captures are pcap
// files of link type DLT_ERF whose records are ERF header + InfiniBand frame: the form Mellanox's
// ibdump writes and the one stock Wireshark/tshark 4.0 opens (docs/scenario.md, "Outputs").
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

// ERF record types, as numbered in Wireshark's wiretap/erf_record.h.
constexpr std::uint8_t kErfTypeInfiniband = 21;      // ERF_TYPE_INFINIBAND: LRH .. VCRC frames
constexpr std::uint8_t kErfTypeInfinibandLink = 25;  // ERF_TYPE_INFINIBAND_LINK: link packets

// ERF header flags bit "varying length record": rlen is the record's own length, not a fixed size.
constexpr std::uint8_t kErfFlagVaryingLength = 0x04;

constexpr std::size_t kErfHeaderBytes = 16;
// rlen is 16 bits and covers the header too.
constexpr std::size_t kErfMaxFrameBytes = 0xFFFF - kErfHeaderBytes;

// ERF timestamp of a simulated time: upper 32 bits whole seconds, lower 32 bits the binary fraction
// of a second, floor(fraction * 2^32) computed exactly in integers. The fraction's step is 1/2^32 s
// (about 233 ps), so readers that round to the nearest ns (Wireshark does) recover every whole-ns
// time exactly. Every Time fits (64 bits of fs is about 5.1 hours).
std::uint64_t erf_timestamp(Time t_fs);

// The ERF header of one record: timestamp (8 bytes, little-endian), type, flags (varying length),
// rlen = 16 + captured_len (big-endian), lctr = 0, wlen = frame_len (big-endian). The record is
// this header followed by the first captured_len bytes of the frame: a snap length shorter than
// the frame keeps its length on the wire in wlen, as a capture card's does. Throws
// std::invalid_argument if frame_len > kErfMaxFrameBytes or captured_len > frame_len.
std::array<std::uint8_t, kErfHeaderBytes> erf_header(Time timestamp_fs, std::uint8_t erf_type,
                                                     std::size_t frame_len, std::size_t captured_len);
// The header of a whole frame: captured_len = frame_len.
inline std::array<std::uint8_t, kErfHeaderBytes> erf_header(Time timestamp_fs, std::uint8_t erf_type,
                                                            std::size_t frame_len) {
  return erf_header(timestamp_fs, erf_type, frame_len, frame_len);
}

}  // namespace ibfsim
