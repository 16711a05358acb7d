#include "sim/workload/ipoib_interface.h"

#include <algorithm>

#include "sim/link/lrh.h"
#include "sim/subnet_manager/sa/mc_member_record.h"

namespace ibfsim {

namespace {
constexpr Qpn kMulticastQp = 0xFFFFFF;
}  // namespace

IpoibInterface::IpoibInterface(Hca& hca, SmaShell& sma, Guid port_guid, IpoibConfig config, CmAgent* cm)
    : hca_(hca), config_(config) {
  IBFSIM_CHECK(!connected() || cm != nullptr, "ib0: connected mode without a CM agent");
  if (cm) {
    sa_ = &cm->sa();
  } else {
    own_sa_ = std::make_unique<SaClient>(sma, 1);
    sa_ = own_sa_.get();
  }
  qpn_ = hca_.create_ud_qp(q_key_);
  hca_.qp(qpn_)->set_payload_pattern(false);  // it receives IP packets, not the generator's pattern
  hw_.qpn = qpn_;
  const Gid gid = gid_of(hca_.subnet_prefix(1), port_guid);
  std::copy(gid.begin(), gid.end(), hw_.gid.begin());
  if (connected()) {
    hw_.flags = kIpoibHwConnected;
    IpoibCmConfig c;
    c.mtu = config_.connected_mtu;
    c.ib_mtu = config_.ib_mtu;
    c.sl = config_.sl;
    c.p_key = config_.p_key;
    c.packet_life_time = config_.packet_life_time;
    cm_ = std::make_unique<IpoibConnectedMode>(hca_, *cm, qpn_, hw_.gid, c,
                                               [this](const std::uint8_t* b, std::uint32_t n) { connected_received(b, n); });
  }
}

IpoibInterface::~IpoibInterface() = default;

bool IpoibInterface::over_connection(const Neighbour& to) {
  if (!over_connection_to(to)) return false;
  cm_->send(to.hw, to.lid, buf_.data(), static_cast<std::uint32_t>(buf_.size()));
  return true;
}

void IpoibInterface::connected_received(const std::uint8_t* b, std::uint32_t n) {
  if (n < kIpoibHeaderBytes || decode_ipoib_header(b).type != kEtherTypeIpv4) {
    ++stats_.dropped_not_ours;
    return;
  }
  if (auto s = decode_ipoib_tcp_segment(b, n); s && s->dst_ip == config_.address) {
    ++stats_.tcp_received;
    if (on_cm_tcp_) on_cm_tcp_(*s);
    return;
  }
  if (auto d = decode_ipoib_udp(b, n); d && d->dst_ip == config_.address) {
    ++stats_.udp_received;
    if (on_cm_udp_) on_cm_udp_(*d);
    return;
  }
  ++stats_.dropped_not_ours;
}

void IpoibInterface::start() {
  McMemberRecord m;
  const IpoibGid mgid = ipoib_broadcast_mgid(config_.p_key);
  std::copy(mgid.begin(), mgid.end(), m.mgid.begin());
  std::copy(hw_.gid.begin(), hw_.gid.end(), m.port_gid.begin());
  m.q_key = q_key_;
  m.p_key = static_cast<std::uint16_t>(config_.p_key | 0x8000);
  m.sl = config_.sl;
  m.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  const std::uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_QKEY |
                             IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_SL | IB_MCR_COMPMASK_JOIN_STATE;
  sa_->query(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0),
             [this](const SaMad* a) { joined(a); });
  if (cm_) cm_->listen();
}

void IpoibInterface::joined(const SaMad* a) {
  IBFSIM_CHECK(a != nullptr && a->header.status == 0,
               std::string(hca_.name()) + ": ib0 could not join the IPoIB broadcast group through the SA");
  const McMemberRecord r = decode_mc_member_record(a->data.data());
  // The group exists with the Q_Key of its first member; every interface here asks for the same.
  IBFSIM_CHECK(r.q_key == q_key_, std::string(hca_.name()) + ": the IPoIB broadcast group has another Q_Key");
  mlid_ = r.mlid;
  hca_.join_multicast(mlid_, qpn_);
  stats_.joined_at = hca_.now();
  if (on_up_) on_up_();
  const std::set<Ipv4Bytes> pending = std::move(waiting_up_);
  waiting_up_.clear();
  for (const Ipv4Bytes& ip : pending) resolve(ip);
}

const IpoibInterface::Neighbour* IpoibInterface::resolve(const Ipv4Bytes& ip) {
  if (auto it = cache_.find(ip); it != cache_.end()) return &it->second;
  if (!up()) {
    waiting_up_.insert(ip);
    return nullptr;
  }
  if (!asked_.insert(ip).second) return nullptr;
  send_arp_request(ip);
  return nullptr;
}

void IpoibInterface::send_arp_request(const Ipv4Bytes& ip) {
  IpoibArp req;
  req.operation = kArpRequest;
  req.sender_hw = hw_;
  req.sender_ip = config_.address;
  req.target_ip = ip;
  send_arp(req, mlid_, kMulticastQp);
  ++stats_.arp_requests_sent;
  const std::uint32_t key = (std::uint32_t{ip[0]} << 24) | (std::uint32_t{ip[1]} << 16) | (std::uint32_t{ip[2]} << 8) | ip[3];
  hca_.schedule<&IpoibInterface::arp_timeout>(hca_.now() + config_.arp_retry, this, key);
}

void IpoibInterface::arp_timeout(std::uint32_t key) {
  const Ipv4Bytes ip{static_cast<std::uint8_t>(key >> 24), static_cast<std::uint8_t>(key >> 16),
                     static_cast<std::uint8_t>(key >> 8), static_cast<std::uint8_t>(key)};
  if (cache_.count(ip)) return;
  ++stats_.arp_retries;
  send_arp_request(ip);
}

void IpoibInterface::send_arp(const IpoibArp& a, Lid dlid, Qpn dest_qp) {
  std::uint8_t b[kIpoibHeaderBytes + kIpoibArpBytes];
  encode_ipoib_header(IpoibHeader{kEtherTypeArp, 0}, b);
  encode_ipoib_arp(a, b + kIpoibHeaderBytes);
  hca_.post_ud_send_bytes(qpn_, dlid, dest_qp, q_key_, b, sizeof b, false, config_.sl);
}

std::uint64_t IpoibInterface::send_udp(const Neighbour& to, const IpoibUdpDatagram& d, bool measured,
                                       std::uint16_t flow, Time created) {
  const std::uint32_t len = ipoib_udp_payload_bytes(d.data_bytes);
  if (len - kIpoibHeaderBytes > path_mtu(to)) {
    ++stats_.udp_too_long;
    return 0;
  }
  buf_.assign(len, 0);
  IpoibUdpDatagram x = d;
  x.src_ip = config_.address;
  x.identification = next_id_++;
  encode_ipoib_udp_headers(x, buf_.data());
  ++stats_.udp_sent;
  if (over_connection(to)) return 0;
  return hca_.post_ud_send_bytes(qpn_, to.lid, to.hw.qpn, q_key_, buf_.data(), len, measured, config_.sl, flow,
                                 created);
}

std::uint64_t IpoibInterface::send_tcp(const Neighbour& to, const IpoibTcpSegment& s, bool measured,
                                       std::uint16_t flow, Time created) {
  IpoibTcpSegment x = s;
  x.src_ip = config_.address;
  x.identification = next_id_++;
  buf_ = encode_ipoib_tcp_segment(x);
  // TCP's MSS option keeps segments within both ends' MTU.
  IBFSIM_CHECK(buf_.size() - kIpoibHeaderBytes <= path_mtu(to), "ib0: a TCP segment larger than its path's MTU");
  ++stats_.tcp_sent;
  if (over_connection(to)) return 0;
  return hca_.post_ud_send_bytes(qpn_, to.lid, to.hw.qpn, q_key_, buf_.data(), static_cast<std::uint32_t>(buf_.size()),
                                 measured, config_.sl, flow, created);
}

std::optional<IpoibTcpSegment> IpoibInterface::on_delivered_tcp(const Packet& p) {
  auto s = decode_ipoib_tcp_segment(p.payload.data(), p.payload.size());
  if (!s || s->dst_ip != config_.address) return std::nullopt;
  ++stats_.tcp_received;
  return s;
}

void IpoibInterface::learn(const IpoibArp& a, Lid lid) {
  const bool fresh = cache_.find(a.sender_ip) == cache_.end();
  cache_[a.sender_ip] = Neighbour{a.sender_hw, lid};
  if (fresh && on_resolved_) on_resolved_(a.sender_ip);
}

std::optional<IpoibUdpDatagram> IpoibInterface::on_delivered(const Packet& p) {
  if (p.payload.size() < kIpoibHeaderBytes) {
    ++stats_.dropped_not_ours;
    return std::nullopt;
  }
  const IpoibHeader h = decode_ipoib_header(p.payload.data());
  if (h.type == kEtherTypeIpv4) {
    auto d = decode_ipoib_udp(p.payload.data(), p.payload.size());
    if (d && d->dst_ip == config_.address) {
      ++stats_.udp_received;
      return d;
    }
    ++stats_.dropped_not_ours;
    return std::nullopt;
  }
  const auto arp = h.type == kEtherTypeArp && p.payload.size() >= kIpoibHeaderBytes + kIpoibArpBytes
                       ? decode_ipoib_arp(p.payload.data() + kIpoibHeaderBytes)
                       : std::nullopt;
  if (!arp || arp->target_ip != config_.address) {
    ++stats_.dropped_not_ours;
    return std::nullopt;
  }
  const Lid from = decode_lrh(p.header.data()).slid;
  if (arp->operation == kArpRequest) {
    ++stats_.arp_requests_received;
    IpoibArp reply;
    reply.operation = kArpReply;
    reply.sender_hw = hw_;
    reply.sender_ip = config_.address;
    reply.target_hw = arp->sender_hw;
    reply.target_ip = arp->sender_ip;
    send_arp(reply, from, arp->sender_hw.qpn);
    ++stats_.arp_replies_sent;
  } else {
    ++stats_.arp_replies_received;
  }
  learn(*arp, from);
  return std::nullopt;
}

}  // namespace ibfsim
