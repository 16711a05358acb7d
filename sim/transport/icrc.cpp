#include "sim/transport/icrc.h"

#include <algorithm>
#include <array>

#include "sim/core/crc32.h"
#include "sim/core/error.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"

namespace ibfsim {

namespace {

// Every masked field lies in LRH + GRH + BTH: only that prefix is copied and patched, the extended
// headers after it stream straight from the caller's buffer.
constexpr std::size_t kMaskedPrefix = kLrhBytes + kGrhBytes + kBthBytes;

// Copies the header's first bytes (up to the end of the BTH) with the variant fields set to 1s.
std::size_t masked_prefix(const std::uint8_t* header, std::size_t header_len,
                          std::array<std::uint8_t, kMaskedPrefix>& out) {
  const std::size_t n = std::min(header_len, out.size());
  std::copy(header, header + n, out.begin());
  if (n < 2) return n;
  const auto set = [&](std::size_t i, std::uint8_t mask) {
    if (i < n) out[i] |= mask;
  };
  switch (lrh_lnh(header)) {
    case kLnhIbaLocal:
      set(0, 0xF0);
      set(kLrhBytes + kBthFecnByte, 0xFF);
      break;
    case kLnhIbaGlobal:
      for (std::size_t i = 0; i < kLrhBytes; ++i) set(i, 0xFF);
      set(kLrhBytes + 0, 0x0F);
      for (std::size_t i = 1; i <= 3; ++i) set(kLrhBytes + i, 0xFF);
      set(kLrhBytes + 7, 0xFF);
      set(kLrhBytes + kGrhBytes + kBthFecnByte, 0xFF);
      break;
    default:  // raw packets carry no ICRC and have no invariant/variant split
      break;
  }
  return n;
}

}  // namespace

std::uint32_t icrc_over(const std::uint8_t* masked, std::size_t masked_len, const std::uint8_t* rest,
                        std::size_t rest_len, std::initializer_list<ByteRun> body) {
  IBFSIM_CHECK(body.size() <= kIcrcMaxBodyRuns, "icrc_over: too many body runs");
  std::array<ByteRun, 2 + kIcrcMaxBodyRuns> runs;
  runs[0] = {masked, masked_len};
  runs[1] = {rest, rest_len};
  std::copy(body.begin(), body.end(), runs.begin() + 2);
  return crc32_runs(runs.data(), runs.data() + 2 + body.size());
}

std::uint32_t compute_icrc(const std::uint8_t* header, std::size_t header_len,
                           std::initializer_list<ByteRun> body) {
  std::array<std::uint8_t, kMaskedPrefix> prefix;
  const std::size_t n = masked_prefix(header, header_len, prefix);
  return icrc_over(prefix.data(), n, header + n, header_len - n, body);
}

std::uint32_t packet_icrc(const Packet& p) {
  return compute_icrc(p.header.data(), p.header_len, {p.body_payload(), p.body_pad()});
}

void write_icrc(Packet& p) { store_crc32(p.icrc.data(), packet_icrc(p)); }

bool icrc_ok(const Packet& p) {
  if (!p.received_frame.empty()) {
    // Bytes changed on a link: check the ICRC over what arrived (header as long as the packet's).
    const auto& f = p.received_frame;
    if (f.size() < p.header_len + 6u) return false;
    const std::size_t body = f.size() - p.header_len - 6;
    return compute_icrc(f.data(), p.header_len, {ByteRun{f.data() + p.header_len, body}}) ==
           load_crc32(f.data() + f.size() - 6);
  }
  return packet_icrc(p) == load_crc32(p.icrc.data());
}

}  // namespace ibfsim
