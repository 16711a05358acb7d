#include "sim/subnet_manager/sa/path_record.h"

#include <cmath>

#include "sim/core/big_endian.h"

namespace ibfsim {

Gid gid_of(std::uint64_t prefix, Guid guid) {
  Gid g{};
  store_be64(g.data(), prefix);
  store_be64(g.data() + 8, guid);
  return g;
}

Guid gid_guid(const Gid& g) { return load_be64(g.data() + 8); }

void encode_path_record(const PathRecord& r, std::uint8_t* out) {
  store_be64(out, r.service_id);
  std::copy(r.dgid.begin(), r.dgid.end(), out + 8);
  std::copy(r.sgid.begin(), r.sgid.end(), out + 24);
  store_be16(out + 40, r.dlid);
  store_be16(out + 42, r.slid);
  store_be32(out + 44, (r.raw_traffic ? 1u << 31 : 0u) | (r.flow_label & 0xFFFFF) << 8 | r.hop_limit);
  out[48] = r.tclass;
  out[49] = static_cast<std::uint8_t>((r.reversible ? 0x80 : 0) | (r.num_path & 0x7F));
  store_be16(out + 50, r.p_key);
  store_be16(out + 52, static_cast<std::uint16_t>((r.qos_class & 0xFFF) << 4 | (r.sl & 0xF)));
  out[54] = static_cast<std::uint8_t>((r.mtu_selector & 3) << 6 | (r.mtu & 0x3F));
  out[55] = static_cast<std::uint8_t>((r.rate_selector & 3) << 6 | (r.rate & 0x3F));
  out[56] = static_cast<std::uint8_t>((r.packet_life_time_selector & 3) << 6 | (r.packet_life_time & 0x3F));
  out[57] = r.preference;
  for (int i = 58; i < 64; ++i) out[i] = 0;
}

SaData encode_path_record(const PathRecord& r) {
  SaData d{};
  encode_path_record(r, d.data());
  return d;
}

PathRecord decode_path_record(const std::uint8_t* in) {
  PathRecord r;
  r.service_id = load_be64(in);
  std::copy(in + 8, in + 24, r.dgid.begin());
  std::copy(in + 24, in + 40, r.sgid.begin());
  r.dlid = load_be16(in + 40);
  r.slid = load_be16(in + 42);
  const std::uint32_t hfr = load_be32(in + 44);
  r.raw_traffic = hfr >> 31;
  r.flow_label = (hfr >> 8) & 0xFFFFF;
  r.hop_limit = hfr & 0xFF;
  r.tclass = in[48];
  r.reversible = in[49] & 0x80;
  r.num_path = in[49] & 0x7F;
  r.p_key = load_be16(in + 50);
  r.qos_class = load_be16(in + 52) >> 4;
  r.sl = in[53] & 0xF;
  r.mtu_selector = in[54] >> 6;
  r.mtu = in[54] & 0x3F;
  r.rate_selector = in[55] >> 6;
  r.rate = in[55] & 0x3F;
  r.packet_life_time_selector = in[56] >> 6;
  r.packet_life_time = in[56] & 0x3F;
  r.preference = in[57];
  return r;
}

namespace {
struct RateCode {
  std::uint8_t code;
  double gbps;
};
// IBA Vol1 table "Rate" (15.2.5.16, with the extended speeds): code -> data rate.
constexpr RateCode kRates[] = {{2, 2.5},  {3, 10},   {4, 30},   {5, 5},    {6, 20},   {7, 40},
                               {8, 60},   {9, 80},   {10, 120}, {11, 14},  {12, 56},  {13, 112},
                               {14, 168}, {15, 25},  {16, 100}, {17, 200}, {18, 300}, {19, 28},
                               {20, 50},  {21, 400}, {22, 600}};
}  // namespace

std::uint8_t sa_rate_code(unsigned lanes, double gbps_per_lane) {
  const double total = lanes * gbps_per_lane;
  for (const RateCode& r : kRates)
    if (std::fabs(r.gbps - total) < 0.01) return r.code;
  return 0;
}

double sa_rate_gbps(std::uint8_t code) {
  for (const RateCode& r : kRates)
    if (r.code == code) return r.gbps;
  return 0;
}

}  // namespace ibfsim
