#include "sim/link/link_port.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/link/flow_control_packet.h"
#include "sim/phy/serialization.h"

namespace ibfsim {

namespace {
std::uint64_t pack6(const std::array<std::uint8_t, 6>& b) {
  std::uint64_t v = 0;
  for (std::uint8_t x : b) v = (v << 8) | x;
  return v;
}
std::array<std::uint8_t, 6> unpack6(std::uint64_t v) {
  std::array<std::uint8_t, 6> b{};
  for (int i = 5; i >= 0; --i, v >>= 8) b[i] = static_cast<std::uint8_t>(v);
  return b;
}
constexpr std::size_t kLrhBytes = 8;
constexpr std::size_t kLinkPacketBytes = 6;
}  // namespace

LinkPort::LinkPort(ScheduledModule& module, PortOwner& owner, PortNum number, std::uint32_t rx_capacity_blocks,
                   std::string name)
    : module_(module), owner_(owner), number_(number), name_(std::move(name)), rx_(rx_capacity_blocks) {}

void LinkPort::connect(LinkPort& peer, const LinkRate& rate, std::uint64_t prop_cycles, std::uint32_t link_id) {
  IBFSIM_CHECK(peer_ == nullptr, "port connected twice: " + name_);
  peer_ = &peer;
  rate_ = rate;
  clock_ = rate.clock();
  prop_cycles_ = prop_cycles;
  head_cycles_ = symbols_until_bytes(rate, kLrhBytes);
  fc_cycles_ = symbols_for_packet(rate, kLinkPacketBytes);
  link_id_ = link_id;
}

std::uint64_t LinkPort::symbols_for(std::uint64_t bytes) const { return symbols_for_packet(rate_, bytes); }

void LinkPort::start_link() {
  if (peer_) send_flow_control(1);
}

Time LinkPort::transmit(Packet* p) {
  IBFSIM_CHECK(can_start_data(), "transmit on a busy port: " + name_);
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint32_t blocks = credits_for_bytes(bytes);
  tx_credits_.consume(blocks);
  const std::uint64_t c = clock_.cycle_at_or_after(module_.now());
  const std::uint64_t s = symbols_for_packet(rate_, bytes);
  busy_until_ = c + s;
  const Time start = clock_.time_of(c);
  const Time end = clock_.time_of(c + s);
  if (capture_) capture_->capture_data(start, *p, link_id_);
  peer_->module_.schedule(clock_.time_of(c + prop_cycles_ + head_cycles_), peer_, kRxHead,
                          clock_.time_of(c + prop_cycles_ + s), p);
  module_.schedule(end, this, kTxDone, 0, p);
  end_event_pending_ = true;
  data_in_flight_ = true;
  ++stats_.tx_packets;
  stats_.tx_bytes += bytes;
  stats_.tx_busy += end - start;
  return start;
}

void LinkPort::send_flow_control(std::uint8_t op) {
  const std::uint64_t c = std::max(busy_until_, clock_.cycle_at_or_after(module_.now()));
  FlowControlPacket fc{op, tx_credits_.fctbs(), 0, rx_.fccl()};
  const auto bytes = encode_flow_control(fc);
  busy_until_ = c + fc_cycles_;
  const Time start = clock_.time_of(c);
  if (capture_) capture_->capture_link_packet(start, bytes.data(), bytes.size(), link_id_);
  peer_->module_.schedule(clock_.time_of(c + prop_cycles_ + fc_cycles_), peer_, kRxFlowControl, pack6(bytes));
  ++stats_.tx_flow_control;
  stats_.tx_busy += clock_.time_of(c + fc_cycles_) - start;
  if (waiter_ || fc_pending_) ensure_end_event();
}

void LinkPort::ensure_end_event() {
  if (end_event_pending_) return;
  module_.schedule(clock_.time_of(busy_until_), this, kIdle);
  end_event_pending_ = true;
}

void LinkPort::notify_when_free() {
  waiter_ = true;
  if (!idle_now() || fc_pending_) ensure_end_event();
}

void LinkPort::request_flow_control() {
  if (!peer_) return;
  if (idle_now() && !fc_pending_) {
    send_flow_control(0);
  } else {
    fc_pending_ = true;
    ensure_end_event();
  }
}

void LinkPort::free_rx(std::uint32_t blocks) {
  rx_.release(blocks);
  request_flow_control();
}

void LinkPort::link_became_idle() {
  // Flow-control packets go between data packets, ahead of the next one.
  if (fc_pending_) {
    fc_pending_ = false;
    send_flow_control(0);
  }
  if (waiter_) {
    if (idle_now()) {
      waiter_ = false;
      owner_.on_output_free(*this);
    } else {
      ensure_end_event();
    }
  }
}

void LinkPort::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  switch (kind) {
    case kRxHead: {
      auto* p = static_cast<Packet*>(ptr);
      const std::uint64_t bytes = p->wire_bytes();
      rx_.receive(credits_for_bytes(bytes));
      ++stats_.rx_packets;
      stats_.rx_bytes += bytes;
      owner_.on_packet_head(*this, p, module_.now(), static_cast<Time>(arg));
      break;
    }
    case kRxFlowControl: {
      const auto bytes = unpack6(arg);
      auto fc = decode_flow_control(bytes.data());
      if (!fc) {
        ++stats_.rx_flow_control_errors;
        break;
      }
      ++stats_.rx_flow_control;
      tx_credits_.set_limit(fc->fccl);
      if (!rx_.resync(fc->fctbs)) ++stats_.abr_resyncs;
      owner_.on_credits(*this);
      break;
    }
    case kTxDone: {
      end_event_pending_ = false;
      data_in_flight_ = false;
      // The pending flow-control packet is slotted first; then the owner learns the packet is out.
      if (fc_pending_) {
        fc_pending_ = false;
        send_flow_control(0);
      }
      owner_.on_tx_done(*this, static_cast<Packet*>(ptr));
      link_became_idle();
      break;
    }
    case kIdle:
      end_event_pending_ = false;
      link_became_idle();
      break;
    default:
      IBFSIM_CHECK(false, "unknown link port action");
  }
}

}  // namespace ibfsim
