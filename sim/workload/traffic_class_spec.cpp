#include "sim/workload/traffic_class_spec.h"

#include <algorithm>

#include "sim/fabric/yaml_input.h"
#include "sim/workload/tcp_spec.h"
#include "sim/workload/verbs_flow_spec.h"

namespace ibfsim {

std::size_t TrafficClassSpec::sources() const {
  return static_cast<std::size_t>(std::count(sending.begin(), sending.end(), true));
}

bool is_traffic_class(const YamlMap& m) { return m.has("pattern"); }

namespace {

// Index of an HCA name in the class's host list.
std::size_t host_index(const YamlValue& v, const std::vector<std::size_t>& hosts, const Topology& topo) {
  const std::string name = v.as<std::string>();
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (topo.nodes[hosts[i]].name == name) return i;
  v.fail("the name of an HCA among the class's hosts", "'" + name + "'");
}

// Keys that belong to one pattern (or arrival) only: a key given to another is a mistake, not a
// no-op. `pv`: the class's pattern, named in the message.
void only_for(const YamlMap& m, const YamlValue& pv, const char* key, bool ok, const char* which) {
  if (auto v = m.find(key); v && !ok) v->fail(std::string("no '") + key + "' (it applies to " + which + ")", pv.as<std::string>() + " traffic");
}

void check_pattern_keys(const YamlMap& m, const YamlValue& pv, PatternKind k) {
  only_for(m, pv, "shift", k == PatternKind::kShift, "pattern: shift");
  only_for(m, pv, "dims", k == PatternKind::kTornado, "pattern: tornado");
  only_for(m, pv, "hotspots", k == PatternKind::kHotspot, "pattern: hotspot");
  only_for(m, pv, "hotspot_fraction", k == PatternKind::kHotspot, "pattern: hotspot");
  only_for(m, pv, "destination", k == PatternKind::kIncast, "pattern: incast");
  only_for(m, pv, "fan_in", k == PatternKind::kIncast, "pattern: incast");
  const bool coll = pattern_is_collective(k);
  only_for(m, pv, "load", !coll, "load-driven patterns, not collectives");
  only_for(m, pv, "arrival", !coll, "load-driven patterns, not collectives");
  only_for(m, pv, "iterations", coll, "collectives");
  only_for(m, pv, "start", coll, "collectives");
}

// Hosts: the index space of the pattern (`hosts:`, else every HCA of the topology).
std::vector<std::size_t> parse_hosts(const YamlMap& m, const Topology& topo) {
  std::vector<std::size_t> hosts;
  const auto hcas = topo.hcas();
  if (auto hv = m.find("hosts")) {
    for (const YamlValue& v : hv->as_list()) {
      auto n = topo.find_node(v.as<std::string>());
      if (!n || topo.nodes[*n].type != NodeType::kHca) v.fail("the name of an HCA of the topology", "'" + v.as<std::string>() + "'");
      if (std::find(hosts.begin(), hosts.end(), *n) != hosts.end()) v.fail("each host once", "'" + v.as<std::string>() + "' again");
      hosts.push_back(*n);
    }
    if (hosts.size() < 2) hv->fail("at least two hosts");
  } else {
    hosts = hcas;
  }
  const std::size_t n = hosts.size();
  if (n < 2) m.fail("a class over at least two HCAs", std::to_string(n));
  return hosts;
}

// The parameters of c's pattern (shift, dims, hotspots, incast destination), checked against its
// hosts.
void parse_pattern_parameters(const YamlMap& m, const YamlValue& pv, const Topology& topo, TrafficClassSpec& c) {
  const std::size_t n = c.hosts.size();
  switch (c.pattern.kind) {
    case PatternKind::kShift: {
      if (auto v = m.find("shift")) {
        c.pattern.shift = v->as<std::int64_t>();
        if (c.pattern.shift % static_cast<std::int64_t>(n) == 0)
          v->fail("a shift that is not a multiple of the " + std::to_string(n) + " hosts (every host would send to itself)");
      }
      break;
    }
    case PatternKind::kTranspose:
      if (exact_square_root(n) == 0) pv.fail("a square number of hosts for transpose", std::to_string(n) + " hosts");
      break;
    case PatternKind::kBitComplement:
      if (!is_power_of_two(n)) pv.fail("a power-of-two number of hosts for bit_complement", std::to_string(n) + " hosts");
      break;
    case PatternKind::kTornado: {
      std::size_t switches = 1;
      if (auto dv = m.find("dims")) {
        for (const YamlValue& d : dv->as_list()) {
          c.pattern.dims.push_back(d.as_in_range<std::size_t>(1, 1u << 20));
          switches *= c.pattern.dims.back();
        }
        if (c.pattern.dims.empty() || n % switches != 0)
          dv->fail("switches per dimension whose product divides the " + std::to_string(n) + " hosts");
      } else {
        c.pattern.dims = {n};
      }
      bool moves = false;
      for (std::size_t d : c.pattern.dims) moves = moves || d >= 3;
      if (!moves) pv.fail("a dimension of at least 3 for tornado (shorter rings map every host to itself)");
      break;
    }
    case PatternKind::kHotspot: {
      for (const YamlValue& v : m.list("hotspots")) {
        const std::size_t h = host_index(v, c.hosts, topo);
        if (std::find(c.pattern.hotspots.begin(), c.pattern.hotspots.end(), h) != c.pattern.hotspots.end())
          v.fail("each hotspot once");
        c.pattern.hotspots.push_back(h);
      }
      if (c.pattern.hotspots.empty()) m.get("hotspots").fail("at least one hotspot");
      if (auto v = m.find("hotspot_fraction")) {
        c.pattern.hotspot_fraction = v->as<double>();
        if (!(c.pattern.hotspot_fraction >= 0 && c.pattern.hotspot_fraction <= 1)) v->fail("a fraction in [0, 1]");
      }
      break;
    }
    case PatternKind::kIncast:
      c.pattern.target = host_index(m.get("destination"), c.hosts, topo);
      break;
    default: break;
  }
}

// Sources: which hosts send (`sources:`, incast's `fan_in:`; every host by default).
void parse_sources(const YamlMap& m, const Topology& topo, TrafficClassSpec& c) {
  const std::size_t n = c.hosts.size();
  c.sending.assign(n, true);
  if (auto sv = m.find("sources")) {
    if (m.has("fan_in")) m.get("fan_in").fail("either sources or fan_in, not both");
    c.sending.assign(n, false);
    for (const YamlValue& v : sv->as_list()) {
      const std::size_t h = host_index(v, c.hosts, topo);
      if (c.sending[h]) v.fail("each source once", "'" + v.as<std::string>() + "' again");
      c.sending[h] = true;
    }
    if (c.sources() == 0) sv->fail("at least one source");
    if (c.collective()) sv->fail("no sources for a collective (every host takes part; name them in hosts)");
  }
  if (c.pattern.kind == PatternKind::kIncast) {
    c.sending[c.pattern.target] = false;
    if (auto fv = m.find("fan_in")) {
      const auto f = fv->as_in_range<std::size_t>(1, n - 1);
      c.sending.assign(n, false);
      for (std::size_t j = 1; j <= f; ++j) c.sending[(c.pattern.target + j) % n] = true;
    }
    if (c.sources() == 0) m.get("sources").fail("a source other than the incast destination");
  }
}

// Transport, verb and path MTU.
void parse_transport(const YamlMap& m, TrafficClassSpec& c) {
  if (auto tv = m.find("transport")) {
    const std::string t = tv->as<std::string>();
    if (t == "ud_send") c.transport = ClassTransport::kUdSend;
    else if (t == "ud") c.transport = ClassTransport::kUd;
    else if (t == "uc") c.transport = ClassTransport::kUc;
    else if (t == "rc") c.transport = ClassTransport::kRc;
    else if (t == "ipoib_udp") c.transport = ClassTransport::kIpoibUdp;
    else if (t == "ipoib_tcp") c.transport = ClassTransport::kIpoibTcp;
    else tv->fail("a transport: ud_send (packets built at the wire), ud, uc or rc (verbs queue pairs), ipoib_udp "
                  "(UDP over IPoIB) or ipoib_tcp (TCP over IPoIB)");
    if (c.ipoib() && c.collective())
      tv->fail("a transport for a collective: ud_send, ud, uc or rc (IPoIB carries load-driven patterns)", t);
    // IPoIB's default: a 2 KiB IB MTU, an IPoIB MTU of 2044.
    if (c.ipoib()) c.mtu = 2048;
  }
  if (auto vv = m.find("verb")) {
    const std::string v = vv->as<std::string>();
    if (v == "send") c.verb = ClassVerb::kSend;
    else if (v == "write") c.verb = ClassVerb::kWrite;
    else if (v == "read") c.verb = ClassVerb::kRead;
    else vv->fail("a verb: send, write or read");
    const bool ud = c.transport == ClassTransport::kUdSend || c.transport == ClassTransport::kUd || c.ipoib();
    if (ud && c.verb != ClassVerb::kSend) vv->fail("send (UD carries SENDs only)", v);
    if (c.transport == ClassTransport::kUc && c.verb == ClassVerb::kRead) vv->fail("send or write (UC has no READ)", v);
  }
  if (auto v = m.find("mtu")) {
    c.mtu = v->as<std::uint32_t>();
    if (c.mtu != 256 && c.mtu != 512 && c.mtu != 1024 && c.mtu != 2048 && c.mtu != 4096)
      v->fail("an IB MTU: 256, 512, 1024, 2048 or 4096");
  }
}

// Message sizes: a number, or a list of {size, weight}.
void parse_message_sizes(const YamlMap& m, TrafficClassSpec& c) {
  const bool ipoib = c.transport == ClassTransport::kIpoibUdp;
  // ipoib_udp: a message is one UDP datagram, not fragmented: at most the IPoIB MTU (IB MTU - 4)
  // less the IPv4 and UDP headers.
  const std::uint32_t max_size = c.transport == ClassTransport::kUd ? c.mtu
                                 : ipoib                            ? c.mtu - kIpoibUdpOverhead
                                                                    : kMaxVerbsMessage;
  const std::string max_what = c.transport == ClassTransport::kUd ? "at most the MTU (a UD message is one packet)"
                               : ipoib ? "at most " + std::to_string(max_size) +
                                             " (one UDP datagram within the IPoIB MTU of the IB MTU less 4 bytes, "
                                             "less 28 bytes of IPv4 and UDP headers)"
                                       : "at most 8 MiB";
  if (auto sv = m.find("message_size")) {
    if (sv->is_list()) {
      std::vector<MessageSizeMix::Entry> entries;
      for (const YamlValue& e : sv->as_list()) {
        YamlMap em = e.as_map();
        em.check_no_unknown_keys({"size", "weight"});
        MessageSizeMix::Entry x;
        YamlValue s = em.get("size");
        x.bytes = s.as<std::uint32_t>();
        if (x.bytes > max_size) s.fail(std::string("a message size ") + max_what, std::to_string(x.bytes));
        if (auto w = em.find("weight")) {
          x.weight = w->as<double>();
          if (!(x.weight > 0)) w->fail("a positive weight");
        }
        entries.push_back(x);
      }
      if (entries.empty()) sv->fail("at least one {size, weight}");
      if (c.collective()) sv->fail("one message size for a collective (its buffer size)");
      c.sizes = MessageSizeMix(entries);
    } else {
      const auto s = sv->as<std::uint32_t>();
      if (s > max_size) sv->fail(std::string("a message size ") + max_what, std::to_string(s));
      c.sizes = MessageSizeMix(s);
    }
  } else if (c.transport == ClassTransport::kUd) {
    c.sizes = MessageSizeMix(std::min<std::uint32_t>(2048, c.mtu));
  } else if (ipoib) {
    c.sizes = MessageSizeMix(max_size);
  } else if (c.transport == ClassTransport::kIpoibTcp) {
    c.sizes = MessageSizeMix(128 * 1024);  // iperf's write for TCP
  }
}

// The offered load and its arrival process.
void parse_arrivals(const YamlMap& m, const YamlValue& pv, TrafficClassSpec& c) {
  if (auto v = m.find("load")) {
    c.load = v->as<double>();
    if (!(c.load > 0.0 && c.load <= 1.0)) v->fail("a load in (0, 1]");
  }
  if (auto v = m.find("arrival")) {
    const auto a = arrival_from_name(v->as<std::string>());
    if (!a) v->fail("poisson, bernoulli, constant or on_off");
    c.arrival.kind = *a;
  }
  only_for(m, pv, "burst_length", c.arrival.kind == ArrivalKind::kOnOff, "arrival: on_off");
  only_for(m, pv, "peak_load", c.arrival.kind == ArrivalKind::kOnOff, "arrival: on_off");
  if (auto v = m.find("burst_length")) {
    c.arrival.burst_length = v->as<double>();
    if (!(c.arrival.burst_length >= 1)) v->fail("a mean burst length of at least 1 message");
  }
  if (auto v = m.find("peak_load")) {
    c.arrival.peak_load = v->as<double>();
    if (!(c.arrival.peak_load >= c.load && c.arrival.peak_load <= 1)) v->fail("a peak load in [load, 1]");
  }
}

}  // namespace

TrafficClassSpec parse_traffic_class(const YamlMap& m, std::size_t index, const Topology& topo) {
  m.check_no_unknown_keys({"name", "pattern", "shift", "dims", "hotspots", "hotspot_fraction", "destination", "fan_in",
                           "hosts", "sources", "transport", "verb", "message_size", "mtu", "load", "arrival",
                           "burst_length", "peak_load", "sl", "tx_depth", "rx_depth", "iterations", "start", "tcp"});
  TrafficClassSpec c;
  c.name = m.optional<std::string>("name", "flow" + std::to_string(index));
  const YamlValue pv = m.get("pattern");
  const auto kind = pattern_from_name(pv.as<std::string>());
  if (!kind)
    pv.fail("a pattern: uniform, permutation, shift, transpose, bit_complement, tornado, hotspot, incast, "
            "all_to_all, ring_allreduce or all_to_all_rounds");
  c.pattern.kind = *kind;
  check_pattern_keys(m, pv, *kind);
  c.hosts = parse_hosts(m, topo);
  parse_pattern_parameters(m, pv, topo, c);
  parse_sources(m, topo, c);
  parse_transport(m, c);
  parse_message_sizes(m, c);
  parse_arrivals(m, pv, c);
  c.sl = m.optional_in_range<std::uint8_t>("sl", 0, 0, 15);
  c.tx_depth = m.optional_in_range<std::uint32_t>("tx_depth", c.tx_depth, 1, 15000);
  c.rx_depth = m.optional_in_range<std::uint32_t>("rx_depth", c.rx_depth, 1, 16384);
  c.iterations = m.optional_in_range<std::uint64_t>("iterations", c.iterations, 1, 1'000'000);
  c.start = m.duration("start", 0);
  if (auto tv = m.find("tcp")) {
    if (c.transport != ClassTransport::kIpoibTcp) tv->fail("no 'tcp' (it applies to transport: ipoib_tcp)", "a tcp: map");
    c.tcp = parse_tcp_spec(tv->as_map(), c.mtu);
  } else {
    c.tcp.mss = c.mtu - kIpoibTcpOverhead;
  }
  return c;
}

}  // namespace ibfsim
