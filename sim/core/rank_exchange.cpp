#include "sim/core/rank_exchange.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "sim/core/error.h"

#ifdef IBFSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ibfsim::ranks {

namespace {

int g_rank = 0;
int g_size = 1;
bool g_initialized = false;

// The number of ranks the launcher says it started (1 when none did): Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, PMI launchers (MPICH's, Slurm's) PMI_SIZE.
int launched_ranks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      const long n = std::strtol(v, nullptr, 10);
      if (n > 1) return static_cast<int>(n);
    }
  }
  return 1;
}

#ifdef IBFSIM_HAVE_MPI
void check(int rc, const char* what) {
  IBFSIM_CHECK(rc == MPI_SUCCESS, std::string("MPI: ") + what + " failed");
}
#endif

}  // namespace

bool supported() {
#ifdef IBFSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void init(int* argc, char*** argv) {
  const int launched = launched_ranks();
#ifdef IBFSIM_HAVE_MPI
  // Outside mpirun, no MPI at all: a plain run must not depend on a launcher being there.
  if (launched <= 1 && !std::getenv("OMPI_COMM_WORLD_SIZE")) return;
  int provided = 0;
  // Only the simulation's thread calls MPI (the partition workers never do).
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  g_initialized = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &g_size), "MPI_Comm_size");
#else
  (void)argc;
  (void)argv;
  if (launched > 1)
    throw InputError("started as one of " + std::to_string(launched) +
                     " MPI ranks, but this ibfsim was built without MPI (install libopenmpi-dev and "
                     "rebuild with -DIBFSIM_MPI=ON), or run it without mpirun");
#endif
}

void finalize() {
#ifdef IBFSIM_HAVE_MPI
  if (g_initialized) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
    g_initialized = false;
  }
#endif
}

int rank() { return g_rank; }
int size() { return g_size; }

Block partition_block(unsigned r, unsigned parts, unsigned ranks) {
  IBFSIM_CHECK(ranks >= 1 && r < ranks && parts >= ranks, "at least one partition per rank");
  const unsigned base = parts / ranks, extra = parts % ranks;
  Block b;
  b.first = r * base + std::min(r, extra);
  b.end = b.first + base + (r < extra ? 1 : 0);
  return b;
}

unsigned rank_of_partition(unsigned part, unsigned parts, unsigned ranks) {
  IBFSIM_CHECK(part < parts, "a partition of the fabric");
  const unsigned base = parts / ranks, extra = parts % ranks;
  // The first `extra` ranks hold base + 1 partitions each.
  const unsigned big = extra * (base + 1);
  return part < big ? part / (base + 1) : extra + (part - big) / base;
}

#ifdef IBFSIM_HAVE_MPI
namespace {
Time all_ranks(Time local, MPI_Op op) {
  if (g_size == 1) return local;
  std::uint64_t v = local, r = 0;
  check(MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, op, MPI_COMM_WORLD), "MPI_Allreduce");
  return r;
}
}  // namespace

Time min_time(Time local) { return all_ranks(local, MPI_MIN); }
Time max_time(Time local) { return all_ranks(local, MPI_MAX); }
#else
Time min_time(Time local) { return local; }
Time max_time(Time local) { return local; }
#endif

bool any(bool local) {
#ifdef IBFSIM_HAVE_MPI
  if (g_size > 1) {
    int v = local ? 1 : 0, r = 0;
    check(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
    return r != 0;
  }
#endif
  return local;
}

void sum(std::vector<std::uint64_t>& values) {
#ifdef IBFSIM_HAVE_MPI
  if (g_size > 1 && !values.empty()) {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
#else
  (void)values;
#endif
}

std::vector<std::vector<std::uint8_t>> exchange(const std::vector<std::vector<std::uint8_t>>& out) {
  std::vector<std::vector<std::uint8_t>> in(static_cast<std::size_t>(g_size));
#ifdef IBFSIM_HAVE_MPI
  if (g_size > 1) {
    IBFSIM_CHECK(out.size() == static_cast<std::size_t>(g_size), "bytes for every rank");
    const auto n = static_cast<std::size_t>(g_size);
    std::vector<int> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
    std::vector<std::uint8_t> send;
    for (std::size_t d = 0; d < n; ++d) {
      send_displs[d] = static_cast<int>(send.size());
      if (d != static_cast<std::size_t>(g_rank)) send.insert(send.end(), out[d].begin(), out[d].end());
      send_counts[d] = static_cast<int>(send.size()) - send_displs[d];
    }
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Alltoall");
    int total = 0;
    for (std::size_t s = 0; s < n; ++s) {
      recv_displs[s] = total;
      total += recv_counts[s];
    }
    std::vector<std::uint8_t> recv(static_cast<std::size_t>(total));
    check(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv.data(),
                        recv_counts.data(), recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    for (std::size_t s = 0; s < n; ++s)
      in[s].assign(recv.begin() + recv_displs[s], recv.begin() + recv_displs[s] + recv_counts[s]);
  }
#else
  (void)out;
#endif
  return in;
}

std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine) {
  std::vector<std::vector<std::uint8_t>> all;
#ifdef IBFSIM_HAVE_MPI
  if (g_size > 1) {
    const auto n = static_cast<std::size_t>(g_size);
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(n), displs(n);
    check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    int total = 0;
    for (std::size_t s = 0; s < n; ++s) {
      displs[s] = total;
      total += counts[s];
    }
    std::vector<std::uint8_t> recv(g_rank == 0 ? static_cast<std::size_t>(total) : 0);
    check(MPI_Gatherv(mine.data(), count, MPI_BYTE, recv.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
    if (g_rank == 0)
      for (std::size_t s = 0; s < n; ++s) all.emplace_back(recv.begin() + displs[s], recv.begin() + displs[s] + counts[s]);
    return all;
  }
#endif
  all.push_back(mine);
  return all;
}

void broadcast(std::vector<std::uint8_t>& bytes) {
#ifdef IBFSIM_HAVE_MPI
  if (g_size > 1) {
    std::uint64_t n = bytes.size();
    check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(n);
    check(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
#else
  (void)bytes;
#endif
}

std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) {
  if (g_size == 1) return {mine};
  std::vector<std::uint8_t> all;
  for (const auto& b : gather(mine)) {
    const std::uint64_t n = b.size();
    const auto* p = reinterpret_cast<const std::uint8_t*>(&n);
    all.insert(all.end(), p, p + sizeof n);
    all.insert(all.end(), b.begin(), b.end());
  }
  broadcast(all);
  std::vector<std::vector<std::uint8_t>> out;
  std::size_t at = 0;
  while (at < all.size()) {
    std::uint64_t n = 0;
    IBFSIM_CHECK(all.size() - at >= sizeof n, "every rank's bytes: cut short");
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + sizeof n),
              reinterpret_cast<std::uint8_t*>(&n));
    at += sizeof n;
    IBFSIM_CHECK(all.size() - at >= n, "every rank's bytes: cut short");
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  IBFSIM_CHECK(out.size() == static_cast<std::size_t>(g_size), "every rank's bytes");
  return out;
}

}  // namespace ibfsim::ranks
