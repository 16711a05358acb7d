#include "sim/fabric/pfc_deadlock_detector.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

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
}

PfcDeadlockDetector::~PfcDeadlockDetector() {
  for (std::size_t n : switch_nodes_) fabric_.switch_at(n)->set_pause_watcher(nullptr);
}

void PfcDeadlockDetector::pause_began(EthernetSwitch& sw, PortNum, unsigned prio) {
  // Switches in different partitions may hear of pauses in the same window, on different threads:
  // each schedules a check of its own (its global event, keyed by that switch) and writes nothing
  // shared; `armed_` changes only in global instants. check() keeps the first and drops those that
  // fall less than a window after a check: the checks one calendar would run.
  if (!armed_ && (lossless_ >> prio & 1)) sw.schedule_global<&PfcDeadlockDetector::check>(ScheduledModule::now() + window_, this);
}

void PfcDeadlockDetector::arm(Time at) {
  armed_ = true;
  // The first switch schedules it: the same origin every run.
  fabric_.switch_at(switch_nodes_.front())->schedule_global<&PfcDeadlockDetector::check>(at, this);
}

bool PfcDeadlockDetector::any_paused() const {
  for (std::size_t n : switch_nodes_) {
    EthernetSwitch& sw = *fabric_.switch_at(n);
    for (PortNum p = 1; p <= sw.num_ports(); ++p)
      for (unsigned prio = 0; prio < kEthernetPriorities; ++prio)
        if ((lossless_ >> prio & 1) && sw.port(p).paused(prio)) return true;
  }
  return false;
}

std::optional<PfcDeadlock> PfcDeadlockDetector::find_deadlock() const {
  const Time now = ScheduledModule::now();
  for (unsigned prio = 0; prio < kEthernetPriorities; ++prio) {
    if (!(lossless_ >> prio & 1)) continue;
    // Vertices: the egresses paused for a whole window with frames of `prio` waiting.
    std::map<std::pair<std::size_t, PortNum>, std::size_t> index;
    std::vector<std::pair<std::size_t, PortNum>> vertices;
    for (std::size_t n : switch_nodes_) {
      EthernetSwitch& sw = *fabric_.switch_at(n);
      for (PortNum p = 1; p <= sw.num_ports(); ++p) {
        const EthernetPort& port = sw.port(p);
        if (!port.paused(prio) || sw.queued_frames(p, prio) == 0) continue;
        if (now - port.pfc().paused_since(prio) < window_) continue;
        index[{n, p}] = vertices.size();
        vertices.emplace_back(n, p);
      }
    }
    std::vector<std::vector<std::size_t>> waits(vertices.size());
    for (std::size_t v = 0; v < vertices.size(); ++v) {
      const auto [n, p] = vertices[v];
      const auto [b, q] = peer_[n][p - 1];
      if (b >= peer_.size() || fabric_.switch_at(b) == nullptr) continue;  // paused by a host: never here
      const EthernetSwitch& far = *fabric_.switch_at(b);
      for (PortNum r = 1; r <= far.num_ports(); ++r) {
        const auto it = index.find({b, r});
        if (it != index.end() && far.pfc().holds(r, static_cast<std::uint8_t>(prio), q)) waits[v].push_back(it->second);
      }
    }
    const std::vector<std::size_t> cycle = pfc_wait_cycle(waits);
    if (cycle.empty()) continue;
    PfcDeadlock d;
    d.detected = now;
    d.priority = prio;
    for (std::size_t v : cycle)
      d.ports.push_back(fabric_.switch_at(vertices[v].first)->port(vertices[v].second).name());
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
