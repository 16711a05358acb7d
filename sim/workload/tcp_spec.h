// A traffic class's `tcp:` map (transport: ipoib_tcp): the parameters of every TCP connection of
// the class (transport/tcp/tcp_config.h). Keys are documented in docs/scenario.md ("TCP over IPoIB").
#pragma once
#include <cstdint>

#include "sim/transport/tcp/tcp_config.h"

namespace ibfsim {

class YamlMap;

// Reads `tcp:` (every key optional); the MSS is the IPoIB MTU of IB MTU `ib_mtu` less IPv4 and TCP
// headers. Throws InputError naming file:line:col.
TcpConfig parse_tcp_spec(const YamlMap& m, std::uint32_t ib_mtu);

}  // namespace ibfsim
