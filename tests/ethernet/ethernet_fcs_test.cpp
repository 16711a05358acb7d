// The FCS is IEEE 802.3's CRC-32 (zlib's crc32) over the frame, least significant byte first, and
// frames are padded to 64 bytes.
#include "sim/ethernet/ethernet_fcs.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/crc32.h"

using namespace ibfsim;

namespace {
// Bit-serial CRC-32: an independent reference.
std::uint32_t ref_crc32(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t reg = 0xFFFFFFFF;
  for (std::uint8_t b : bytes) {
    reg ^= b;
    for (int i = 0; i < 8; ++i) reg = (reg >> 1) ^ ((reg & 1u) ? 0xEDB88320u : 0u);
  }
  return ~reg;
}
}  // namespace

TEST_CASE("CRC-32 check value and elided zero runs", "[ethernet][fcs]") {
  const std::string check = "123456789";
  const std::vector<std::uint8_t> v(check.begin(), check.end());
  CHECK(ethernet_fcs({ByteRun{v.data(), v.size()}}) == 0xCBF43926);  // the CRC-32 check value
  CHECK(ref_crc32(v) == 0xCBF43926);
  // An elided run of 1,000 zeros between real bytes equals the zeros written out.
  std::vector<std::uint8_t> whole = v;
  whole.resize(whole.size() + 1000, 0);
  whole.insert(whole.end(), v.begin(), v.end());
  CHECK(ethernet_fcs({ByteRun{v.data(), v.size()}, ByteRun{nullptr, 1000}, ByteRun{v.data(), v.size()}}) ==
        ref_crc32(whole));
}

TEST_CASE("a short frame is padded to 60 bytes and its FCS appended least significant byte first",
          "[ethernet][fcs]") {
  std::vector<std::uint8_t> f(42);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<std::uint8_t>(i + 1);
  CHECK(ethernet_pad_bytes(42) == 18);
  CHECK(ethernet_pad_bytes(60) == 0);
  CHECK(ethernet_pad_bytes(1000) == 0);
  std::vector<std::uint8_t> padded = f;
  padded.resize(60, 0);
  const std::uint32_t crc = ref_crc32(padded);
  append_ethernet_fcs(f);
  REQUIRE(f.size() == kEthernetMinFrameBytes);
  CHECK(std::vector<std::uint8_t>(f.begin(), f.begin() + 60) == padded);
  CHECK(f[60] == (crc & 0xFF));
  CHECK(f[61] == ((crc >> 8) & 0xFF));
  CHECK(f[62] == ((crc >> 16) & 0xFF));
  CHECK(f[63] == crc >> 24);
  CHECK(ethernet_fcs_ok(f.data(), f.size()));
  // The CRC over a frame and its FCS is the constant residue of CRC-32 with its final xor.
  CHECK(ref_crc32(f) == 0x2144DF1C);
  for (std::size_t i : {0u, 30u, 63u}) {
    auto bad = f;
    bad[i] ^= 0x04;
    CHECK_FALSE(ethernet_fcs_ok(bad.data(), bad.size()));
  }
  CHECK_FALSE(ethernet_fcs_ok(f.data(), 3));
}
