// The Communication Manager of an HCA port (IBA Vol1 ch. 12): runs one CmConnection per
// connection (cm_connection.h) and puts what they say on the wire and the calendar. CM MADs are
// GMPs to QP1 of the peer's LID; every CM MAD the agent receives occupies it for `processing`, one
// at a time in arrival order, and so does building the REQ of a connect; what a MAD makes it send
// leaves at the end of that time. Timers are events on the node's calendar; one that runs out
// while the answer it waits for is already in the queue is let go (the answer came in time). The consumer (a
// verbs flow, a test) hears of QP transitions and of the connection's outcome through a callback.
// The agent is the node's GSI client (sma_shell.h): it also carries an SA client (sa_client.h) and
// hands it the SA answers.
// A passive side under load: a REQ that would wait in the queue longer than the response time
// its sender allowed (the REQ's RemoteCMResponseTimeout) is answered at once, as it is queued, by
// an MRA whose ServiceTimeout covers the wait (the sender then waits that long plus twice the
// packet lifetime instead of resending); a REQ that finds `max_connections` connections accepted
// already is answered REJ, reason No QP available (1), when it is taken up.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "sim/subnet_manager/cm/cm_connection.h"
#include "sim/subnet_manager/sa/sa_client.h"

namespace ibfsim {

struct CmAgentConfig {
  Time processing = 1 * kUs;  // per CM MAD received, and per REQ built
  std::uint8_t sl = 0;        // the SL of the CM MADs
  unsigned max_connections = 0;  // passive connections accepted at once (REP sent or established); 0: no limit
  bool mra = true;               // send an MRA when the queue would outlast the REQ's sender's patience
  SaClientConfig sa;
};

// The agent's counts. Messages are indexed by attribute - 0x10 (REQ, MRA, REJ, REP, RTU, DREQ,
// DREP); every MAD put on the wire counts, resends included.
struct CmAgentStats {
  static constexpr std::size_t kTypes = 7;
  std::array<std::uint64_t, kTypes> sent{}, received{};
  std::uint64_t retries = 0;   // messages sent again after a timeout
  std::uint64_t timeouts = 0;  // connections given up on after MaxCMRetries (a REJ with reason Timeout)
  std::map<std::uint16_t, std::uint64_t> rej_sent, rej_received;  // by reason
  std::uint64_t established_active = 0, established_passive = 0;
  std::size_t max_queue = 0;  // most work items (MADs, REQs to build) waiting or in hand at once
};
// The message's name (REQ, MRA, ...) for index attribute - 0x10.
const char* cm_message_name(std::size_t index);

class CmAgent : public GsiClient {
 public:
  static const char* name() { return "cm agent"; }  // in event traces
  // What the consumer hears: an event (or kNone) and the QP transitions to make, in order.
  using Listener = std::function<void(CmEvent event, const std::vector<CmQpTransition>& qp)>;

  CmAgent(SmaShell& sma, PortNum port, CmAgentConfig config = {});

  SaClient& sa() { return sa_; }
  const SaClient& sa() const { return sa_; }
  Guid port_guid() const { return sma_.state().ports.at(port_).guid; }
  // Active side: a REQ to the port with LID `remote_lid`, built `processing` from now. `packet_life`
  // is the path's PacketLifeTime (PathRecord) as a time. Returns the local communication ID.
  std::uint32_t connect(Lid remote_lid, CmLocal local, CmReq req, Time packet_life, Listener listener);
  // Passive side: REQs for `service_id` are accepted with `local` (its comm_id is replaced).
  void listen(std::uint64_t service_id, CmLocal local, Time packet_life, Listener listener);
  // Passive side, a QP per connection (as IPoIB connected mode has): each REQ for `service_id` is
  // handed to `accept`, which makes the QP and says what this end offers and who hears of it.
  struct Accepted {
    CmLocal local;
    Listener listener;
  };
  using Acceptor = std::function<Accepted(const CmReq& req, Lid slid)>;
  void listen(std::uint64_t service_id, Acceptor accept, Time packet_life);
  void disconnect(std::uint32_t comm_id);
  const CmConnection* connection(std::uint32_t comm_id) const;

  void on_gsi_answer(const ReceivedGmp& gmp, PortNum port) override;
  // --- events (event.h) ---
  void work_done();  // the MAD (or REQ) at the head of the queue has been processed
  void timer_due(std::uint32_t comm_id, std::uint64_t generation);

  std::uint64_t mads_sent() const { return sent_; }
  std::uint64_t mads_received() const { return received_; }
  const CmAgentStats& stats() const { return stats_; }
  const CmAgentConfig& config() const { return config_; }

 private:
  struct Conn {
    CmConnection cm;
    Lid remote_lid = 0;
    Listener listener;
    std::uint64_t timer_generation = 0;
    bool passive = false;
  };
  struct Listening {
    CmLocal local;
    Time packet_life = 0;
    Listener listener;
    Acceptor accept;  // when set, local and listener come from it per REQ
  };
  struct Work {
    Mad mad{};
    Lid slid = 0;
    std::uint32_t connect_id = 0;  // nonzero: build this connection's REQ
    CmReq req;
  };
  void enqueue(Work w);
  void apply(std::uint32_t comm_id, const CmOutput& out);
  void handle(const Work& w);
  void send(const Mad& mad, Lid dlid);
  // A REQ just queued to be taken up at `done`: an MRA now if its sender would time out first.
  void maybe_mra(const Mad& req_mad, Lid slid, Time done);
  unsigned passive_connections() const;

  SmaShell& sma_;
  PortNum port_;
  CmAgentConfig config_;
  SaClient sa_;
  std::map<std::uint32_t, Conn> conns_;
  std::map<std::uint64_t, Listening> listening_;
  std::deque<Work> queue_;
  bool busy_ = false;
  Time free_at_ = 0;  // when the queue's last item will have been processed
  CmAgentStats stats_;
  std::uint32_t next_comm_id_;
  std::uint64_t sent_ = 0, received_ = 0;
};

}  // namespace ibfsim
