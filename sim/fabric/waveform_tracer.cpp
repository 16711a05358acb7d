#include "sim/fabric/waveform_tracer.h"

#include <cstdio>
#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"

namespace ibfsim {

WaveformTracer::WaveformTracer(Fabric& fabric, const std::string& base, const std::vector<std::string>& ports)
    : base_(base), guard_(base + ".vcd", atomic_temp_path(base) + ".vcd") {
  const Topology& topo = fabric.topology();
  std::vector<std::pair<std::size_t, unsigned>> selected;
  if (ports.empty()) {
    for (std::size_t n : topo.switches())
      for (unsigned p = 1; p <= topo.nodes[n].num_ports; ++p)
        if (fabric.port(n, p).connected()) selected.emplace_back(n, p);
  } else {
    for (const std::string& ref : ports) {
      const auto slash = ref.find('/');
      auto node = slash == std::string::npos ? std::nullopt : topo.find_node(ref.substr(0, slash));
      unsigned p = 0;
      if (node) p = static_cast<unsigned>(std::strtoul(ref.c_str() + slash + 1, nullptr, 10));
      if (!node || p < 1 || p > topo.nodes[*node].num_ports || !fabric.port(*node, p).connected())
        throw InputError("outputs.vcd_ports: expected a cabled NODE/PORT, got '" + ref + "'");
      selected.emplace_back(*node, p);
    }
  }
  file_ = sc_core::sc_create_vcd_trace_file(atomic_temp_path(base_).c_str());
  file_->set_time_unit(1, sc_core::SC_FS);
  for (auto [n, p] : selected) {
    LinkPort& lp = fabric.port(n, p);
    for (unsigned v = 0; v < lp.op_vls(); ++v) {
      auto probe = std::make_unique<Probe>(Probe{&lp, static_cast<std::uint8_t>(v)});
      const std::string prefix = topo.nodes[n].name + ".port" + std::to_string(p) + ".vl" + std::to_string(v);
      sc_core::sc_trace(file_, probe->credits, prefix + ".credits");
      sc_core::sc_trace(file_, probe->depth, prefix + ".rx_depth");
      probes_.push_back(std::move(probe));
    }
  }
  CalendarProcess::shared().set_after_wake([this] { sample(); });
}

WaveformTracer::~WaveformTracer() {
  if (file_) CalendarProcess::shared().set_after_wake(nullptr);
}

void WaveformTracer::sample() {
  for (auto& pr : probes_) {
    pr->credits = pr->port->tx_credits(pr->vl).available();
    pr->depth = pr->port->rx_buffer(pr->vl).occupied();
  }
}

void WaveformTracer::close() {
  if (!file_) return;
  CalendarProcess::shared().set_after_wake(nullptr);
  sc_core::sc_close_vcd_trace_file(file_);
  file_ = nullptr;
  guard_.commit();
}

}  // namespace ibfsim
