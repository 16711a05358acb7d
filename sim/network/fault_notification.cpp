#include "sim/network/fault_notification.h"

#include <algorithm>
#include <optional>

#include "sim/core/big_endian.h"
#include "sim/link/credit_counter.h"
#include "sim/link/lrh.h"
#include "sim/link/vcrc.h"
#include "sim/network/switch.h"

namespace ibfsim {

void build_fault_notification(Packet& p, const FaultNotification& n, Lid slid) {
  const std::size_t bytes = (4 + 2 * n.lids.size() + 3) / 4 * 4;
  p.payload.assign(bytes, 0);
  p.payload[0] = n.type;
  p.payload[1] = n.hops;
  store_be16(&p.payload[2], static_cast<std::uint16_t>(n.lids.size()));
  for (std::size_t i = 0; i < n.lids.size(); ++i) store_be16(&p.payload[4 + 2 * i], n.lids[i]);
  p.header_len = kLrhBytes;
  p.has_icrc = false;
  p.pad_len = 0;
  p.payload_len = static_cast<std::uint32_t>(bytes);
  encode_lrh({kVl15, 0, 0, kLnhRawIpv6, kLidPermissive, static_cast<std::uint16_t>(p.pkt_len_words()), slid},
             p.header.data());
  write_vcrc(p);
  p.management = true;
}

bool parse_fault_notification(const Packet& p, FaultNotification& out) {
  if (p.payload.size() < 4 || p.payload_len != p.payload.size() || (p.payload[0] != kArNotifyFault && p.payload[0] != kArNotifyCongestion)) return false;
  const std::size_t count = load_be16(&p.payload[2]);
  if (4 + 2 * count > p.payload.size()) return false;
  out.type = p.payload[0];
  out.hops = p.payload[1];
  out.lids.resize(count);
  for (std::size_t i = 0; i < count; ++i) out.lids[i] = load_be16(&p.payload[4 + 2 * i]);
  return true;
}

bool is_fault_notification(const std::uint8_t* lrh) {
  return lrh_vl(lrh) == kVl15 && lrh_lnh(lrh) == kLnhRawIpv6 && lrh_dlid(lrh) == kLidPermissive;
}

std::string FaultNotifier::name() const { return std::string(sw_.name()) + "/notifier"; }

std::uint32_t FaultNotifier::park(Work w) {
  if (!free_.empty()) {
    const std::uint32_t i = free_.back();
    free_.pop_back();
    pending_[i] = std::move(w);
    return i;
  }
  pending_.push_back(std::move(w));
  return static_cast<std::uint32_t>(pending_.size() - 1);
}

bool FaultNotifier::reachable(Lid lid) const {
  auto usable = [&](PortNum p) {
    return p >= 1 && p <= sw_.num_ports() && sw_.link(p).connected() && sw_.link(p).state() == PortState::kActive &&
           !excluded(lid, p);
  };
  const ArTable& ar = sw_.routing_unit().adaptive();
  const std::uint16_t g = ar.group_of(lid);
  if (g != 0 && !ar.group(g).empty()) return std::any_of(ar.group(g).begin(), ar.group(g).end(), usable);
  return usable(sw_.routing_unit().lft().lookup(lid));
}

void FaultNotifier::port_changed(PortNum port) {
  const ArSettings& s = sw_.routing_unit().adaptive().settings();
  if (!s.enabled || !s.fast_recovery || sw_.link(port).state() != PortState::kDown) return;
  const RoutingUnit& ru = sw_.routing_unit();
  FaultNotification n;
  for (unsigned l = 1; l <= ru.lft().top() && l <= kLidUnicastMax; ++l) {
    const Lid lid = static_cast<Lid>(l);
    if (ru.is_own_lid(lid)) continue;
    const std::uint16_t g = ru.adaptive().group_of(lid);
    const auto& group = ru.adaptive().group(g);
    const bool used = ru.lft().lookup(lid) == port || std::find(group.begin(), group.end(), port) != group.end();
    if (used && !reachable(lid)) n.lids.push_back(lid);
  }
  if (n.lids.empty()) return;
  const std::uint32_t i = park(Work{std::move(n), port});
  sw_.schedule<&FaultNotifier::announce>(Switch::now() + sw_.config().ar_notification_latency, this, Pending{i});
}

void FaultNotifier::announce(Pending what) {
  const Work w = std::move(pending_[what.index]);
  free_.push_back(what.index);
  send(w.n, w.port);
}

void FaultNotifier::send(const FaultNotification& n, PortNum except) {
  const ArSettings& s = sw_.routing_unit().adaptive().settings();
  for (unsigned q = 1; q <= sw_.num_ports(); ++q) {
    const PortNum out = static_cast<PortNum>(q);
    if (out == except || !s.notify_ports.test(q) || !sw_.link(out).connected() ||
        sw_.link(out).state() != PortState::kActive)
      continue;
    for (std::size_t first = 0; first < n.lids.size(); first += kFaultNotificationMaxLids) {
      FaultNotification part{n.hops, {}, n.type};
      part.lids.assign(n.lids.begin() + static_cast<std::ptrdiff_t>(first),
                       n.lids.begin() + static_cast<std::ptrdiff_t>(std::min(n.lids.size(), first + kFaultNotificationMaxLids)));
      Packet* p = sw_.pool().acquire();
      build_fault_notification(*p, part, sw_.lid());
      p->created = Switch::now();
      sw_.ledger().management_created();
      ++stats_.sent;
      sw_.send_management(out, p);
    }
  }
}

void FaultNotifier::arrives(Packet* p, Arrival a) {
  const PortNum in = a.in;
  LinkPort& port = sw_.link(in);
  port.free_rx(kVl15, credits_for_bytes(p->wire_bytes()));
  FaultNotification n;
  std::optional<DropReason> bad;
  if (a.check) bad = port.check_tail(p->link_seq, p);
  if (!bad && !parse_fault_notification(*p, n)) bad = DropReason::kMalformed;
  if (bad) {
    sw_.count_discard(in, *bad, *p);
    sw_.pool().release(p);
    return;
  }
  sw_.ledger().management_delivered();
  sw_.pool().release(p);
  if (n.type == kArNotifyCongestion) return sw_.ar_congestion().received(std::move(n), in);
  ++stats_.received;
  const std::uint32_t i = park(Work{std::move(n), in});
  sw_.schedule<&FaultNotifier::apply>(Switch::now() + sw_.config().ar_notification_latency, this, Pending{i});
}

void FaultNotifier::apply(Pending what) {
  const Work w = std::move(pending_[what.index]);
  free_.push_back(what.index);
  FaultNotification onward{static_cast<std::uint8_t>(w.n.hops + 1), {}};
  const ArTable& ar = sw_.routing_unit().adaptive();
  for (const Lid lid : w.n.lids) {
    // Only a LID this switch routes adaptively has another way to go; for the others (a switch's
    // LID, a LID routed by the LFT alone) the notification changes nothing here.
    const std::uint16_t g = ar.group_of(lid);
    if (g == 0 || ar.group(g).empty()) continue;
    std::bitset<256>& ports = excluded_[lid];
    if (!ports.test(w.port)) {
      ports.set(w.port);
      if (stats_.applied.empty() || stats_.applied.back() != Switch::now()) stats_.applied.push_back(Switch::now());
      ++stats_.excluded;
    }
    if (!reachable(lid)) onward.lids.push_back(lid);
  }
  if (!onward.lids.empty() && onward.hops < kFaultNotificationMaxHops) send(onward, w.port);
}

}  // namespace ibfsim
