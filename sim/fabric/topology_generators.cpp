#include "sim/fabric/topology_generators.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ibfsim {

namespace {

// Products and sums that saturate instead of wrapping, for checking sizes before building.
constexpr std::uint64_t kHuge = std::numeric_limits<std::uint64_t>::max();
std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return (a != 0 && b > kHuge / a) ? kHuge : a * b; }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return b > kHuge - a ? kHuge : a + b; }

// "k >= 1, got 0" for counts that must be positive.
void require_positive(std::initializer_list<std::pair<const char*, std::uint64_t>> values) {
  for (const auto& [what, v] : values) {
    if (v == 0) throw std::invalid_argument(fmt::format("{} >= 1, got 0", what));
  }
}

// The fabric must fit the unicast LID space: one LID per HCA port and one per switch.
void check_lids(std::uint64_t hosts, std::uint64_t switches, const TopologyDefaults& d) {
  const std::uint64_t lids = add(mul(hosts, d.hca_ports), switches);
  if (lids > kLidUnicastMax) {
    throw std::invalid_argument(fmt::format(
        "a fabric with at most {} LIDs (HCA ports + switches), got {} HCAs of {} port{} and {} switches", kLidUnicastMax,
        hosts, d.hca_ports, d.hca_ports == 1 ? "" : "s", switches));
  }
}

// Ports of the switches of `role` ("leaf ", "" for all): defaults.switch_ports or what they need.
unsigned switch_ports(std::string_view role, std::uint64_t needed, const TopologyDefaults& d) {
  if (needed > kMaxPorts) {
    throw std::invalid_argument(
        fmt::format("at most {} ports per switch, got {}switches needing {}", kMaxPorts, role, needed));
  }
  if (d.switch_ports && *d.switch_ports < needed) {
    throw std::invalid_argument(fmt::format("{}switches with at least {} ports, got {} ports (defaults.switch.ports)",
                                            role, needed, *d.switch_ports));
  }
  return d.switch_ports.value_or(static_cast<unsigned>(needed));
}

// Builds nodes and cables with the settings of the defaults.
class Builder {
 public:
  explicit Builder(const TopologyDefaults& d) : d_(d) { topo_.propagation_per_m = d.propagation_per_m; }

  void reserve(std::size_t nodes, std::size_t cables) {
    topo_.nodes.reserve(nodes);
    topo_.cables.reserve(cables);
  }

  std::size_t add_host(std::string name) { return add_node(std::move(name), NodeType::kHca, d_.hca_ports); }
  void add_server(TopoServer s) { topo_.servers.push_back(std::move(s)); }

  // Adds h1..h<count>, continuing the numbering.
  void add_hosts(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) add_node(fmt::format("h{}", ++hosts_), NodeType::kHca, d_.hca_ports);
  }

  std::size_t add_switch(std::string name, unsigned ports) { return add_node(std::move(name), NodeType::kSwitch, ports); }

  void cable(std::size_t a, unsigned pa, std::size_t b, unsigned pb) {
    TopoCable c;
    c.node_a = a;
    c.port_a = pa;
    c.node_b = b;
    c.port_b = pb;
    c.rate = d_.link_rate;
    c.fec = d_.link_fec;
    c.length_mm = d_.link_length_mm;
    topo_.cables.push_back(c);
  }

  std::size_t size() const { return topo_.nodes.size(); }
  Topology take() { return std::move(topo_); }

 private:
  std::size_t add_node(std::string name, NodeType type, unsigned ports) {
    const bool sw = type == NodeType::kSwitch;
    TopoNode n;
    n.name = std::move(name);
    n.type = type;
    n.num_ports = ports;
    n.guid = default_guid(type, topo_.nodes.size(), hca_extra_ports_);
    if (!sw) hca_extra_ports_ += ports - 1;
    n.switch_latency = sw ? d_.switch_latency : 0;
    n.rx_buffer_credits = sw ? d_.switch_buffer_credits : d_.hca_buffer_credits;
    n.op_vls = sw ? d_.switch_vls : d_.hca_vls;
    n.vl15_buffer_credits = sw ? d_.switch_vl15_buffer_credits : d_.hca_vl15_buffer_credits;
    n.port_speeds.assign(ports + 1, sw ? d_.switch_speeds : d_.hca_speeds);
    n.port_widths.assign(ports + 1, sw ? d_.switch_widths : d_.hca_widths);
    topo_.nodes.push_back(std::move(n));
    return topo_.nodes.size() - 1;
  }

  const TopologyDefaults& d_;
  Topology topo_;
  std::size_t hosts_ = 0;
  std::size_t hca_extra_ports_ = 0;  // ports beyond the first of the HCAs added so far (default_guid)
};

std::string xgft_level_name(std::size_t level, std::size_t index) {
  switch (level) {
    case 1: return fmt::format("leaf{}", index + 1);
    case 2: return fmt::format("spine{}", index + 1);
    case 3: return fmt::format("core{}", index + 1);
    default: return fmt::format("l{}sw{}", level, index + 1);
  }
}

}  // namespace

Topology generate_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf,
                             const TopologyDefaults& defaults) {
  if (leaves == 0 || spines == 0 || hosts_per_leaf == 0) {
    throw std::invalid_argument(fmt::format("at least one leaf, spine and host per leaf, got {}, {} and {}",
                                            leaves, spines, hosts_per_leaf));
  }
  const unsigned leaf_ports = switch_ports("leaf ", std::uint64_t{hosts_per_leaf} + spines, defaults);
  const unsigned spine_ports = switch_ports("spine ", leaves, defaults);
  const std::size_t hosts = static_cast<std::size_t>(leaves) * hosts_per_leaf;
  check_lids(hosts, std::uint64_t{leaves} + spines, defaults);

  Builder b(defaults);
  b.reserve(hosts + leaves + spines, hosts + static_cast<std::size_t>(leaves) * spines);
  b.add_hosts(hosts);
  const std::size_t first_leaf = b.size();
  for (unsigned l = 0; l < leaves; ++l) b.add_switch(fmt::format("leaf{}", l + 1), leaf_ports);
  const std::size_t first_spine = b.size();
  for (unsigned s = 0; s < spines; ++s) b.add_switch(fmt::format("spine{}", s + 1), spine_ports);

  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned i = 0; i < hosts_per_leaf; ++i) {
      b.cable(static_cast<std::size_t>(l) * hosts_per_leaf + i, 1, first_leaf + l, i + 1);
    }
  }
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned s = 0; s < spines; ++s) b.cable(first_leaf + l, hosts_per_leaf + s + 1, first_spine + s, l + 1);
  }
  return b.take();
}

Topology generate_rail_fat_tree(unsigned nodes, unsigned rails, unsigned nodes_per_leaf, unsigned spines,
                                const TopologyDefaults& defaults) {
  require_positive({{"nodes", nodes}, {"rails", rails}, {"nodes_per_leaf", nodes_per_leaf}, {"spines", spines}});
  if (nodes % nodes_per_leaf != 0) {
    throw std::invalid_argument(fmt::format("nodes a multiple of nodes_per_leaf (every leaf of a rail full), got {} "
                                            "nodes and {} per leaf",
                                            nodes, nodes_per_leaf));
  }
  if (nodes_per_leaf % spines != 0) {
    throw std::invalid_argument(fmt::format("nodes_per_leaf (each leaf's uplinks) a multiple of spines (cabled "
                                            "evenly to every spine), got {} uplinks and {} spines",
                                            nodes_per_leaf, spines));
  }
  const unsigned per_rail = nodes / nodes_per_leaf;
  const std::uint64_t leaves = std::uint64_t{per_rail} * rails;
  const unsigned copies = nodes_per_leaf / spines;  // cables between a leaf and each spine
  const unsigned leaf_ports = switch_ports("leaf ", 2 * std::uint64_t{nodes_per_leaf}, defaults);
  const unsigned spine_ports = switch_ports("spine ", mul(leaves, copies), defaults);
  const std::uint64_t hosts = std::uint64_t{nodes} * rails;
  check_lids(hosts, leaves + spines, defaults);

  Builder b(defaults);
  b.reserve(hosts + leaves + spines, 2 * hosts);
  for (unsigned n = 0; n < nodes; ++n) {
    TopoServer server;
    server.name = fmt::format("n{}", n + 1);
    for (unsigned k = 0; k < rails; ++k) server.hosts.push_back(b.add_host(fmt::format("n{}r{}", n + 1, k + 1)));
    b.add_server(std::move(server));
  }
  const std::size_t first_leaf = b.size();
  for (unsigned k = 0; k < rails; ++k)
    for (unsigned j = 0; j < per_rail; ++j) b.add_switch(fmt::format("r{}leaf{}", k + 1, j + 1), leaf_ports);
  const std::size_t first_spine = b.size();
  for (unsigned s = 0; s < spines; ++s) b.add_switch(fmt::format("spine{}", s + 1), spine_ports);

  for (unsigned k = 0; k < rails; ++k) {
    for (unsigned j = 0; j < per_rail; ++j) {
      const std::size_t leaf_index = std::size_t{k} * per_rail + j;
      for (unsigned i = 0; i < nodes_per_leaf; ++i) {
        const std::size_t host = (std::size_t{j} * nodes_per_leaf + i) * rails + k;
        b.cable(host, 1, first_leaf + leaf_index, i + 1);
      }
    }
  }
  for (std::size_t l = 0; l < leaves; ++l) {
    for (unsigned u = 0; u < nodes_per_leaf; ++u) {
      const unsigned spine_port = static_cast<unsigned>(l * copies + u / spines + 1);
      b.cable(first_leaf + l, nodes_per_leaf + u + 1, first_spine + u % spines, spine_port);
    }
  }
  return b.take();
}

Topology generate_xgft(const std::vector<unsigned>& m, const std::vector<unsigned>& w,
                       const TopologyDefaults& defaults) {
  const std::size_t h = m.size();
  if (h == 0 || w.size() != h) {
    throw std::invalid_argument(
        fmt::format("m and w lists of the same length, at least 1, got {} and {} entries", m.size(), w.size()));
  }
  for (std::size_t j = 0; j < h; ++j) require_positive({{"every m", m[j]}, {"every w", w[j]}});
  if (w[0] > defaults.hca_ports) {
    throw std::invalid_argument(fmt::format("HCAs with at least {} ports for w1 = {}, got {} (defaults.hca.ports)", w[0],
                                            w[0], defaults.hca_ports));
  }
  // count[i] = N_i; digits of level i: position j (1-based) has radix w_j for j <= i, m_j above.
  std::vector<std::uint64_t> count(h + 1);
  std::uint64_t needed_ports = 0, switches = 0;
  for (std::size_t i = 0; i <= h; ++i) {
    std::uint64_t n = 1;
    for (std::size_t j = 1; j <= h; ++j) n = mul(n, j <= i ? w[j - 1] : m[j - 1]);
    count[i] = n;
    if (i >= 1) {
      switches = add(switches, n);
      needed_ports = std::max<std::uint64_t>(needed_ports, std::uint64_t{m[i - 1]} + (i < h ? w[i] : 0));
    }
  }
  const unsigned ports = switch_ports("", needed_ports, defaults);
  check_lids(count[0], switches, defaults);

  std::uint64_t cables = 0;
  for (std::size_t i = 0; i < h; ++i) cables += count[i] * w[i];
  Builder b(defaults);
  b.reserve(count[0] + switches, cables);
  std::vector<std::size_t> first(h + 1);
  first[0] = 0;
  b.add_hosts(count[0]);
  for (std::size_t i = 1; i <= h; ++i) {
    first[i] = b.size();
    for (std::size_t x = 0; x < count[i]; ++x) b.add_switch(xgft_level_name(i, x), ports);
  }
  // Level i to level i+1: digit i+1 (weight W = prod_{j<=i} w_j, the same on both levels) is a < m_{i+1}
  // in the child and b < w_{i+1} in the parent.
  std::uint64_t weight = 1;
  for (std::size_t i = 0; i < h; ++i) {
    const std::uint64_t mi1 = m[i], wi1 = w[i];
    const unsigned up_base = i == 0 ? 0 : m[i - 1];  // the child's first up port is up_base + 1
    for (std::uint64_t x = 0; x < count[i]; ++x) {
      const std::uint64_t low = x % weight;
      const std::uint64_t a = (x / weight) % mi1;
      const std::uint64_t high = x / weight / mi1;
      for (std::uint64_t bi = 0; bi < wi1; ++bi) {
        const std::uint64_t parent = (high * wi1 + bi) * weight + low;
        b.cable(first[i] + x, static_cast<unsigned>(up_base + bi + 1), first[i + 1] + parent,
                static_cast<unsigned>(a + 1));
      }
    }
    weight *= wi1;
  }
  return b.take();
}

Topology generate_kary_ntree(unsigned k, unsigned n, const TopologyDefaults& defaults) {
  require_positive({{"k", k}, {"n", n}});
  std::vector<unsigned> m(n, k), w(n, k);
  w[0] = 1;
  return generate_xgft(m, w, defaults);
}

Topology generate_fat_tree_radix(unsigned radix, unsigned levels, const TopologyDefaults& defaults) {
  require_positive({{"levels", levels}});
  if (radix < 2 || radix % 2 != 0) {
    throw std::invalid_argument(fmt::format("an even switch radix of at least 2, got {}", radix));
  }
  std::vector<unsigned> m(levels, radix / 2), w(levels, radix / 2);
  m.back() = radix;
  w[0] = 1;
  return generate_xgft(m, w, defaults);
}

Topology generate_mesh(const std::vector<unsigned>& dims, unsigned hosts_per_switch, bool torus,
                       const TopologyDefaults& defaults) {
  if (dims.empty() || dims.size() > 3) {
    throw std::invalid_argument(fmt::format("1 to 3 dimensions, got {}", dims.size()));
  }
  for (unsigned d : dims) {
    if (d < 2) throw std::invalid_argument(fmt::format("dimension sizes of at least 2, got {}", d));
  }
  require_positive({{"hosts_per_switch", hosts_per_switch}});
  const unsigned p = hosts_per_switch;
  const unsigned ports = switch_ports("", std::uint64_t{p} + 2 * dims.size(), defaults);
  std::uint64_t num_switches = 1;
  for (unsigned d : dims) num_switches = mul(num_switches, d);
  check_lids(mul(num_switches, p), num_switches, defaults);
  const std::size_t s_count = num_switches;

  // stride[i]: index distance between neighbours along dimension i (last dimension fastest).
  std::vector<std::size_t> stride(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i > 0; --i) stride[i - 1] = stride[i] * dims[i];

  Builder b(defaults);
  b.reserve(s_count * (p + 1), s_count * (p + dims.size()));
  b.add_hosts(s_count * p);
  const std::size_t first = b.size();
  for (std::size_t s = 0; s < s_count; ++s) {
    std::string name = "sw";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      name += fmt::format("{}{}", i == 0 ? "" : "_", s / stride[i] % dims[i]);
    }
    b.add_switch(std::move(name), ports);
  }
  for (std::size_t s = 0; s < s_count; ++s)
    for (unsigned i = 0; i < p; ++i) b.cable(s * p + i, 1, first + s, i + 1);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const unsigned plus = p + 2 * static_cast<unsigned>(i) + 1;
    for (std::size_t s = 0; s < s_count; ++s) {
      const std::size_t c = s / stride[i] % dims[i];
      if (c + 1 < dims[i]) {
        b.cable(first + s, plus, first + s + stride[i], plus + 1);
      } else if (torus) {
        b.cable(first + s, plus, first + s - c * stride[i], plus + 1);  // wrap to coordinate 0
      }
    }
  }
  return b.take();
}

Topology generate_dragonfly(unsigned a, unsigned p, unsigned h, unsigned groups, const TopologyDefaults& defaults) {
  require_positive({{"a (routers per group)", a}, {"p (hosts per router)", p}, {"h (global ports per router)", h}});
  const std::uint64_t slots = std::uint64_t{a} * h;  // global ports per group
  const std::uint64_t g = groups == 0 ? slots + 1 : groups;
  if (g < 2 || g > slots + 1) {
    throw std::invalid_argument(fmt::format("2..{} groups (a*h + 1), got {}", slots + 1, g));
  }
  const unsigned ports = switch_ports("", std::uint64_t{p} + a - 1 + h, defaults);
  const std::uint64_t routers = mul(g, a);
  check_lids(mul(routers, p), routers, defaults);
  const std::uint64_t copies = slots / (g - 1);  // global cables between each pair of groups

  Builder b(defaults);
  b.reserve(routers * (p + 1), routers * p + routers * (a - 1) / 2 + copies * g * (g - 1) / 2);
  b.add_hosts(routers * p);
  const std::size_t first = b.size();
  for (std::uint64_t gi = 0; gi < g; ++gi)
    for (unsigned r = 0; r < a; ++r) b.add_switch(fmt::format("g{}r{}", gi + 1, r + 1), ports);
  for (std::size_t r = 0; r < routers; ++r)
    for (unsigned i = 0; i < p; ++i) b.cable(r * p + i, 1, first + r, i + 1);
  // Local: a complete graph per group; router r's port to router q is p+1+q (q < r) or p+q (q > r).
  for (std::uint64_t gi = 0; gi < g; ++gi) {
    for (unsigned r = 0; r < a; ++r) {
      for (unsigned q = r + 1; q < a; ++q) b.cable(first + gi * a + r, p + q, first + gi * a + q, p + 1 + r);
    }
  }
  // Global: slot j of group i -> router j / h, port p + a + j % h.
  auto slot_end = [&](std::uint64_t group, std::uint64_t slot) {
    return std::pair<std::size_t, unsigned>(first + group * a + slot / h, p + a + static_cast<unsigned>(slot % h));
  };
  for (std::uint64_t t = 0; t < copies; ++t) {
    for (std::uint64_t i = 0; i < g; ++i) {
      for (std::uint64_t k = i + 1; k < g; ++k) {
        const auto [ra, pa] = slot_end(i, t * (g - 1) + (k - 1));  // k's index among i's peers
        const auto [rb, pb] = slot_end(k, t * (g - 1) + i);        // i's index among k's peers
        b.cable(ra, pa, rb, pb);
      }
    }
  }
  return b.take();
}

Topology generate_hypercube(unsigned dim, unsigned hosts_per_switch, const TopologyDefaults& defaults) {
  require_positive({{"dim", dim}, {"hosts_per_switch", hosts_per_switch}});
  const unsigned p = hosts_per_switch;
  const unsigned ports = switch_ports("", std::uint64_t{p} + dim, defaults);
  const std::uint64_t num_switches = dim >= 64 ? kHuge : std::uint64_t{1} << dim;
  check_lids(mul(num_switches, p), num_switches, defaults);
  const std::size_t s_count = num_switches;

  Builder b(defaults);
  b.reserve(s_count * (p + 1), s_count * p + s_count * dim / 2);
  b.add_hosts(s_count * p);
  const std::size_t first = b.size();
  for (std::size_t s = 0; s < s_count; ++s) {
    std::string label(dim, '0');
    for (unsigned bit = 0; bit < dim; ++bit)
      if (s >> bit & 1) label[dim - 1 - bit] = '1';
    b.add_switch("sw" + label, ports);
  }
  for (std::size_t s = 0; s < s_count; ++s)
    for (unsigned i = 0; i < p; ++i) b.cable(s * p + i, 1, first + s, i + 1);
  for (std::size_t s = 0; s < s_count; ++s) {
    for (unsigned bit = 0; bit < dim; ++bit) {
      const std::size_t peer = s ^ (std::size_t{1} << bit);
      if (s < peer) b.cable(first + s, p + 1 + bit, first + peer, p + 1 + bit);
    }
  }
  return b.take();
}

}  // namespace ibfsim
