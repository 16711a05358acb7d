// A switch on a bench, without a fabric: each of its ports may be cabled to a port of a Peer that
// records the packets arriving and frees their buffer at their tail. Tests play the wire into the
// switch (LinkPort::head_arrives at the head time they choose) and drive its blocks directly.
// One simulation per test process (SystemC's rule): the bench lives until the process ends.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/core/calendar_process.h"
#include "sim/link/link.h"
#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim::test {

// The far end of the switch's cables.
class Peer : public ScheduledModule, public PortOwner {
 public:
  struct Arrival {
    Time head;
    PortNum port;
    std::uint64_t id;  // Packet::id
    std::uint8_t vl;
  };

  Peer(const sc_core::sc_module_name& name, unsigned num_ports, PortBuffers buffers, PacketPool& pool)
      : ScheduledModule(name), pool_(pool) {
    for (unsigned i = 1; i <= num_ports; ++i)
      ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), buffers,
                                                  std::string(this->name()) + "/" + std::to_string(i)));
  }
  LinkPort& port(PortNum n) { return *ports_.at(n - 1); }
  // Packets arrived on `port`, in order.
  std::vector<Arrival> arrivals_on(PortNum port) const {
    std::vector<Arrival> out;
    for (const Arrival& a : arrivals)
      if (a.port == port) out.push_back(a);
    return out;
  }

  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override {
    arrivals.push_back({head, port.number(), p->id, lrh_vl(p->header.data())});
    schedule<&Peer::tail_in>(tail, this, p, port.number());
  }
  void on_tx_done(LinkPort&, Packet*) override {}
  void on_output_free(LinkPort&) override {}
  void on_credits(LinkPort&) override {}
  void on_link_discard(LinkPort&, Packet* p, DropReason) override { pool_.release(p); }
  // The tail of `p` is in on `port`: its buffer is free again.
  void tail_in(Packet* p, PortNum port) {
    ports_.at(port - 1)->free_rx(lrh_vl(p->header.data()), credits_for_bytes(p->wire_bytes()));
    pool_.release(p);
  }

  std::vector<Arrival> arrivals;

 private:
  PacketPool& pool_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
};

// Records when each packet started on the switch's ports (CaptureSink on them).
struct StartLog : CaptureSink {
  struct Start {
    Time at;
    std::uint64_t id;
  };
  std::vector<Start> starts;
  void capture_data(Time start, const Packet& p, std::uint32_t) override { starts.push_back({start, p.id}); }
  void capture_link_packet(Time, const std::uint8_t*, std::size_t, std::uint32_t) override {}
  bool wants_link_packets() const override { return false; }
};

// EDR 4x: an edge every 2.56 ns, 32 bytes per edge.
constexpr Time kEdrEdge = 2'560'000;

struct SwitchBench {
  // A switch of `config` (LID i routed to port i when config.lft is empty), whose peer ports have
  // `peer_buffers`.
  SwitchBench(SwitchConfig config, PortBuffers peer_buffers) {
    init_time_resolution();
    if (config.lft.top() == 0) {
      std::vector<PortNum> lft(config.num_ports + 1, kNoRoute);
      for (unsigned i = 1; i <= config.num_ports; ++i) lft[i] = static_cast<PortNum>(i);
      config.lft = Lft(lft);
    }
    sw = new Switch("sw", config, pool, ledger);
    peer = new Peer("peer", config.num_ports, peer_buffers, pool);
  }
  // Cables switch port p to peer port p (EDR 4x, 4 edges of propagation each way); `up`: both
  // ends come up Active now, else only the switch's end (it then never gets credits).
  void cable(PortNum p, bool up = true) {
    links.push_back(std::make_unique<Link>(sw->port(p), *sw, peer->port(p), *peer, LinkRate{}, 4, p, 100 + p));
    sw->port(p).link_up(PortState::kActive);
    if (up) peer->port(p).link_up(PortState::kActive);
  }
  // A raw packet (LRH only, no ICRC) of `payload` bytes from LID 1 to `dlid` on `vl` and `sl`.
  Packet* packet(std::uint64_t id, Lid dlid, std::uint32_t payload, std::uint8_t vl = 0, std::uint8_t sl = 0) {
    Packet* p = pool.acquire();
    p->id = id;
    p->header_len = kLrhBytes;
    p->has_icrc = false;
    p->payload_len = payload;
    encode_lrh({vl, 0, sl, kLnhRaw, dlid, static_cast<std::uint16_t>(p->pkt_len_words()), 1}, p->header.data());
    return p;
  }
  // The wire of switch port `in` delivers `p`'s LRH at `head` and its tail at `tail`.
  void arrive(PortNum in, Packet* p, Time head, Time tail) {
    sw->schedule<&LinkPort::head_arrives>(head, &sw->port(in), p, tail);
  }

  PacketPool pool;
  PacketLedger ledger;
  Switch* sw = nullptr;  // SystemC modules live until the process ends
  Peer* peer = nullptr;
  std::vector<std::unique_ptr<Link>> links;
};

// Runs `f` at `at`; scheduled before the run, it goes before the events the run schedules for that
// instant. The probe frees itself when it has run (the test must run the calendar past `at`).
template <class F>
struct Probe {
  F f;
  void fire() {
    f();
    delete this;
  }
};
template <class F>
void probe_at(ScheduledModule& m, Time at, F f) {
  m.schedule<&Probe<F>::fire>(at, new Probe<F>{std::move(f)});
}

}  // namespace ibfsim::test
