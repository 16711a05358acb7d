#include "sim/fabric/pfc_deadlock_detector.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "sim/core/calendar_process.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/subnet_manager/routing/dependency_cycle.h"

namespace ibfsim {

std::vector<std::size_t> pfc_wait_cycle(const std::vector<std::vector<std::size_t>>& waits_for) {
  DependencyGraph g(waits_for.size());
  for (std::size_t v = 0; v < waits_for.size(); ++v)
    for (std::size_t w : waits_for[v]) boost::add_edge(v, w, g);
  return find_dependency_cycle(g);
}

std::string PfcDeadlock::text() const {
  std::string cycle;
  for (const std::string& p : ports) cycle += p + " -> ";
  if (!ports.empty()) cycle += ports.front();
  return fmt::format("PFC deadlock at {}: priority {}: cycle of {} paused ports: {}", format_duration(detected), priority,
                     ports.size(), cycle);
}

PfcDeadlockDetector::PfcDeadlockDetector(RoceHcaFabric& fabric, std::uint8_t lossless, Time window)
    : fabric_(fabric), lossless_(lossless), window_(window) {
  const EthernetFabricPlan& plan = fabric_.plan();
  peer_.resize(plan.nodes.size());
  for (std::size_t n = 0; n < plan.nodes.size(); ++n)
    peer_[n].assign(plan.nodes[n].num_ports(), {plan.nodes.size(), 0});
  for (const EthernetCablePlan& c : plan.cables) {
    peer_[c.a][c.a_port - 1] = {c.b, c.b_port};
    peer_[c.b][c.b_port - 1] = {c.a, c.a_port};
  }
  switch_nodes_ = plan.switches();
  for (std::size_t n : switch_nodes_) fabric_.switch_at(n)->set_pause_watcher(this);
  if (ranks::several()) CalendarProcess::shared().add_barrier_hook([this] { schedule_ranks_checks(); });
}

PfcDeadlockDetector::~PfcDeadlockDetector() {
  for (std::size_t n : switch_nodes_) fabric_.switch_at(n)->set_pause_watcher(nullptr);
}

void PfcDeadlockDetector::pause_began(EthernetSwitch& sw, PortNum, unsigned prio) {
  // Switches in different partitions may hear of pauses in the same window, on different threads:
  // each schedules a check of its own (its global event, keyed by that switch) and writes nothing
  // shared; `armed_` changes only in global instants. check() keeps the first and drops those that
  // fall less than a window after a check: the checks one calendar would run.
  if (armed_ || !(lossless_ >> prio & 1)) return;
  if (ranks::several()) {
    // Scheduled at the barrier, on every rank (schedule_ranks_checks).
    const std::lock_guard<std::mutex> hold(pauses_lock_);
    pauses_.push_back(ScheduledModule::now());
    return;
  }
  sw.schedule_global<&PfcDeadlockDetector::check>(ScheduledModule::now() + window_, this);
}

void PfcDeadlockDetector::arm(Time at) {
  armed_ = true;
  // The first switch schedules it: the same origin every run.
  fabric_.switch_at(switch_nodes_.front())->schedule_global<&PfcDeadlockDetector::check>(at, this);
}

void PfcDeadlockDetector::schedule_ranks_checks() {
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  for (const Time t : pauses_) w.put(t);
  pauses_.clear();
  std::vector<Time> all;
  for (const auto& bytes : ranks::all_gather(mine)) {
    ByteReader r(bytes);
    while (!r.done()) all.push_back(r.get<Time>());
  }
  // `armed_` changes only in global instants, never between a pause and this barrier: what it was
  // when the pause was heard. One check per instant: the others would do nothing (check()).
  if (armed_) return;
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (const Time t : all) fabric_.switch_at(switch_nodes_.front())->schedule_global<&PfcDeadlockDetector::check>(t + window_, this);
}

bool PfcDeadlockDetector::any_paused() const {
  if (ranks::several()) {
    // Each rank of the switches it simulates; any rank's pause counts.
    bool paused = false;
    for (std::size_t n : switch_nodes_) {
      if (!fabric_.here(n)) continue;
      EthernetSwitch& sw = *fabric_.switch_at(n);
      for (PortNum p = 1; p <= sw.num_ports(); ++p)
        for (unsigned prio = 0; prio < kEthernetPriorities; ++prio)
          paused = paused || ((lossless_ >> prio & 1) && sw.port(p).paused(prio));
    }
    return ranks::any(paused);
  }
  for (std::size_t n : switch_nodes_) {
    EthernetSwitch& sw = *fabric_.switch_at(n);
    for (PortNum p = 1; p <= sw.num_ports(); ++p)
      for (unsigned prio = 0; prio < kEthernetPriorities; ++prio)
        if ((lossless_ >> prio & 1) && sw.port(p).paused(prio)) return true;
  }
  return false;
}

std::vector<std::uint8_t> PfcDeadlockDetector::local_wait_graph(unsigned prio, Time now) const {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  for (std::size_t n : switch_nodes_) {
    if (!fabric_.here(n)) continue;
    EthernetSwitch& sw = *fabric_.switch_at(n);
    for (PortNum p = 1; p <= sw.num_ports(); ++p) {
      const EthernetPort& port = sw.port(p);
      if (!port.paused(prio) || sw.queued_frames(p, prio) == 0) continue;
      if (now - port.pfc().paused_since(prio) < window_) continue;
      // A vertex (n, p), then the ingresses q of this switch holding frames for it: each an edge
      // from the egress at q's far end, if that is a vertex too (known once every rank's are in).
      w.put(static_cast<std::uint64_t>(n));
      w.put(p);
      std::vector<PortNum> holding;
      for (PortNum q = 1; q <= sw.num_ports(); ++q)
        if (sw.pfc().holds(p, static_cast<std::uint8_t>(prio), q)) holding.push_back(q);
      w.put(static_cast<std::uint64_t>(holding.size()));
      for (PortNum q : holding) w.put(q);
    }
  }
  return out;
}

std::optional<PfcDeadlock> PfcDeadlockDetector::find_deadlock() const {
  const Time now = ScheduledModule::now();
  std::map<std::size_t, std::size_t> place;  // plan node -> its place among the switches
  for (std::size_t i = 0; i < switch_nodes_.size(); ++i) place[switch_nodes_[i]] = i;
  for (unsigned prio = 0; prio < kEthernetPriorities; ++prio) {
    if (!(lossless_ >> prio & 1)) continue;
    // Vertices: the egresses paused for a whole window with frames of `prio` waiting, each rank's
    // of its own switches (with one rank, every switch), in the switches' order.
    struct Vertex {
      std::size_t node;
      PortNum port;
      std::vector<PortNum> holding;  // ingresses of the same switch holding frames for it
    };
    std::vector<Vertex> vertices;
    for (const auto& bytes : ranks::all_gather(local_wait_graph(prio, now))) {
      ByteReader r(bytes);
      while (!r.done()) {
        Vertex v;
        v.node = static_cast<std::size_t>(r.get<std::uint64_t>());
        v.port = r.get<PortNum>();
        v.holding.resize(static_cast<std::size_t>(r.get<std::uint64_t>()));
        for (PortNum& q : v.holding) q = r.get<PortNum>();
        vertices.push_back(std::move(v));
      }
    }
    std::sort(vertices.begin(), vertices.end(), [&place](const Vertex& a, const Vertex& b) {
      return std::pair(place.at(a.node), a.port) < std::pair(place.at(b.node), b.port);
    });
    std::map<std::pair<std::size_t, PortNum>, std::size_t> index;
    for (std::size_t v = 0; v < vertices.size(); ++v) index[{vertices[v].node, vertices[v].port}] = v;
    // An edge from egress (n, p) to egress (b, r) when b is at the far end of p's cable and b's
    // ingress from it holds frames for r; in the order of r (the far switch's ports).
    std::vector<std::vector<std::size_t>> waits(vertices.size());
    for (std::size_t w = 0; w < vertices.size(); ++w)
      for (PortNum q : vertices[w].holding) {
        const auto [n, p] = peer_[vertices[w].node][q - 1];
        if (n >= peer_.size() || fabric_.switch_at(n) == nullptr) continue;  // a host's: never paused here
        const auto it = index.find({n, p});
        if (it != index.end()) waits[it->second].push_back(w);
      }
    for (auto& targets : waits)
      std::sort(targets.begin(), targets.end(),
                [&vertices](std::size_t a, std::size_t b) { return vertices[a].port < vertices[b].port; });
    const std::vector<std::size_t> cycle = pfc_wait_cycle(waits);
    if (cycle.empty()) continue;
    PfcDeadlock d;
    d.detected = now;
    d.priority = prio;
    for (std::size_t v : cycle) d.ports.push_back(fabric_.switch_at(vertices[v].node)->port(vertices[v].port).name());
    return d;
  }
  return std::nullopt;
}

void PfcDeadlockDetector::check() {
  const Time now = ScheduledModule::now();
  if (now < quiet_until_) return;  // a pause's check within a window of the last one (pause_began)
  quiet_until_ = now + window_;
  armed_ = false;
  ++checks_;
  if (std::optional<PfcDeadlock> d = find_deadlock()) throw PfcDeadlockError(std::move(*d));
  if (any_paused()) arm(now + window_);
}

}  // namespace ibfsim
