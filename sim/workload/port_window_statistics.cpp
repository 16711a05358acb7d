#include "sim/workload/port_window_statistics.h"

#include <memory>
#include <optional>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/link/port_statistics.h"

namespace ibfsim {

namespace {

// One data VL of one port of the window.
struct WindowVl {
  const PortWindow* window = nullptr;
  std::size_t port = 0;  // index in window->ports()
  std::size_t vl = 0;
};
using Vl = const WindowVl&;

}  // namespace

void register_port_window_statistics(StatsRegistry& r, const PortWindow& w, Fabric& fabric, const FabricStatRows& rows) {
  // The ports' rows hold the port itself: its place in the window is looked up.
  auto index = std::make_shared<std::unordered_map<const LinkPort*, std::size_t>>();
  for (std::size_t i = 0; i < w.ports().size(); ++i) (*index)[&fabric.port(w.ports()[i].first, w.ports()[i].second)] = i;
  const PortWindow* pw = &w;
  auto ports = r.kind<PortStatsSource>("ports");
  ports.figure("window.busy_fraction", "fraction", Merge::kSame, kPortUtilizationCsv,
               [pw, index](const PortStatsSource& p) { return pw->busy_fraction(index->at(p.port)); });

  // credit_stall.csv: one line per port and VL (read back as the port's list "window"
  // "credit_stall_ns", report/results_view.h).
  const double window = static_cast<double>(w.window());
  auto vls = r.add_kind<WindowVl>("window.credit_stall_ns", {"vl"}, Nesting::kList, ports.index());
  vls.figure("credit_stall_ns", "ns", Merge::kSum, kCreditStallCsv, [](Vl v) -> std::optional<double> {
       const std::optional<Time> s = v.window->credit_stall(v.port, v.vl);
       return s ? std::optional<double>(static_cast<double>(*s) / 1e6) : std::nullopt;
     })
      .figure("credit_stall_fraction", "fraction", Merge::kSame, kCreditStallCsv, [window](Vl v) -> std::optional<double> {
        const std::optional<Time> s = v.window->credit_stall(v.port, v.vl);
        return s ? std::optional<double>(static_cast<double>(*s) / window) : std::nullopt;
      }, 6);
  for (std::size_t i = 0; i < w.ports().size(); ++i) {
    const auto& [node, port] = w.ports()[i];
    const std::size_t row = rows.ports.at(node).at(port);
    IBFSIM_CHECK(row != kNoStatParent, "port window: a port without statistics");
    for (std::size_t v = 0; v < w.vls(i); ++v) vls.add(WindowVl{pw, i, v}, row, v);
  }
}

}  // namespace ibfsim
