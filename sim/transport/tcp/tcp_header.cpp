#include "sim/transport/tcp/tcp_header.h"

#include "sim/core/big_endian.h"
#include "sim/ethernet/internet_checksum.h"
#include "sim/ethernet/ipv4_header.h"

namespace ibfsim {

namespace {
constexpr std::uint8_t kOptEnd = 0, kOptNop = 1, kOptMss = 2, kOptWindowScale = 3, kOptSackPermitted = 4,
                       kOptSack = 5;
}  // namespace

std::size_t tcp_header_bytes(const TcpHeader& h) {
  std::size_t n = kTcpHeaderBytes;
  if (h.mss) n += 4;
  if (h.window_scale) n += 4;
  if (h.sack_permitted) n += 4;
  if (!h.sack.empty()) n += 4 + 8 * h.sack.size();
  return n;
}

void encode_tcp_header(const TcpHeader& h, std::uint8_t* out) {
  const std::size_t len = tcp_header_bytes(h);
  store_be16(out, h.src_port);
  store_be16(out + 2, h.dst_port);
  store_be32(out + 4, h.seq);
  store_be32(out + 8, h.ack);
  out[12] = static_cast<std::uint8_t>((len / 4) << 4);
  out[13] = h.flags;
  store_be16(out + 14, h.window);
  store_be16(out + 16, h.checksum);
  store_be16(out + 18, h.urgent);
  std::uint8_t* o = out + kTcpHeaderBytes;
  if (h.mss) {
    o[0] = kOptMss, o[1] = 4;
    store_be16(o + 2, *h.mss);
    o += 4;
  }
  if (h.window_scale) {
    o[0] = kOptNop, o[1] = kOptWindowScale, o[2] = 3, o[3] = *h.window_scale;
    o += 4;
  }
  if (h.sack_permitted) {
    o[0] = kOptNop, o[1] = kOptNop, o[2] = kOptSackPermitted, o[3] = 2;
    o += 4;
  }
  if (!h.sack.empty()) {
    o[0] = kOptNop, o[1] = kOptNop, o[2] = kOptSack, o[3] = static_cast<std::uint8_t>(2 + 8 * h.sack.size());
    o += 4;
    for (const TcpSackBlock& b : h.sack) {
      store_be32(o, b.left);
      store_be32(o + 4, b.right);
      o += 8;
    }
  }
}

std::optional<TcpHeader> decode_tcp_header(const std::uint8_t* in, std::size_t len) {
  if (len < kTcpHeaderBytes) return std::nullopt;
  const std::size_t hlen = tcp_data_offset(in);
  if (hlen < kTcpHeaderBytes || hlen > len) return std::nullopt;
  TcpHeader h;
  h.src_port = load_be16(in);
  h.dst_port = load_be16(in + 2);
  h.seq = load_be32(in + 4);
  h.ack = load_be32(in + 8);
  h.flags = in[13];
  h.window = load_be16(in + 14);
  h.checksum = load_be16(in + 16);
  h.urgent = load_be16(in + 18);
  std::size_t i = kTcpHeaderBytes;
  while (i < hlen) {
    const std::uint8_t kind = in[i];
    if (kind == kOptEnd) break;
    if (kind == kOptNop) {
      ++i;
      continue;
    }
    if (i + 2 > hlen) return std::nullopt;
    const std::size_t olen = in[i + 1];
    if (olen < 2 || i + olen > hlen) return std::nullopt;
    const std::uint8_t* o = in + i;
    if (kind == kOptMss && olen == 4) h.mss = load_be16(o + 2);
    else if (kind == kOptWindowScale && olen == 3) h.window_scale = o[2];
    else if (kind == kOptSackPermitted && olen == 2) h.sack_permitted = true;
    else if (kind == kOptSack) {
      if ((olen - 2) % 8 != 0) return std::nullopt;
      for (std::size_t b = 2; b < olen; b += 8) h.sack.push_back(TcpSackBlock{load_be32(o + b), load_be32(o + b + 4)});
    }
    i += olen;
  }
  return h;
}

std::uint16_t tcp_checksum(const IpAddress& src, const IpAddress& dst, const std::uint8_t* hdr, std::size_t hdr_len,
                           std::initializer_list<ByteRun> data) {
  std::size_t tcp_len = hdr_len;
  for (const ByteRun& r : data) tcp_len += r.len;
  // Pseudo-header (IPv4: addresses, zero, protocol 6, 16-bit TCP length); unlike UDP, a computed 0
  // is sent as 0.
  InternetSum s;
  s.add(src.bytes.data(), src.size());
  s.add(dst.bytes.data(), dst.size());
  s.add_be16(kIpProtocolTcp);
  s.add_be16(static_cast<std::uint16_t>(tcp_len));
  s.add(hdr, 16);  // the checksum field (16-17) counts as 0
  s.add(hdr + 18, hdr_len - 18);
  for (const ByteRun& r : data) {
    if (r.data == nullptr) s.add_zeros(r.len);
    else s.add(r.data, r.len);
  }
  return s.checksum();
}

}  // namespace ibfsim
