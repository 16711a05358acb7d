#include "sim/transport/sharp/sharp_mad.h"

#include <algorithm>

namespace ibfsim {

namespace {

void put16(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
std::uint32_t get16(const std::uint8_t* p) { return std::uint32_t{p[0]} << 8 | p[1]; }
std::uint32_t get32(const std::uint8_t* p) { return get16(p) << 16 | get16(p + 2); }

constexpr std::size_t kBody = 24, kChildren = 40, kChildBytes = 8;

}  // namespace

SharpMadBytes encode_sharp_mad(const SharpTreeConfigMad& m) {
  SharpMadBytes b{};
  b[0] = 1;  // BaseVersion
  b[1] = kSharpMadClass;
  b[2] = 1;  // ClassVersion
  b[3] = m.method;
  put16(&b[4], m.status);
  for (int i = 0; i < 8; ++i) b[8 + i] = static_cast<std::uint8_t>(m.transaction_id >> (56 - 8 * i));
  put16(&b[16], kSharpAttrTreeConfig);
  put16(&b[20], m.page >> 16);
  put16(&b[22], m.page & 0xFFFF);
  b[kBody] = m.tree;
  b[kBody + 1] = static_cast<std::uint8_t>(m.op);
  b[kBody + 2] = static_cast<std::uint8_t>(m.type);
  b[kBody + 3] = m.sl;
  put16(&b[kBody + 4], m.p_key);
  put16(&b[kBody + 6], m.parent);
  put16(&b[kBody + 8], m.total_children);
  put16(&b[kBody + 10], m.first_child);
  b[kBody + 12] = static_cast<std::uint8_t>(std::min<std::size_t>(m.children.size(), kSharpChildrenPerMad));
  for (std::size_t k = 0; k < m.children.size() && k < kSharpChildrenPerMad; ++k) {
    std::uint8_t* c = &b[kChildren + kChildBytes * k];
    put16(c, m.children[k].lid);
    c[3] = static_cast<std::uint8_t>(m.children[k].qpn >> 16);
    put16(c + 4, m.children[k].qpn & 0xFFFF);
  }
  return b;
}

std::optional<SharpTreeConfigMad> decode_sharp_mad(const std::uint8_t* b) {
  if (b[0] != 1 || b[1] != kSharpMadClass || b[2] != 1 || get16(&b[16]) != kSharpAttrTreeConfig) return std::nullopt;
  SharpTreeConfigMad m;
  m.method = b[3];
  m.status = static_cast<std::uint16_t>(get16(&b[4]));
  for (int i = 0; i < 8; ++i) m.transaction_id = m.transaction_id << 8 | b[8 + i];
  m.page = get32(&b[20]);
  m.tree = b[kBody];
  if (b[kBody + 1] > static_cast<std::uint8_t>(SharpOp::kMax) || b[kBody + 2] > static_cast<std::uint8_t>(SharpType::kFloat16))
    return std::nullopt;
  m.op = static_cast<SharpOp>(b[kBody + 1]);
  m.type = static_cast<SharpType>(b[kBody + 2]);
  m.sl = b[kBody + 3];
  m.p_key = static_cast<std::uint16_t>(get16(&b[kBody + 4]));
  m.parent = static_cast<Lid>(get16(&b[kBody + 6]));
  m.total_children = static_cast<std::uint16_t>(get16(&b[kBody + 8]));
  m.first_child = static_cast<std::uint16_t>(get16(&b[kBody + 10]));
  const std::uint32_t n = b[kBody + 12];
  if (n > kSharpChildrenPerMad || std::uint32_t{m.first_child} + n > m.total_children) return std::nullopt;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint8_t* c = &b[kChildren + kChildBytes * k];
    m.children.push_back({static_cast<Lid>(get16(c)), std::uint32_t{c[3]} << 16 | get16(c + 4)});
  }
  return m;
}

std::vector<SharpTreeConfigMad> sharp_tree_config_mads(std::uint8_t tree, SharpOp op, SharpType type, std::uint8_t sl,
                                                       std::uint16_t p_key, Lid parent,
                                                       const std::vector<SharpTreeConfigMad::Child>& children,
                                                       std::uint64_t first_tid) {
  std::vector<SharpTreeConfigMad> out;
  std::size_t first = 0;
  do {
    SharpTreeConfigMad m;
    m.transaction_id = first_tid + out.size();
    m.page = static_cast<std::uint32_t>(out.size());
    m.tree = tree;
    m.op = op;
    m.type = type;
    m.sl = sl;
    m.p_key = p_key;
    m.parent = parent;
    m.total_children = static_cast<std::uint16_t>(children.size());
    m.first_child = static_cast<std::uint16_t>(first);
    const std::size_t n = std::min<std::size_t>(kSharpChildrenPerMad, children.size() - first);
    m.children.assign(children.begin() + static_cast<std::ptrdiff_t>(first), children.begin() + static_cast<std::ptrdiff_t>(first + n));
    out.push_back(std::move(m));
    first += n;
  } while (first < children.size());
  return out;
}

}  // namespace ibfsim
