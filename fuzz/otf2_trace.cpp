// OTF2 traces (`trace.file`, otf2_trace_reader.h): an archive is several files, so an input is
// one of them replaced. Its first byte picks which file of the repository's 4-rank trace
// (scenarios/traces/ring_allreduce, copied once into a temporary folder), the rest is that file's
// new content; after the read the original content is put back. As `trace.file` does
// (trace_replay_spec.cpp), the trace read is then planned and its ideal timeline computed; every
// InputError of these the scenario reports as "expected an MPI trace that can be replayed, got
// ...", so their own messages need not say "expected".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "sim/workload/mpi_replay_plan.h"
#include "sim/workload/otf2_trace_reader.h"

namespace {

namespace fs = std::filesystem;

// make_text_seeds.sh numbers the seeds' files in this order.
const char* const kFiles[] = {"traces.otf2",  "traces.def",   "traces/0.def", "traces/0.evt",
                              "traces/1.def", "traces/1.evt", "traces/2.def", "traces/2.evt",
                              "traces/3.def", "traces/3.evt"};
constexpr std::size_t kFileCount = sizeof(kFiles) / sizeof(kFiles[0]);

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_all(const fs::path& p, const char* data, std::size_t size) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

struct Archive {
  fs::path dir;
  std::vector<std::string> original;
  Archive() {
    std::string templ = (fs::temp_directory_path() / "ibfsim-fuzz-otf2-XXXXXX").string();
    if (!mkdtemp(templ.data())) std::abort();
    dir = templ;
    fs::copy(fs::path(IBFSIM_SOURCE_DIR) / "scenarios/traces/ring_allreduce", dir, fs::copy_options::recursive);
    for (const char* f : kFiles) original.push_back(read_all(dir / f));
  }
  ~Archive() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Archive archive;
  if (size == 0) return 0;
  const std::size_t which = data[0] % kFileCount;
  const fs::path file = archive.dir / kFiles[which];
  write_all(file, reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string anchor = (archive.dir / "traces.otf2").string();
  ibfsim::fuzz::expect_input_errors_only(
      [&] {
        const ibfsim::MpiTrace trace = ibfsim::read_otf2_trace(anchor);
        const ibfsim::ReplayPlan plan = ibfsim::plan_replay(trace);
        (void)ibfsim::replay_timeline(plan, 0, anchor);
      },
      false);
  write_all(file, archive.original[which].data(), archive.original[which].size());
  return 0;
}
