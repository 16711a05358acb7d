#include "sim/network/ar_congestion_notification.h"

#include <algorithm>

#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

bool ArnSendFilter::should_notify(PortNum out, std::uint8_t vl, std::uint32_t queued, std::uint32_t threshold, Time now,
                                  Time hold) {
  if (threshold == 0 || queued < threshold) return false;
  Time& quiet = quiet_until_[static_cast<std::uint32_t>(out) << 8 | vl];
  if (now < quiet) return false;
  quiet = now + hold;
  return true;
}

void ArnPenalties::penalize(Lid dlid, PortNum port, Time until) {
  Time& t = until_[key(dlid, port)];
  if (t < until) t = until;
}

std::string ArCongestionNotifier::name() const { return std::string(sw_.name()) + "/arn"; }

std::uint32_t ArCongestionNotifier::park(Work w) {
  if (!free_.empty()) {
    const std::uint32_t i = free_.back();
    free_.pop_back();
    pending_[i] = w;
    return i;
  }
  pending_.push_back(w);
  return static_cast<std::uint32_t>(pending_.size() - 1);
}

void ArCongestionNotifier::contended(PortNum in, PortNum out, std::uint8_t vl, std::uint32_t queued, const Packet& p) {
  const ArSettings& s = sw_.routing_unit().adaptive().settings();
  // Only the switch upstream can move the flow, and only if it routes adaptively at all.
  if (!s.enabled || s.congestion_threshold == 0 || !s.notify_ports.test(in)) return;
  if (!filter_.should_notify(out, vl, queued, s.congestion_threshold, Switch::now(), s.congestion_hold)) return;
  const std::uint32_t i = park(Work{lrh_dlid(p.header.data()), in});
  sw_.schedule<&ArCongestionNotifier::announce>(Switch::now() + sw_.config().ar_notification_latency, this, Pending{i});
}

void ArCongestionNotifier::announce(Pending what) {
  const Work w = pending_[what.index];
  free_.push_back(what.index);
  const LinkPort& port = sw_.link(w.port);
  if (!port.connected() || port.state() != PortState::kActive) return;
  FaultNotification n;
  n.type = kArNotifyCongestion;
  n.lids = {w.dlid};
  Packet* p = sw_.pool().acquire();
  build_fault_notification(*p, n, sw_.lid());
  p->created = Switch::now();
  sw_.ledger().management_created();
  ++stats_.sent;
  sw_.send_management(w.port, p);
}

void ArCongestionNotifier::received(FaultNotification n, PortNum in) {
  ++stats_.received;
  for (const Lid lid : n.lids) {
    const std::uint32_t i = park(Work{lid, in});
    sw_.schedule<&ArCongestionNotifier::apply>(Switch::now() + sw_.config().ar_notification_latency, this, Pending{i});
  }
}

void ArCongestionNotifier::apply(Pending what) {
  const Work w = pending_[what.index];
  free_.push_back(what.index);
  const ArTable& ar = sw_.routing_unit().adaptive();
  // Only a port of the LID's group is a choice this switch can stop preferring.
  const auto& group = ar.group(ar.group_of(w.dlid));
  if (ar.group_of(w.dlid) == 0 || std::find(group.begin(), group.end(), w.port) == group.end()) return;
  const Time now = Switch::now();
  penalties_.penalize(w.dlid, w.port, now + ar.settings().congestion_hold);
  ++stats_.penalized;
  if (stats_.first_applied == kTimeNever) stats_.first_applied = now;
}

}  // namespace ibfsim
