#include "sim/report/pcap_writer.h"

#include "sim/core/error.h"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "sim/report/erf_record.h"
#include "sim/report/time_text.h"

namespace ibfsim {

namespace {

// Records carry at most 16 + kErfMaxFrameBytes = 65535 bytes, so nothing is ever truncated.
constexpr int kSnapLen = 65535;
// Buffers bigger than this are not kept for reuse (a rare huge frame must not pin memory).
constexpr std::size_t kMaxRecycledCapacity = 8192;
constexpr std::size_t kMaxSpareBuffers = 1024;

OutputError write_error(const std::string& path, int err) {
  return OutputError("cannot write '" + path + "': " +
                            (err ? std::generic_category().message(err) : std::string("I/O error")));
}

// Exact simulated time in ns: "100", or "100.25" when not a whole ns.
// RFC 4180 quoting, only when needed.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

void PcapWriter::PcapCloser::operator()(pcap* p) const { pcap_close(p); }
void PcapWriter::DumperCloser::operator()(pcap_dumper* d) const { pcap_dump_close(d); }
void PcapWriter::FileCloser::operator()(std::FILE* f) const { std::fclose(f); }

std::string PcapWriter::default_links_csv_path(const std::string& pcap_path) {
  constexpr std::string_view kExt = ".pcap";
  if (pcap_path.size() >= kExt.size() &&
      pcap_path.compare(pcap_path.size() - kExt.size(), kExt.size(), kExt) == 0) {
    return pcap_path.substr(0, pcap_path.size() - kExt.size()) + "_links.csv";
  }
  return pcap_path + "_links.csv";
}

PcapWriter::PcapWriter(std::string path, PcapLinkType type, std::uint32_t snaplen)
    : PcapWriter(path, default_links_csv_path(path), type, snaplen) {}

PcapWriter::PcapWriter(std::string path, std::string links_csv_path, PcapLinkType type, std::uint32_t snaplen)
    : pcap_guard_(std::move(path)), csv_guard_(std::move(links_csv_path)), type_(type), snaplen_(snaplen) {
  if (snaplen > static_cast<std::uint32_t>(kSnapLen)) {
    throw std::invalid_argument(fmt::format("PcapWriter '{}': snap length {} above {}", this->path(), snaplen, kSnapLen));
  }
  // A "dead" pcap_t only describes the capture (link type, snap length, ns precision) for the dumper.
  // An ERF record's snap length covers its header too.
  const int dlt = type == PcapLinkType::kErf ? DLT_ERF : DLT_EN10MB;
  const int file_snaplen = snaplen == 0 ? kSnapLen
                                        : static_cast<int>(snaplen) + (type == PcapLinkType::kErf ? static_cast<int>(kErfHeaderBytes) : 0);
  pcap_.reset(pcap_open_dead_with_tstamp_precision(dlt, file_snaplen, PCAP_TSTAMP_PRECISION_NANO));
  if (!pcap_) throw std::runtime_error("cannot write '" + this->path() + "': libpcap out of memory");
  dumper_.reset(pcap_dump_open(pcap_.get(), pcap_guard_.temp_path().c_str()));
  if (!dumper_) {
    throw OutputError("cannot write '" + this->path() + "': " + pcap_geterr(pcap_.get()));
  }
  csv_.reset(std::fopen(csv_guard_.temp_path().c_str(), "w"));
  if (!csv_) throw write_error(this->links_csv_path(), errno);
  std::fputs("frame,time_ns,link_id,link\n", csv_.get());
}

PcapWriter::~PcapWriter() = default;  // not closed: handles close, guards remove the temporaries

void PcapWriter::set_link_name(std::uint32_t link_id, std::string name) {
  link_names_[link_id] = std::move(name);
}

void PcapWriter::check_can_add(Time at_fs, PcapLinkType type) const {
  if (closed_) throw std::logic_error("PcapWriter::add after close() on '" + path() + "'");
  if (type != type_) {
    throw std::logic_error(fmt::format("PcapWriter '{}': {} record added to {} capture", path(),
                                       type == PcapLinkType::kErf ? "an ERF" : "an Ethernet",
                                       type_ == PcapLinkType::kErf ? "an ERF" : "an Ethernet"));
  }
  if (at_fs < watermark_) {
    // Writing it now would put the capture out of time order.
    throw std::logic_error(fmt::format(
        "PcapWriter '{}': record at {} fs added after flush_until({} fs)", path(), at_fs, watermark_));
  }
}

void PcapWriter::add(Time at_fs, std::uint8_t erf_type, const std::uint8_t* frame, std::size_t len,
                     std::uint32_t link_id) {
  check_can_add(at_fs, PcapLinkType::kErf);
  const auto header = erf_header(at_fs, erf_type, len, captured(len));  // validates len
  queue(at_fs, header.data(), header.size(), frame, len, captured(len), link_id);
}

void PcapWriter::add_ethernet(Time at_fs, const std::uint8_t* frame, std::size_t len,
                              std::uint32_t link_id) {
  check_can_add(at_fs, PcapLinkType::kEthernet);
  if (len > static_cast<std::size_t>(kSnapLen)) {
    throw std::invalid_argument(fmt::format("PcapWriter '{}': a {}-byte frame is longer than a record holds",
                                            path(), len));
  }
  queue(at_fs, nullptr, 0, frame, len, captured(len), link_id);
}

void PcapWriter::queue(Time at_fs, const std::uint8_t* prefix, std::size_t prefix_len,
                       const std::uint8_t* frame, std::size_t len, std::size_t captured_len,
                       std::uint32_t link_id) {
  Record r;
  r.at = at_fs;
  r.seq = next_seq_++;
  r.link_id = link_id;
  r.wire_len = static_cast<std::uint32_t>(prefix_len + len);
  if (!spare_buffers_.empty()) {
    r.bytes = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
  }
  r.bytes.assign(prefix, prefix + prefix_len);
  r.bytes.insert(r.bytes.end(), frame, frame + captured_len);
  heap_.push_back(std::move(r));
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void PcapWriter::flush_until(Time t) {
  if (closed_) return;
  watermark_ = std::max(watermark_, t);
  while (!heap_.empty() && heap_.front().at <= watermark_) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    write_record(heap_.back());
    heap_.pop_back();
  }
}

void PcapWriter::write_record(Record& r) {
  pcap_pkthdr h{};
  h.ts.tv_sec = static_cast<time_t>(r.at / kSec);
  h.ts.tv_usec = static_cast<suseconds_t>((r.at % kSec) / kNs);  // ns: the dumper is nano precision
  h.caplen = static_cast<bpf_u_int32>(r.bytes.size());
  h.len = r.wire_len;
  pcap_dump(reinterpret_cast<u_char*>(dumper_.get()), &h, r.bytes.data());
  ++frames_written_;

  const auto name = link_names_.find(r.link_id);
  fmt::print(csv_.get(), "{},{},{},{}\n", frames_written_, ns_text(r.at), r.link_id,
             name == link_names_.end() ? std::string() : csv_field(name->second));

  if (r.bytes.capacity() <= kMaxRecycledCapacity && spare_buffers_.size() < kMaxSpareBuffers) {
    spare_buffers_.push_back(std::move(r.bytes));
  }
}

void PcapWriter::check_streams() {
  // pcap_dump reports nothing; its FILE's error flag does.
  if (pcap_dump_flush(dumper_.get()) != 0 || std::ferror(pcap_dump_file(dumper_.get()))) {
    throw write_error(path(), errno);
  }
  if (std::fflush(csv_.get()) != 0 || std::ferror(csv_.get())) throw write_error(links_csv_path(), errno);
}

void PcapWriter::close() {
  if (closed_) return;
  flush_until(kTimeNever);
  closed_ = true;
  try {
    check_streams();
    dumper_.reset();
    pcap_.reset();
    // fclose can report a deferred write error; the CSV is then incomplete.
    if (std::fclose(csv_.release()) != 0) throw write_error(links_csv_path(), errno);
    pcap_guard_.commit();
    csv_guard_.commit();
  } catch (...) {
    // Leave no half-written capture behind, and no handle for a second close() to trip on.
    dumper_.reset();
    pcap_.reset();
    csv_.reset();
    pcap_guard_.discard();
    csv_guard_.discard();
    throw;
  }
}

}  // namespace ibfsim
