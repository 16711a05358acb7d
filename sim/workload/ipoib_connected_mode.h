// The connected-mode half of an `ib0` interface (RFC 4755, as Linux's ipoib_cm does it): IP
// packets to a peer that offers connected mode (its ARP hardware address says so) go over an RC
// connection the CM makes, one per (interface, peer) and direction.
//   - Sending (the active side): the first packet to a peer creates an RC QP (its send queue the
//     transmit ring) and asks the node's CM agent (subnet_manager/cm/cm_agent.h) to connect it:
//     a REQ to the peer's LID for the service ID 0x1000000000000000 | the peer's UD QPN, with 8
//     bytes of private data (this interface's UD QPN, its receive buffer size), built from what ARP
//     resolved (no PathRecord query, as in datagram mode). Packets wait in the interface until the
//     REP moves the QP to RTR and RTS; then each goes as one RC SEND of the 4-byte IPoIB header
//     and the IP datagram (up to the connected MTU), which the QP splits into IB-MTU packets. A
//     packet is copied into a transmit ring buffer in host memory; one waits for a free buffer
//     (a send completion) when all `tx_ring` are in flight.
//   - Receiving (the passive side): the interface listens on its own service ID; each REQ gets
//     a fresh RC QP with `rx_ring` receive buffers of connected MTU + 4 bytes posted (a receive
//     ring per connection; no SRQ), and the REP carries the same private data. Each receive
//     completion hands the bytes up and posts its buffer again.
// As Linux, the REQ asks for no transport or RNR retries (retry_count 0, rnr_retry_count 0: a
// lossless fabric with receives posted ahead). The QPs carry their bytes whatever the HCA's data
// checking says (QueuePair::set_carry_bytes): the receiver reads the headers the sender wrote.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/transport/hca.h"
#include "sim/transport/ipoib/ipoib_cm.h"

namespace ibfsim {

struct IpoibCmConfig {
  std::uint32_t mtu = kIpoibCmMaxMtu;  // the connected MTU: the largest IP datagram
  std::uint32_t ib_mtu = 2048;         // the RC QPs' path MTU
  std::uint8_t sl = 0;
  std::uint16_t p_key = 0xFFFF;
  std::uint8_t packet_life_time = 0;  // the path's PacketLifeTime code (4.096 us x 2^n), for the CM's timeouts
  // Linux's defaults are 128 (ipoib_sendq_size) and 256 (ipoib_recvq_size); fewer here, as the
  // simulator really allocates the host memory, and 64 SENDs of 64 KiB in flight outlast any
  // round trip of these fabrics (a receive is posted again as soon as its completion is seen).
  std::uint32_t tx_ring = 64;
  std::uint32_t rx_ring = 64;
};

struct IpoibCmStats {
  std::uint64_t connections_requested = 0;  // as the active side (REQ asked for)
  std::uint64_t connections_accepted = 0;   // as the passive side (REQ taken up)
  std::uint64_t established_active = 0, established_passive = 0;
  std::uint64_t failed = 0;                 // connections rejected or timed out (their waiting packets dropped)
  std::uint64_t packets_sent = 0, packets_received = 0;  // IP packets as RC SENDs
  std::uint64_t packets_waited = 0;          // sent before their connection was established
  std::uint64_t receive_errors = 0;          // receive completions with an error status
  Time first_requested = kTimeNever;         // the first connect
  Time last_established = kTimeNever;        // the last connection (either side) established
};

class IpoibConnectedMode {
 public:
  // An IPoIB packet (header and IP datagram) received over a connection.
  using Received = std::function<void(const std::uint8_t* bytes, std::uint32_t len)>;

  IpoibConnectedMode(Hca& hca, CmAgent& cm, Qpn ud_qpn, const IpoibGid& gid, IpoibCmConfig config, Received received);
  ~IpoibConnectedMode();
  IpoibConnectedMode(const IpoibConnectedMode&) = delete;
  IpoibConnectedMode& operator=(const IpoibConnectedMode&) = delete;

  // Listens on this interface's service ID (the interface is up).
  void listen();
  // The IPoIB packet `bytes` (<= mtu + 4) to the peer with hardware address `to` at `lid`.
  void send(const IpoibHwAddress& to, Lid lid, const std::uint8_t* bytes, std::uint32_t len);

  const IpoibCmStats& stats() const { return stats_; }
  std::uint64_t service_id() const { return ipoib_cm_service_id(ud_qpn_); }

 private:
  struct Ring {
    std::uint64_t addr = 0;
    std::uint32_t lkey = 0;
  };
  struct Tx {
    QueuePair* qp = nullptr;
    bool up = false, failed = false;
    std::deque<std::vector<std::uint8_t>> waiting;
    Ring ring;
    std::uint32_t next_slot = 0, outstanding = 0;
  };
  struct Rx {
    QueuePair* qp = nullptr;
    Ring ring;
  };
  struct Completions final : CompletionListener {
    IpoibConnectedMode* self = nullptr;
    bool recv = false;
    void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;
  };

  QueuePair* make_qp(std::uint32_t send_wr, std::uint32_t recv_wr);
  Ring make_ring(std::uint32_t slots);
  void to_init(QueuePair& q);
  void modify(QueuePair& q, const CmQpTransition& t);
  void connect(std::size_t tx, const IpoibHwAddress& to, Lid lid);
  CmAgent::Accepted accept();
  void tx_event(std::size_t tx, CmEvent e, const std::vector<CmQpTransition>& qp);
  void pump(Tx& t);
  void post_receive(std::size_t rx, std::uint32_t slot);
  void on_send_completion(const verbs::ibv_wc& wc);
  void on_recv_completion(const verbs::ibv_wc& wc);
  std::uint32_t buffer_bytes() const { return config_.mtu + static_cast<std::uint32_t>(kIpoibHeaderBytes); }
  void established();

  Hca& hca_;
  CmAgent& cm_;
  Qpn ud_qpn_;
  IpoibGid gid_;
  IpoibCmConfig config_;
  Received received_;
  verbs::PdHandle pd_ = 0;
  verbs::CqHandle send_cq_ = 0, recv_cq_ = 0;
  Completions send_listener_, recv_listener_;
  std::vector<std::unique_ptr<Tx>> tx_;
  std::vector<std::unique_ptr<Rx>> rx_;
  std::map<std::uint64_t, std::size_t> tx_by_peer_;  // (LID << 24 | UD QPN) -> tx_
  std::map<Qpn, std::size_t> tx_by_qpn_, rx_by_qpn_;
  IpoibCmStats stats_;
};

}  // namespace ibfsim
