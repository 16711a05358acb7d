// What a node (switch, HCA) must provide to a LinkPort: the port tells its owner about arriving
// packets, finished transmissions, an idle transmitter, returned credits and packets the link
// layer itself discards. All calls happen at the instant the event occurs.
#pragma once
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/time.h"

namespace ibfsim {

class LinkPort;

class PortOwner {
 public:
  virtual ~PortOwner() = default;
  // The LRH of a data or management packet has been received (head), its last symbol arrives at
  // `tail`. The packet already occupies the receive buffer of its VL; the owner frees it with
  // LinkPort::free_rx.
  virtual void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) = 0;
  // The last symbol of a packet this port sent has left.
  virtual void on_tx_done(LinkPort& port, Packet* p) = 0;
  // The transmitter became idle after the owner asked with LinkPort::notify_when_free.
  virtual void on_output_free(LinkPort& port) = 0;
  // A flow-control packet raised the credit limit of one of the transmitter's VLs.
  virtual void on_credits(LinkPort& port) = 0;
  // The link layer discarded a packet that never reached the owner (no VL15 space, a VL the port
  // does not operate, the port's state): the owner counts it and recycles the packet.
  virtual void on_link_discard(LinkPort& port, Packet* p, DropReason reason) = 0;
  // The physical link came up (the port is now in its first logical state, Init or Active) or
  // went down. A switch's SMA raises trap 128 for it; most owners need nothing.
  virtual void on_port_state_change(LinkPort& /*port*/) {}
};

// Receives a copy of every packet a port starts transmitting (pcap captures).
class CaptureSink {
 public:
  virtual ~CaptureSink() = default;
  virtual void capture_data(Time start, const Packet& p, std::uint32_t link_id) = 0;
  virtual void capture_link_packet(Time start, const std::uint8_t* bytes, std::size_t len, std::uint32_t link_id) = 0;
  // Whether link packets are captured: periodic flow-control refreshes are then sent as real
  // events instead of being accounted for lazily.
  virtual bool wants_link_packets() const = 0;
};

}  // namespace ibfsim
