// What a node (switch, HCA) must provide to a LinkPort: the port tells its owner about arriving
// packets, finished transmissions, an idle transmitter and returned credits. All calls happen
// inside the owner's own module at the instant the event occurs.
#pragma once
#include "sim/core/packet.h"
#include "sim/core/time.h"

namespace ibfsim {

class LinkPort;

class PortOwner {
 public:
  virtual ~PortOwner() = default;
  // The LRH of a data packet has been received (head), its last symbol arrives at `tail`. The
  // packet already occupies the port's receive buffer; the owner frees it with LinkPort::free_rx.
  virtual void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) = 0;
  // The last symbol of a data packet this port sent has left.
  virtual void on_tx_done(LinkPort& port, Packet* p) = 0;
  // The transmitter became idle after the owner asked with LinkPort::notify_when_free.
  virtual void on_output_free(LinkPort& port) = 0;
  // A flow-control packet raised the credit limit of the transmitter.
  virtual void on_credits(LinkPort& port) = 0;
};

// Receives a copy of every packet a port starts transmitting (pcap captures).
class CaptureSink {
 public:
  virtual ~CaptureSink() = default;
  virtual void capture_data(Time start, const Packet& p, std::uint32_t link_id) = 0;
  virtual void capture_link_packet(Time start, const std::uint8_t* bytes, std::size_t len, std::uint32_t link_id) = 0;
};

}  // namespace ibfsim
