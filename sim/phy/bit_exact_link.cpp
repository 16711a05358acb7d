#include "sim/phy/bit_exact_link.h"

#include <algorithm>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "sim/phy/bit_error_injector.h"
#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"
#include "sim/phy/lane_deskew.h"
#include "sim/phy/lane_striping.h"
#include "sim/phy/link_training.h"
#include "sim/phy/scrambler_64b66b.h"

namespace ibfsim {

namespace {

// What the generic pipeline needs to know about a line code.
struct Codec8b10b {
  using TxUnit = Symbol8b10b;
  using LineUnit = CodeGroup10;
  using RxUnit = Decoded8b10b;
  using LaneTx = Encoder8b10b;
  using LaneRx = Decoder8b10b;
  using Deframer = Deframer8b10b;

  static LineUnit encode(LaneTx& tx, const TxUnit& u) { return tx.encode(u); }
  static RxUnit decode(LaneRx& rx, LineUnit g) { return rx.decode(g); }
  static TxUnit idle() { return sym8b10b::kIdle; }
  static void training_set(LaneStreams<TxUnit>& lanes) {
    for (unsigned i = 0; i < lanes.size(); ++i) {
      const TrainingSet8b10b ts = make_training_set_8b10b(TrainingSetKind::kTs2, i);
      lanes[i].insert(lanes[i].end(), ts.begin(), ts.end());
    }
  }
  struct IsMarker {
    bool operator()(const RxUnit& u) const { return u.valid() && u.symbol == sym8b10b::kCom; }
  };
  static void add_decoder_counts(const std::vector<LaneRx>& rx, PhyRxCounters& c) {
    for (const auto& d : rx) {
      c.code_violations += d.code_violations();
      c.disparity_errors += d.disparity_errors();
    }
  }
};

struct Codec64b66b {
  using TxUnit = Block66;
  using LineUnit = Block66;
  using RxUnit = Block66;
  using LaneTx = Scrambler64b66b;
  using LaneRx = Descrambler64b66b;
  using Deframer = Deframer64b66b;

  static LineUnit encode(LaneTx& tx, const TxUnit& b) { return Block66{b.sync, tx.scramble(b.payload)}; }
  static RxUnit decode(LaneRx& rx, const LineUnit& b) { return Block66{b.sync, rx.descramble(b.payload)}; }
  static TxUnit idle() { return make_idle_block(); }
  static void training_set(LaneStreams<TxUnit>& lanes) {
    for (unsigned i = 0; i < lanes.size(); ++i) lanes[i].push_back(make_training_block(TrainingSetKind::kTs2, i));
  }
  struct IsMarker {
    bool operator()(const RxUnit& b) const { return is_alignment_block(b); }
  };
  // Sync header and block type errors are counted by the deframer.
  static void add_decoder_counts(const std::vector<LaneRx>&, PhyRxCounters&) {}
};

constexpr std::uint64_t kLaneStreamStride = std::uint64_t{1} << 48;
// Idle is pushed through the pipeline in chunks of at most this many edges, to bound memory.
constexpr std::uint64_t kIdleChunkEdges = 4096;

}  // namespace

struct BitExactLink::Impl {
  explicit Impl(const BitExactLinkConfig& c) : config(c) {}
  virtual ~Impl() = default;

  virtual std::uint64_t send(const std::uint8_t* bytes, std::size_t size, FrameKind kind, FrameEnd end,
                             std::uint64_t earliest) = 0;
  virtual void idle_until(std::uint64_t edge) = 0;
  virtual std::vector<PhyRxFrame> take_frames() = 0;
  virtual PhyRxCounters rx_counters() const = 0;
  virtual std::uint64_t bits_flipped() const = 0;

  BitExactLinkConfig config;
  std::uint64_t cursor = 0;  // next free transmit edge
  std::uint64_t max_skew = 0;
  std::uint64_t skips = 0;
};

namespace {

template <class Codec>
class LinkPipeline final : public BitExactLink::Impl {
 public:
  explicit LinkPipeline(const BitExactLinkConfig& c)
      : Impl(c),
        w_(c.rate.lanes),
        scratch_(w_),
        tx_(w_),
        rx_(w_),
        deskew_(w_, c.lanes_reversed, c.deskew_tolerance),
        deframer_(w_),
        skip_(c.skip_interval_edges) {
    IBFSIM_CHECK(w_ >= 1 && w_ <= 12, "a link has 1 to 12 lanes");
    IBFSIM_CHECK(c.skip_interval_edges == 0 || c.skip_interval_edges > skip_edges(c.rate.info().line_code),
                 "a SKIP interval must be longer than a SKIP");
    IBFSIM_CHECK(c.lane_skew.empty() || c.lane_skew.size() == w_, "one skew per lane");
    for (unsigned i = 0; i < w_; ++i)
      injectors_.emplace_back(c.bit_error_rate, RngStream(c.seed, c.stream_id + i * kLaneStreamStride));
    forced_.resize(w_);
    for (const ForcedBitError& f : c.forced_errors) {
      IBFSIM_CHECK(f.lane < w_, "a forced bit error names a lane the link does not have");
      forced_[f.lane].push_back({f.edge, f.bit});
    }
    for (auto& lane : forced_) std::sort(lane.begin(), lane.end());
    next_forced_.assign(w_, 0);
    for (unsigned s : c.lane_skew) {
      IBFSIM_CHECK(s <= c.deskew_tolerance, "lane skew beyond the receiver's deskew tolerance");
      max_skew = std::max<std::uint64_t>(max_skew, s);
    }
    // Before the link came up each receive lane p had been carrying idle for its skew (it is that
    // many units behind); then the last training set, which the receiver aligns on.
    for (unsigned p = 0; p < w_; ++p) {
      const unsigned skew = c.lane_skew.empty() ? 0 : c.lane_skew[p];
      const unsigned i = logical(p);
      for (unsigned k = 0; k < skew; ++k) deskew_.push(p, Codec::decode(rx_[p], Codec::encode(tx_[i], Codec::idle())));
    }
    Codec::training_set(scratch_);
    preroll_ = scratch_[0].size();
    flush(false);
    IBFSIM_CHECK(deskew_.aligned(), "the receiver aligns its lanes on the training set");
  }

  std::uint64_t send(const std::uint8_t* bytes, std::size_t size, FrameKind kind, FrameEnd end,
                     std::uint64_t earliest) override {
    idle_until(earliest);
    while (skip_.due(cursor)) send_skip();  // one due on the start edge, or held back by the last packet
    const std::uint64_t start = cursor;
    stripe_packet(scratch_, bytes, size, kind, end);
    flush(true);
    return start;
  }

  void idle_until(std::uint64_t edge) override {
    while (cursor < edge) {
      if (skip_.due(cursor)) {
        send_skip();
        continue;
      }
      std::uint64_t n = std::min(edge - cursor, kIdleChunkEdges);
      if (skip_.enabled()) n = std::min(n, skip_.next_due() - cursor);
      stripe_idle(scratch_, n);
      flush(true);
    }
  }

  std::vector<PhyRxFrame> take_frames() override { return std::exchange(frames_, {}); }

  PhyRxCounters rx_counters() const override {
    PhyRxCounters c = deframer_.counters();
    Codec::add_decoder_counts(rx_, c);
    c.alignment_errors = deskew_.alignment_errors();
    return c;
  }

  std::uint64_t bits_flipped() const override {
    std::uint64_t n = 0;
    for (const auto& inj : injectors_) n += inj.bits_flipped();
    return n;
  }

 private:
  unsigned logical(unsigned physical) const { return config.lanes_reversed ? w_ - 1 - physical : physical; }

  void send_skip() {
    skip_.sent();
    ++skips;
    stripe_skip(scratch_);
    flush(true);
  }

  // Pushes what the striper put in scratch_ through the line and the receiver.
  void flush(bool after_link_up) {
    const std::size_t n = scratch_[0].size();
    for (unsigned i = 0; i < w_; ++i) {
      const unsigned p = logical(i);  // reversal is its own inverse
      for (std::size_t k = 0; k < n; ++k) {
        typename Codec::LineUnit line = Codec::encode(tx_[i], scratch_[i][k]);
        if (after_link_up) {
          injectors_[i].corrupt(line);
          auto& f = forced_[i];
          for (std::size_t& j = next_forced_[i]; j < f.size() && f[j].first <= cursor + k; ++j)
            if (f[j].first == cursor + k) injectors_[i].force(line, f[j].second);
        }
        deskew_.push(p, Codec::decode(rx_[p], line));
      }
      scratch_[i].clear();
    }
    if (after_link_up) cursor += n;
    std::uint64_t arrival = 0;
    while (deskew_.pop(row_, &arrival)) {
      // Lane p's unit of transmit edge e arrives as number skew_p + preroll + e; a row is complete
      // with its latest unit.
      const std::uint64_t edge = arrival >= preroll_ ? arrival - preroll_ : 0;
      deframer_.push_row(row_, edge);
    }
    for (auto& f : deframer_.take_frames()) frames_.push_back(std::move(f));
  }

  unsigned w_;
  LaneStreams<typename Codec::TxUnit> scratch_;
  std::vector<typename Codec::LaneTx> tx_;
  std::vector<typename Codec::LaneRx> rx_;  // by physical lane
  std::vector<BitErrorInjector> injectors_;  // by transmit lane
  std::vector<std::vector<std::pair<std::uint64_t, unsigned>>> forced_;  // per transmit lane: (edge, bit), sorted
  std::vector<std::size_t> next_forced_;
  LaneDeskewer<typename Codec::RxUnit, typename Codec::IsMarker> deskew_;
  typename Codec::Deframer deframer_;
  SkipScheduler skip_;
  std::uint64_t preroll_ = 0;
  std::vector<typename Codec::RxUnit> row_;
  std::vector<PhyRxFrame> frames_;
};

}  // namespace

BitExactLink::BitExactLink(const BitExactLinkConfig& config) {
  if (config.rate.info().line_code == LineCode::k8b10b) impl_ = std::make_unique<LinkPipeline<Codec8b10b>>(config);
  else impl_ = std::make_unique<LinkPipeline<Codec64b66b>>(config);
}
BitExactLink::~BitExactLink() = default;
BitExactLink::BitExactLink(BitExactLink&&) noexcept = default;
BitExactLink& BitExactLink::operator=(BitExactLink&&) noexcept = default;

const BitExactLinkConfig& BitExactLink::config() const { return impl_->config; }
std::uint64_t BitExactLink::next_free_edge() const { return impl_->cursor; }
std::uint64_t BitExactLink::send(const std::uint8_t* bytes, std::size_t size, FrameKind kind, FrameEnd end,
                                 std::uint64_t earliest_edge) {
  return impl_->send(bytes, size, kind, end, earliest_edge);
}
void BitExactLink::idle_until(std::uint64_t edge) { impl_->idle_until(edge); }
std::vector<PhyRxFrame> BitExactLink::take_frames() { return impl_->take_frames(); }
PhyRxCounters BitExactLink::rx_counters() const { return impl_->rx_counters(); }
std::uint64_t BitExactLink::skew_latency_edges() const { return impl_->max_skew; }
std::uint64_t BitExactLink::bits_flipped() const { return impl_->bits_flipped(); }
std::uint64_t BitExactLink::skips_sent() const { return impl_->skips; }

}  // namespace ibfsim
