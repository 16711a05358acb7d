#include "sim/workload/tcp_spec.h"

#include "sim/fabric/yaml_input.h"

namespace ibfsim {

TcpConfig parse_tcp_spec(const YamlMap& m, std::uint32_t ib_mtu) {
  m.check_no_unknown_keys({"rto_min", "delayed_ack", "initial_window", "send_buffer", "receive_buffer", "sack"});
  TcpConfig c;
  c.mss = ib_mtu - 4 - 40;  // IPoIB header; IPv4 and TCP without options
  if (auto v = m.find("rto_min")) {
    c.rto_min = v->as_duration();
    if (c.rto_min == 0 || c.rto_min > c.rto_max) v->fail("a minimum RTO above 0 and at most 120s");
  }
  if (auto v = m.find("delayed_ack")) {
    c.delayed_ack = v->as_duration();
    if (c.delayed_ack == 0 || c.delayed_ack > 500 * kMs) v->fail("a delayed-ACK timeout above 0 and at most 500ms (RFC 5681)");
  }
  c.initial_window_segments = m.optional_in_range<std::uint32_t>("initial_window", c.initial_window_segments, 1, 100);
  // 1 GiB: the most a window scale of 14 lets the 16-bit field say.
  c.send_buffer = m.optional_in_range<std::uint64_t>("send_buffer", c.send_buffer, 4096, std::uint64_t{1} << 30);
  c.receive_buffer = m.optional_in_range<std::uint64_t>("receive_buffer", c.receive_buffer, 4096, std::uint64_t{1} << 30);
  c.sack = m.optional<bool>("sack", c.sack);
  return c;
}

}  // namespace ibfsim
