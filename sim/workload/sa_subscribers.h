// `subnet_manager.sa.subscribers` of a scenario: hosts whose SA client subscribes to Notices
// (SubnAdmSet(InformInfo), sa/inform_subscriptions.h) as soon as the fabric is up, and the counts
// of what followed: sa_subscribers.csv (a row per subscriber: subscriptions the SA accepted or
// refused, Reports the client took, and the SM's Reports to it sent, resent, acknowledged, given up)
// and results.json's "sa_events" (the SA's subscriptions at the end, the Reports' totals).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"
#include "sim/subnet_manager/sa/sa_client.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

struct SaSubscriber {
  std::size_t node = 0;
  std::unique_ptr<SaClient> client;
  std::uint64_t accepted = 0, refused = 0;  // InformInfo answers with status 0 / another status
  std::uint64_t unanswered = 0;             // InformInfo Sets given up on by the client
};

// Makes each subscriber's SA client (the first GSI client of its HCA: the Reports go to it) and
// sends its InformInfo Sets now, one per trap. Call once the SM has configured the fabric.
// Throws InputError (naming `file`) for a subscriber on `sm_host`, the SM's own node, whose
// requests would have to leave it and come back.
std::vector<std::unique_ptr<SaSubscriber>> start_sa_subscribers(const std::vector<SaSubscriberSpec>& specs,
                                                                 const Topology& topo, Fabric& fabric,
                                                                 const std::string& sm_host, const std::string& file);

// Registers "sa_subscribers" and "sa_events"; nothing when there is no subscriber.
void register_sa_subscriber_statistics(StatsRegistry& r, Fabric& fabric,
                                       const std::vector<std::unique_ptr<SaSubscriber>>& subscribers);

}  // namespace ibfsim
