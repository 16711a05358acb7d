// A cable between two ports: its two wires (one per direction, wire.h), built once when the fabric
// is cabled. Each port drives one wire and is reached through the other; the ports never hold each
// other. What needs both ends lives here or on the wires: propagation, the PHY of each direction
// and the per-link counts.
#pragma once
#include <cstdint>
#include <memory>

#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/link/wire.h"

namespace ibfsim {

class Link {
 public:
  // Ports `a` and `b` (of modules `a_module` and `b_module`) joined at `rate`, with a propagation
  // of `prop_cycles` edges each way and the FEC `fec` in both directions; `id_ab`/`id_ba` name the
  // directions in captures.
  Link(LinkPort& a, ScheduledModule& a_module, LinkPort& b, ScheduledModule& b_module, const LinkRate& rate,
       std::uint64_t prop_cycles, std::uint32_t id_ab, std::uint32_t id_ba, FecTiming fec = {});
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  LinkPort& a() { return a_; }
  LinkPort& b() { return b_; }
  Wire& a_to_b() { return *ab_; }
  Wire& b_to_a() { return *ba_; }

 private:
  LinkPort& a_;
  LinkPort& b_;
  std::unique_ptr<Wire> ab_, ba_;
};

}  // namespace ibfsim
