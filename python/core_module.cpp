// ibfsim._core: the parts of the simulator Python calls in-process (pybind11). Topologies (parse,
// generate, summarize, convert), scenario checking, the sweep curve from results, a results folder's
// tables read back (results_view.h). Runs are not
// here: SystemC simulates once per process, so ibfsim.run() starts the ibfsim command instead
// (python/ibfsim/__init__.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <sstream>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "sim/core/error.h"
#include "sim/fabric/dot_format.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/ibsim_format.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_summary.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/report/curve.h"
#include "sim/report/json_select.h"
#include "sim/report/results_view.h"
#include "sim/report/table_file.h"
#include "sim/workload/scenario.h"

namespace py = pybind11;
using namespace ibfsim;

// libsystemc.so refers to the program's sc_main; a Python process has none, and never simulates.
// Visible (pybind11 hides the module's symbols) and kept, so the loader finds it for libsystemc.
__attribute__((visibility("default"), used)) int sc_main(int, char*[]) { return 0; }

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

py::dict node_dict(const TopoNode& n) {
  py::dict d;
  d["name"] = n.name;
  d["type"] = node_type_name(n.type);
  d["ports"] = n.num_ports;
  d["guid"] = n.guid;
  if (n.type != NodeType::kHca) d["latency_ns"] = to_ns(n.switch_latency);
  d["buffer_credits"] = n.rx_buffer_credits;
  d["vls"] = n.op_vls;
  d["vl15_buffer_credits"] = n.vl15_buffer_credits;
  d["speeds"] = speed_set_names(n.enabled_speeds(1));
  d["widths"] = width_set_names(n.enabled_widths(1));
  return d;
}

py::dict cable_dict(const Topology& t, const TopoCable& c) {
  py::dict d;
  d["from"] = t.nodes[c.node_a].name + "/" + std::to_string(c.port_a);
  d["to"] = t.nodes[c.node_b].name + "/" + std::to_string(c.port_b);
  d["rate"] = c.ethernet_speed ? std::string(ethernet_speed_info(*c.ethernet_speed).name) : c.rate.name();
  d["length_m"] = c.length_mm / 1000.0;
  d["delay_ns"] = to_ns(t.cable_delay(static_cast<std::size_t>(&c - t.cables.data())));
  return d;
}

py::dict summary_dict(const Topology& t) {
  const TopologySummary s = summarize_topology(t);
  py::dict d;
  d["hcas"] = s.hcas;
  d["hosts"] = s.hosts;
  d["switches"] = s.switches;
  d["cables"] = s.cables;
  d["host_cables"] = s.host_cables;
  d["switch_cables"] = s.switch_cables;
  if (s.diameter) {
    d["diameter_switches"] = s.diameter->switches;
    d["diameter_hops"] = s.diameter->switches - 1;
  }
  d["bisection_cables"] = s.bisection.cables;
  d["bisection_gbps"] = s.bisection.gbps;
  if (s.bisection.of_full) d["bisection_of_full"] = *s.bisection.of_full;
  d["bisection_exact"] = s.bisection.method == BisectionMethod::kFatTreeExact;
  d["warnings"] = s.warnings;
  return d;
}

// Python exceptions for ibfsim's errors: bad input is a ValueError.
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const InputError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const SimError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  m.doc() = "ibfsim's C++ core: topologies, scenario checks and sweep curves (see the ibfsim package)";
  py::register_exception_translator(&translate);
  m.attr("version") = IBFSIM_VERSION_STRING;

  py::class_<Topology>(m, "Topology", "A fabric: nodes (HCAs, switches) and the cables between their ports")
      .def_property_readonly("nodes",
                             [](const Topology& t) {
                               py::list l;
                               for (const TopoNode& n : t.nodes) l.append(node_dict(n));
                               return l;
                             },
                             "Every node as a dict (name, type, ports, guid, buffers, VLs, speeds)")
      .def_property_readonly("cables",
                             [](const Topology& t) {
                               py::list l;
                               for (const TopoCable& c : t.cables) l.append(cable_dict(t, c));
                               return l;
                             },
                             "Every cable as a dict (from, to, rate, length_m, delay_ns)")
      .def_property_readonly("hcas", [](const Topology& t) { return t.hcas().size(); })
      .def_property_readonly("switches", [](const Topology& t) { return t.switches().size(); })
      .def_readonly("source_file", &Topology::source_file)
      .def("summary", &summary_dict, "The figures of `ibfsim topo`: counts, diameter, bisection, warnings")
      .def("summary_text", [](const Topology& t) { return format_topology_summary(t, summarize_topology(t)); },
           "What `ibfsim topo` prints")
      .def("to_yaml", [](const Topology& t, const std::string& comment) { return write_topology_yaml(t, comment); },
           py::arg("comment") = "", "The topology as a YAML topology file (ibfsim topo --yaml)")
      .def("to_ibnetdiscover", &write_ibnetdiscover)
      .def("to_ibsim", &write_ibsim)
      .def("to_dot", &write_dot)
      .def("__repr__", [](const Topology& t) {
        return "<ibfsim.Topology: " + std::to_string(t.hcas().size()) + " HCAs, " + std::to_string(t.switches().size()) +
               " switches, " + std::to_string(t.cables.size()) + " cables>";
      });

  m.def("load_topology", [](const std::string& path, const Overrides& overrides) { return load_topology_file(path, overrides); },
        py::arg("path"), py::arg("overrides") = Overrides{},
        "Reads a topology file (YAML, ibnetdiscover output or an ibsim net file), with --set style overrides");
  m.def("parse_topology",
        [](const std::string& yaml_text, const std::string& name) { return parse_topology(YAML::Load(yaml_text), name); },
        py::arg("yaml_text"), py::arg("name") = "<python>",
        "A topology from YAML text (JSON is YAML too), e.g. {\"generate\": {\"kind\": \"torus\", \"dims\": [4, 4]}}");

  m.def("check_scenario",
        [](const std::string& path, const Overrides& overrides) {
          const Scenario s = load_scenario(path, overrides);
          py::dict d;
          d["file"] = s.file;
          d["topology_file"] = s.topology_file;
          d["seed"] = s.seed;
          d["hcas"] = s.topology.hcas().size();
          d["switches"] = s.topology.switches().size();
          py::list flows;
          for (const auto& f : s.flows) flows.append(f.name);
          for (const auto& c : s.classes) flows.append(c.name);
          for (const auto& v : s.verbs_flows) flows.append(v.name);
          d["flows"] = flows;
          d["warnings"] = s.warnings;
          return d;
        },
        py::arg("path"), py::arg("overrides") = Overrides{},
        "Reads and checks a scenario as `ibfsim run` would (ValueError naming FILE:LINE:COL on bad input)");

  m.def("json_select",
        [](const std::string& results_json, const std::string& selector) {
          const auto steps = parse_json_selector(selector, "selector");
          return json_select_number(nlohmann::json::parse(results_json), steps);
        },
        py::arg("results_json"), py::arg("selector"), "The number a --metric selector finds in results.json text (None if none)");
  m.def("select_in_folder",
        [](const std::string& folder, const std::string& selector) {
          const auto steps = parse_json_selector(selector, "selector");
          return select_in_results(folder, read_results_json(folder), steps);
        },
        py::arg("folder"), py::arg("selector"),
        "The number a --metric selector finds in a results folder: results.json, then its tables (None if none)");
  m.def("results_with_tables",
        [](const std::string& folder) { return results_with_tables(folder).dump(); },
        py::arg("folder"),
        "results.json of a folder as JSON text, with the members its tables hold put back (ports, links, ...)");
  m.def("read_table_text",
        [](const std::string& path) { return py::bytes(read_table_file(path)); },
        py::arg("path"), "The text of a table file (CSV bytes), decompressed if its name ends in .zst");
  m.def("metric_unit", &metric_unit, "The unit a --metric axis gets from the figure's name");
}
