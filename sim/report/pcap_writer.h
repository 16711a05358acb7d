// Packet capture of simulated traffic: a pcap file with nanosecond timestamps, plus a sidecar CSV
// naming the link each frame crossed (a pcap record has no field for that). InfiniBand captures are
// of link type DLT_ERF (197), each record an ERF header (erf_record.h) followed by the frame's
// bytes; Ethernet captures (RoCE v2) of LINKTYPE_ETHERNET (1), each record a frame from its
// destination MAC through its FCS (tshark: `-o eth.fcs:TRUE` says the FCS is there; its heuristic
// usually guesses it).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/time.h"
#include "sim/report/atomic_file.h"

struct pcap;         // libpcap's pcap_t
struct pcap_dumper;  // libpcap's pcap_dumper_t

namespace ibfsim {

// What a capture's records hold.
enum class PcapLinkType : std::uint8_t {
  kErf,       // ERF records of InfiniBand frames and link packets (add)
  kEthernet,  // Ethernet frames, destination MAC .. FCS (add_ethernet)
};

// Writes a capture in time order although records may arrive slightly out of order: a module adds
// a record when it decides a future transmission, so add() keeps records pending in a min-heap by
// (time, insertion order) and flush_until(now) writes those at or before `now`. The caller promises
// that after flush_until(now) no record earlier than `now` is added. Memory stays bounded by the
// records between the watermark and the furthest-ahead decision.
//
// Both files are written under temporary names (atomic_file.h) and renamed by close(); a writer
// destroyed without close() (an interrupted or failed run) removes its temporaries instead.
//
// The sidecar CSV has the header `frame,time_ns,link_id,link` and one row per frame: `frame` is
// 1-based in file order (Wireshark's frame.number), `time_ns` the exact simulated time in ns
// (a decimal fraction when it is not a whole ns), `link` the name given by set_link_name when the
// row is written (empty if none).
//
// A snap length (`snaplen` > 0) keeps only the first `snaplen` bytes of each frame, as tcpdump's
// -s does: the record keeps the frame's length on the wire (pcap's len; for ERF also the header's
// wlen, its rlen covering what was kept), so readers mark it truncated. 0 keeps whole frames.
class PcapWriter {
 public:
  // Captures to `path`; the sidecar CSV goes to default_links_csv_path(path).
  explicit PcapWriter(std::string path, PcapLinkType type = PcapLinkType::kErf, std::uint32_t snaplen = 0);
  PcapWriter(std::string path, std::string links_csv_path, PcapLinkType type = PcapLinkType::kErf,
             std::uint32_t snaplen = 0);
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  ~PcapWriter();

  // `path` with a trailing ".pcap" replaced by "_links.csv" (or "_links.csv" appended).
  static std::string default_links_csv_path(const std::string& pcap_path);

  // Names a link in the CSV's `link` column. Set names before frames on that link are flushed.
  void set_link_name(std::uint32_t link_id, std::string name);

  // Queues one frame (LRH .. VCRC, or a link packet) seen at `at_fs` on link `link_id`, recorded
  // with ERF type `erf_type` (kErfTypeInfiniband or kErfTypeInfinibandLink). Copies the bytes.
  // Throws std::logic_error if at_fs is earlier than the last flush_until watermark or the writer
  // is closed or not an ERF capture, std::invalid_argument if the frame is too long for an ERF
  // record.
  void add(Time at_fs, std::uint8_t erf_type, const std::uint8_t* frame, std::size_t len,
           std::uint32_t link_id);
  // Queues one Ethernet frame (destination MAC .. FCS) of an Ethernet capture; throws as add()
  // does (std::logic_error also if the capture is not Ethernet).
  void add_ethernet(Time at_fs, const std::uint8_t* frame, std::size_t len, std::uint32_t link_id);

  // Writes every pending record with time <= t, in (time, insertion order). A smaller t than an
  // earlier call is a no-op.
  void flush_until(Time t);

  // Writes all pending records, closes both files and renames them to their final names.
  // Throws std::runtime_error on a write error; the temporaries are then removed and the writer
  // stays closed. Idempotent.
  void close();

  const std::string& path() const { return pcap_guard_.path(); }
  const std::string& links_csv_path() const { return csv_guard_.path(); }
  std::uint64_t frames_written() const { return frames_written_; }
  std::size_t pending() const { return heap_.size(); }

 private:
  struct Record {
    Time at = 0;
    std::uint64_t seq = 0;  // insertion order, breaks time ties deterministically
    std::uint32_t link_id = 0;
    std::uint32_t wire_len = 0;       // pcap's len: the record as long as the whole frame
    std::vector<std::uint8_t> bytes;  // ERF header + frame (up to the snap length), ready for pcap_dump
  };
  struct Later {  // std heap functions build a max-heap; invert for earliest-first
    bool operator()(const Record& a, const Record& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  struct PcapCloser { void operator()(pcap* p) const; };
  struct DumperCloser { void operator()(pcap_dumper* d) const; };
  struct FileCloser { void operator()(std::FILE* f) const; };

  void queue(Time at_fs, const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* frame,
             std::size_t len, std::size_t captured_len, std::uint32_t link_id);
  std::size_t captured(std::size_t len) const { return snaplen_ == 0 ? len : std::min<std::size_t>(len, snaplen_); }
  void check_can_add(Time at_fs, PcapLinkType type) const;
  void write_record(Record& r);
  void check_streams();

  // Guards first: members die in reverse order, so the files are closed before the guards
  // remove the temporaries.
  AtomicFileGuard pcap_guard_;
  AtomicFileGuard csv_guard_;
  std::unique_ptr<pcap, PcapCloser> pcap_;
  std::unique_ptr<pcap_dumper, DumperCloser> dumper_;
  std::unique_ptr<std::FILE, FileCloser> csv_;

  std::vector<Record> heap_;
  std::vector<std::vector<std::uint8_t>> spare_buffers_;  // recycled record storage
  std::unordered_map<std::uint32_t, std::string> link_names_;
  Time watermark_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t frames_written_ = 0;
  bool closed_ = false;
  PcapLinkType type_ = PcapLinkType::kErf;
  std::uint32_t snaplen_ = 0;  // 0: whole frames
};

}  // namespace ibfsim
