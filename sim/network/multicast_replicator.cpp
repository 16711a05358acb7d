#include "sim/network/multicast_replicator.h"

#include "sim/core/error.h"
#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

std::string MulticastReplicator::name() const { return std::string(sw_.name()) + "/multicast"; }

bool MulticastReplicator::copy_port(PortNum o, PortNum in) const {
  return o != in && o >= 1 && o <= sw_.num_ports();
}

void MulticastReplicator::head_ready(PortNum in, std::uint8_t vl) {
  const QueuedPacket& e = sw_.input_unit(in).head(vl);
  for (PortNum o : *e.mcast.group)
    if (copy_port(o, in) && sw_.link(o).connected()) schedule_request(in, vl, o);
}

void MulticastReplicator::schedule_request(PortNum in, std::uint8_t vl, PortNum out) {
  const InputUnit& input = sw_.input_unit(in);
  const QueuedPacket& e = input.queue(vl).front();
  const Time eligible = input.eligible_time(e, out);
  if (eligible > Switch::now())
    sw_.schedule<&MulticastReplicator::copy_eligible>(eligible, this, CopyRef{e.serial, in, vl, out});
  else
    request_copy(in, vl, out);
}

void MulticastReplicator::copy_eligible(CopyRef r) {
  const auto& q = sw_.input_unit(r.in).queue(r.vl);
  if (q.empty() || q.front().serial != r.serial) return;
  if (!q.front().mcast.bad) request_copy(r.in, r.vl, r.out);
}

void MulticastReplicator::request_copy(PortNum in, std::uint8_t vl, PortNum out) {
  const QueuedPacket& e = sw_.input_unit(in).head(vl);
  const std::uint8_t out_vl = sw_.routing_unit().output_vl(in, out, lrh_sl(e.p->header.data()), sw_.link(out).op_vls());
  if (out_vl == kVl15) return drop_copy(in, vl, out, DropReason::kSlToVlDrop);
  OutputUnit& o = sw_.output_unit(out);
  o.request(out_vl, Requester{in, vl}, e.blocks);
  o.try_start();
}

void MulticastReplicator::drop_copy(PortNum in, std::uint8_t vl, PortNum out, DropReason reason) {
  sw_.count_copy_discard(out, reason);
  MulticastCopies& c = sw_.input_unit(in).head(vl).mcast;
  --c.left;
  if (c.left == 0 && c.active == 0) sw_.input_unit(in).retire_multicast(vl);
}

Packet* MulticastReplicator::replicate(QueuedPacket& e) {
  Packet* p = sw_.pool().acquire();
  *p = *e.p;
  sw_.ledger().replica_created();
  --e.mcast.left;
  ++e.mcast.active;
  return p;
}

void MulticastReplicator::copy_done(PortNum in, std::uint8_t vl, Packet* p) {
  QueuedPacket& e = sw_.input_unit(in).head(vl);
  IBFSIM_CHECK(e.mcast.active > 0 && p != e.p, "multicast copy accounting broken");
  --e.mcast.active;
  if (e.mcast.left == 0 && e.mcast.active == 0) sw_.input_unit(in).retire_multicast(vl);
}

void MulticastReplicator::bad_tail(PortNum in, std::uint8_t vl) {
  MulticastCopies& c = sw_.input_unit(in).head(vl).mcast;
  c.bad = true;
  c.left = 0;
  const Requester r{in, vl};
  for (PortNum o : *c.group) {
    if (!copy_port(o, in)) continue;
    OutputUnit& out = sw_.output_unit(o);
    if (out.sending() == r) sw_.link(o).stomp(out.sending_seq());
    out.withdraw(r);
  }
  if (c.active == 0) sw_.input_unit(in).retire_multicast(vl);
}

void MulticastReplicator::withdraw(PortNum in, std::uint8_t vl, const MulticastCopies& c) {
  for (PortNum o : *c.group)
    if (copy_port(o, in)) sw_.output_unit(o).withdraw(Requester{in, vl});
}

}  // namespace ibfsim
