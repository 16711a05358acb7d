// In-process fabric tests: build a Fabric from inline YAML, post UD sends at chosen times, record
// what is injected and delivered. One simulation per test process (SystemC's rule).
#pragma once
#include <systemc>
#include <vector>

#include "sim/core/calendar_process.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/topology_yaml.h"

namespace ibfsim::test {

// Posts `count` UD SENDs of `bytes` from `hca` to (dlid, dst) when its action runs.
struct Poster {
  Hca* hca = nullptr;
  Lid dlid = 0;
  Qpn src = 0, dst = 0;
  std::uint32_t bytes = 0;
  int count = 1;
  void fire() {
    for (int i = 0; i < count; ++i) hca->post_ud_send(src, dlid, dst, 0x42, bytes, true);
  }
};

// Points `p` from `src` to `dst`: a fresh UD QP on each (Q_Key 0x42), `count` messages of `bytes`.
inline void aim(Poster& p, Hca& src, Hca& dst, std::uint32_t bytes, int count = 1) {
  p.hca = &src;
  p.src = src.create_ud_qp(0x42);
  p.dst = dst.create_ud_qp(0x42);
  p.dlid = dst.lid();
  p.bytes = bytes;
  p.count = count;
}

struct Delivery {
  std::uint32_t src_node;
  Time created, injected, delivered;
};

struct Recorder : DeliveryObserver, SendObserver {
  std::vector<Delivery> delivered;
  std::vector<Time> injected;
  void on_delivered(Hca&, const Packet& p, Time tail) override {
    delivered.push_back({p.src_node, p.created, p.injected, tail});
  }
  void on_injected(Hca&, const Packet& p) override { injected.push_back(p.injected); }
};

inline Fabric& build_fabric(const std::string& yaml, const FabricOptions& options = {}) {
  Topology topo = parse_topology(YAML::Load(yaml), "inline.yaml");
  return *new Fabric(topo, options);  // lives until the process ends, as SystemC modules must
}

// The smallest multiple of `grain` at or after `t`. Posting at 1 us + that shift, with `grain` a
// span of whole link-clock edges that is a whole number of fs, moves every edge time of a
// hand-computed timeline by exactly the shift: how timing tests step past link training.
inline Time shift_past(Time t, Time grain) { return (t + grain - 1) / grain * grain; }

// Runs the simulation for `duration`, then checks the fabric's own invariants.
inline void run_for(Fabric& f, Time duration) {
  CalendarProcess::run_for(duration);
  ScheduledModule::rethrow_failure();
  f.check_invariants();
}

}  // namespace ibfsim::test
