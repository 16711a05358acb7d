#include "sim/report/fact_tables.h"

#include <optional>

namespace ibfsim {

namespace {

double ns(Time t) { return static_cast<double>(t) / 1e6; }
const char* yes_no(bool b) { return b ? "true" : "false"; }

std::optional<double> ns_at(const std::vector<Time>& times, std::size_t i) {
  return i < times.size() ? std::optional<double>(ns(times[i])) : std::nullopt;
}
// Times from `from` on, in ns; nothing when there are none (a link that never went down).
std::optional<std::vector<double>> ns_list(const std::vector<Time>& times, std::size_t from) {
  if (times.size() <= from) return std::nullopt;
  std::vector<double> out;
  for (std::size_t i = from; i < times.size(); ++i) out.push_back(ns(times[i]));
  return out;
}

using Link = const LinkFacts* const&;
using Model = const HcaModelFacts* const&;
using Target = const AttackTargetFacts* const&;

void register_links(StatsRegistry& r, const std::vector<LinkFacts>& links) {
  constexpr StatOutputs kOut = kLinksCsv;
  auto k = r.add_kind<const LinkFacts*>("links", {"a", "b"});
  k.attribute("rate", kOut, [](Link l) { return l->rate; })
      .attribute("trained", kOut, [](Link l) { return l->trained; })
      .attribute("lane_reversed", kOut, [](Link l) { return yes_no(l->lane_reversed); })
      .figure("training_ns", "ns", Merge::kSame, kOut, [](Link l) { return ns(l->training); })
      .attribute("phy_mode", kOut, [](Link l) { return l->phy_mode; })
      .attribute("fec", kOut, [](Link l) { return l->fec.empty() ? std::nullopt : std::optional<std::string>(l->fec); })
      // When training ended and the ports left Down, and when both ends were Active: after the
      // first training; after each fault's retrain in the lists.
      .figure("up_ns", "ns", Merge::kSame, kOut, [](Link l) { return ns_at(l->up, 0); })
      .figure("active_ns", "ns", Merge::kSame, kOut, [](Link l) { return ns_at(l->active, 0); })
      .figure("down_ns", "ns", Merge::kSame, kOut, [](Link l) { return ns_list(l->down, 0); })
      .figure("retrained_up_ns", "ns", Merge::kSame, kOut,
              [](Link l) { return l->down.empty() ? std::nullopt : ns_list(l->up, 1); })
      .figure("retrained_active_ns", "ns", Merge::kSame, kOut,
              [](Link l) { return l->down.empty() ? std::nullopt : ns_list(l->active, 1); });
  auto phy = [](std::uint64_t LinkFacts::PhyCounts::*field) {
    return [field](Link l) { return l->phy ? std::optional<std::uint64_t>((*l->phy).*field) : std::nullopt; };
  };
  k.counter("bits_flipped", "bits", kOut, phy(&LinkFacts::PhyCounts::bits_flipped))
      .counter("symbol_errors", "symbols", kOut, phy(&LinkFacts::PhyCounts::symbol_errors))
      .counter("bad_frames", "frames", kOut, phy(&LinkFacts::PhyCounts::bad_frames))
      .counter("skips", "ordered sets", kOut, phy(&LinkFacts::PhyCounts::skips));  // both directions
  for (const LinkFacts& l : links) k.add(&l, kNoStatParent, l.a, l.b);
}

void register_hca_models(StatsRegistry& r, const std::vector<HcaModelFacts>& models) {
  constexpr StatOutputs kOut = kHcaModelCsv;
  auto k = r.add_kind<const HcaModelFacts*>("hca_model", {"hca"});
  k.attribute("doorbell_to_wire_ns", kOut, [](Model m) { return ns(m->doorbell_to_wire); })
      .attribute("wire_to_completion_ns", kOut, [](Model m) { return ns(m->wire_to_completion); })
      .attribute("pcie_gen", kOut, [](Model m) { return m->pcie_gen; })
      .attribute("pcie_width", kOut, [](Model m) { return m->pcie_width; })
      .attribute("pcie_max_payload", kOut, [](Model m) { return m->pcie_max_payload; })
      .attribute("pcie_unlimited", kOut, [](Model m) { return yes_no(m->pcie_unlimited); })
      .attribute("host_interface_gbytes_per_s", kOut, [](Model m) { return m->host_interface_gbytes_per_s; })
      .attribute("p_keys", kOut, [](Model m) { return std::vector<double>(m->p_keys.begin(), m->p_keys.end()); })
      // Shown only when not sequential (the default).
      .attribute("memory_keys", kOut, [](Model m) {
        return m->memory_keys.empty() ? std::nullopt : std::optional<std::string>(m->memory_keys);
      })
      // Shown only when on (go-back-N is the default).
      .attribute("rc_out_of_order", kOut, [](Model m) {
        return m->rc_out_of_order ? std::optional<std::string>("true") : std::nullopt;
      });
  for (const HcaModelFacts& m : models) k.add(&m, kNoStatParent, m.hca);
}

// Per fault, per destination host that received anything: its last delivery before the fault, its
// first after, and the gap between them.
struct FaultDestination {
  const FaultFacts::Destination* d = nullptr;
};
void register_fault_destinations(StatsRegistry& r, const std::vector<FaultFacts>& faults) {
  constexpr StatOutputs kOut = kFaultDestinationsCsv;
  using D = const FaultDestination&;
  auto at = [](Time t) { return t == kTimeNever ? std::nullopt : std::optional<double>(ns(t)); };
  auto k = r.add_kind<FaultDestination>("fault_destinations", {"fault", "link", "node"});
  k.figure("last_delivery_before_ns", "ns", Merge::kSame, kOut, [at](D x) { return at(x.d->last_before); })
      .figure("first_delivery_after_ns", "ns", Merge::kSame, kOut, [at](D x) { return at(x.d->first_after); })
      .figure("gap_ns", "ns", Merge::kSame, kOut, [](D x) {
        return x.d->last_before == kTimeNever || x.d->first_after == kTimeNever
                   ? std::nullopt
                   : std::optional<double>(ns(x.d->first_after - x.d->last_before));
      });
  for (std::size_t i = 0; i < faults.size(); ++i)
    for (const FaultFacts::Destination& d : faults[i].destinations)
      k.add(FaultDestination{&d}, kNoStatParent, i, faults[i].link, d.node);
}

void register_m_key_violations(StatsRegistry& r, const SubnetManagerFacts::MKeyFacts& mk) {
  using V = const std::pair<std::string, std::uint64_t>* const&;
  auto k = r.add_kind<const std::pair<std::string, std::uint64_t>*>("m_key_violations", {"node"});
  k.counter("violations", "SMPs", kMKeyViolationsCsv, [](V v) { return v->second; });
  for (const auto& v : mk.violations) k.add(&v, kNoStatParent, v.first);
}

void register_attack_targets(StatsRegistry& r, const std::vector<AttackTargetFacts>& targets) {
  constexpr StatOutputs kOut = kAttackTargetsCsv;
  auto k = r.add_kind<const AttackTargetFacts*>("attack_targets", {"attack", "switch"});
  k.attribute("path", kOut, [](Target t) { return std::vector<double>(t->path.begin(), t->path.end()); })
      .counter("smps_processed", "SMPs", kOut, [](Target t) { return t->smps_processed; })
      .counter("smps_overflowed", "SMPs", kOut, [](Target t) { return t->smps_overflowed; })
      .counter("m_key_refused", "SMPs", kOut, [](Target t) { return t->m_key_refused; })
      .attribute("hijack_in_place", kOut, [](Target t) {
        return t->hijack_in_place ? std::optional<std::string>(yes_no(*t->hijack_in_place)) : std::nullopt;
      });
  for (const AttackTargetFacts& t : targets) k.add(&t, kNoStatParent, t.attack, t.target);
}

}  // namespace

void register_fact_tables(StatsRegistry& r, const RunFacts& f) {
  register_links(r, f.links);
  if (!f.hca_models.empty()) register_hca_models(r, f.hca_models);
  if (!f.faults.empty()) register_fault_destinations(r, f.faults);
  if (f.subnet_manager && f.subnet_manager->m_key) register_m_key_violations(r, *f.subnet_manager->m_key);
  if (!f.attack_targets.empty()) register_attack_targets(r, f.attack_targets);
}

}  // namespace ibfsim
