#include "sim/core/stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "sim/core/calendar_process.h"
#include "sim/core/temporary_files.h"

namespace ibfsim {

namespace {

std::atomic<int> g_first_signal{0};
std::atomic<int> g_count{0};
std::atomic<bool> g_results_pending{false};
std::atomic<bool> g_graceful{false};

constexpr std::size_t kForwardSlots = 1024;
std::atomic<pid_t> g_forward[kForwardSlots];

void die_by(int sig) {
  remove_registered_temporaries();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);  // not reached unless the signal is ignored after all
}

void on_stop_signal(int sig) {
  const int saved_errno = errno;
  int expected = 0;
  g_first_signal.compare_exchange_strong(expected, sig);
  const int n = g_count.fetch_add(1) + 1;
  CalendarProcess::request_stop();
  for (auto& p : g_forward) {
    const pid_t pid = p.load(std::memory_order_relaxed);
    if (pid > 0) kill(pid, sig);
  }
  if (!g_graceful.load() || n >= 3 || (n == 2 && !g_results_pending.load())) die_by(sig);
  errno = saved_errno;
}

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void enable_graceful_stop() { g_graceful.store(true); }

int stop_signal() { return g_first_signal.load(); }

std::string signal_name(int sig) {
  switch (sig) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

void set_results_pending() { g_results_pending.store(true); }

bool add_signal_forward(pid_t pid) {
  for (auto& p : g_forward) {
    pid_t expected = 0;
    if (p.compare_exchange_strong(expected, pid)) return true;
  }
  return false;
}

void remove_signal_forward(pid_t pid) {
  for (auto& p : g_forward) {
    pid_t expected = pid;
    if (p.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace ibfsim
