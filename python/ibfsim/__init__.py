"""ibfsim from Python: build topologies, load and edit scenarios, run and sweep them, and read the
results as dicts and pandas DataFrames.

    import ibfsim
    topo = ibfsim.generate("leaf_spine", leaves=4, spines=2, hosts_per_leaf=4)
    print(topo.summary())                       # hosts, switches, diameter, bisection, ...
    sc = ibfsim.Scenario("scenarios/quickstart.yaml")
    sc.set("workload.load", 0.7)                # any key, as --set
    run = sc.run("results/q07")                 # an ibfsim run, in its own process
    run.json["load"]["accepted"]                # results.json as a dict
    run.ports()                                 # ports.csv (or ports.csv.zst) as a DataFrame
    run.select("ports[node=sw1,port=3].window.busy_fraction")   # a figure, from results.json or the tables
    sweep = sc.sweep({"workload.load": "0.1:0.9:0.2"}, jobs=2, out="results/q-sweep")
    sweep.curve()                               # curve.csv as a DataFrame

Topologies and scenario checks run in this process (the C++ core, ibfsim._core); runs and sweeps
start the `ibfsim` command, because SystemC simulates once per process. The command is found in
$IBFSIM_BINARY, next to this package in the build tree (build/ibfsim for build/python/ibfsim), or
on the PATH.
"""
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

from . import _core
from ._core import Topology, metric_unit

__version__ = _core.version
__all__ = ["Topology", "Scenario", "Results", "Sweep", "generate", "load_topology", "topology_from_dict",
           "run", "sweep", "binary", "metric_unit", "read_table_bytes"]


def binary():
    """The ibfsim command runs and sweeps use."""
    env = os.environ.get("IBFSIM_BINARY")
    if env:
        return env
    here = Path(__file__).resolve().parent
    for candidate in (here.parent.parent / "ibfsim", here.parent / "ibfsim"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("ibfsim")
    if found:
        return found
    raise FileNotFoundError("no ibfsim command: set IBFSIM_BINARY, or build it (cmake --build build)")


def _value_text(value):
    """A Python value as the YAML text --set takes: strings as they are (2us, EDR), the rest as JSON
    (numbers, booleans, lists and dicts are YAML flow values too)."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _overrides(settings):
    return [(str(k), _value_text(v)) for k, v in (settings or {}).items()]


# ---- topologies ---------------------------------------------------------------------------------

def topology_from_dict(document, name="<python>"):
    """A topology from a dict shaped like a topology file (topologies/README.md)."""
    return _core.parse_topology(json.dumps(document), name)


def generate(kind, defaults=None, **params):
    """A generated fabric: kind is fat_tree, leaf_spine, rail_fat_tree, mesh, torus, dragonfly or hypercube, with the
    generator's keys as keyword arguments (generate("torus", dims=[4, 4], hosts_per_switch=2));
    `defaults` as a topology file's (link speed, buffers, ...)."""
    doc = {"generate": dict(kind=kind, **params)}
    if defaults:
        doc["defaults"] = defaults
    return topology_from_dict(doc, f"<generate {kind}>")


def load_topology(path, overrides=None):
    """A topology file (YAML, ibnetdiscover output or an ibsim net file), with optional overrides
    of its keys ({"defaults.switch.buffer_credits": 512})."""
    return _core.load_topology(str(path), _overrides(overrides))


# ---- results ------------------------------------------------------------------------------------

def read_table_bytes(path):
    """The bytes of a table file: as they are, or decompressed when the name ends in .zst
    (outputs.compress) with Python's zstandard module (Debian's python3-zstandard), else the zstd
    command, else the C++ core."""
    path = Path(path)
    if path.suffix != ".zst":
        return path.read_bytes()
    try:
        import zstandard
    except ImportError:
        zstandard = None
    if zstandard is not None:
        with open(path, "rb") as f:
            return zstandard.ZstdDecompressor().stream_reader(f).read()
    zstd = shutil.which("zstd")
    if zstd:
        return subprocess.run([zstd, "-dcq", str(path)], check=True, capture_output=True).stdout
    return _core.read_table_text(str(path))


class Results:
    """A run's results folder: results.json as a dict, the CSV tables (plain or .csv.zst) as
    DataFrames."""

    def __init__(self, folder):
        self.dir = Path(folder)
        with open(self.dir / "results.json") as f:
            self.json = json.load(f)

    def __getitem__(self, key):
        return self.json[key]

    def table_path(self, name):
        """The file of table `name` (ports, port_vls, ...): name.csv, else name.csv.zst."""
        base = name[:-4] if name.endswith(".csv") else name
        for candidate in (self.dir / (base + ".csv"), self.dir / (base + ".csv.zst")):
            if candidate.exists():
                return candidate
        raise FileNotFoundError(f"{self.dir}: no table {base} ({base}.csv or {base}.csv.zst)")

    def table(self, name):
        """A CSV table of the folder (ports, port_vls, discards, port_utilization, credit_stall,
        links, hca_model, cc_switch_ports, cc_qps, classes, packets, time_series, ...) as a
        DataFrame; a compressed one (.csv.zst) is read the same."""
        import pandas
        return pandas.read_csv(io.BytesIO(read_table_bytes(self.table_path(name))))

    def tables(self):
        """The tables the run wrote, as results.json lists them: name -> {file, rows}."""
        return self.json.get("tables", {})

    def with_tables(self):
        """results.json as a dict with what the tables hold put back where results.json once had it
        ("ports" with their VLs, discards and window figures, "links", ...), as selectors see it."""
        return json.loads(_core.results_with_tables(str(self.dir)))

    def ports(self):
        return self.table("ports")

    def port_vls(self):
        return self.table("port_vls")

    def links(self):
        return self.table("links")

    def classes(self):
        return self.table("classes")

    def time_series(self):
        return self.table("time_series")

    def flows(self):
        """One row per flow of results.json, nested figures flattened (throughput.accepted_payload_gbps)."""
        import pandas
        return pandas.json_normalize(self.json.get("flows", []))

    def select(self, selector):
        """The number a --metric selector finds (flows[name=victim].throughput.accepted_payload_gbps,
        ports[node=spine,port=5].window.busy_fraction): in results.json, then in the tables."""
        return _core.select_in_folder(str(self.dir), selector)

    @property
    def report(self):
        return self.dir / "report.html"

    def __repr__(self):
        return f"<ibfsim.Results {self.dir}>"


class Sweep:
    """A sweep's folder: the curve, the saturation points, and every point's Results."""

    def __init__(self, folder):
        self.dir = Path(folder)
        with open(self.dir / "sweep.json") as f:
            self.manifest = json.load(f)
        with open(self.dir / "saturation.json") as f:
            self.saturation = json.load(f)

    def curve(self):
        """curve.csv as a DataFrame: one row per point, the swept keys, status, offered and accepted
        load, latencies, saturation and every --metric."""
        import pandas
        return pandas.read_csv(self.dir / "curve.csv")

    def points(self):
        """Every point's Results (None for a point without results)."""
        out = []
        for p in self.manifest["points"]:
            folder = self.dir / p["dir"]
            out.append(Results(folder) if (folder / "results.json").exists() else None)
        return out

    @property
    def report(self):
        return self.dir / "report.html"

    def __repr__(self):
        return f"<ibfsim.Sweep {self.dir}: {len(self.manifest['points'])} points>"


# ---- scenarios, runs and sweeps -----------------------------------------------------------------

class Scenario:
    """A scenario file and the keys changed on top of it (as --set does; topology.KEY changes the
    topology file's keys). Nothing is written: the file stays as it is."""

    def __init__(self, path, settings=None):
        self.path = Path(path)
        self.settings = dict(settings or {})

    def set(self, key, value):
        """Changes a key (dotted path: "workload.load", "phases.measure", "topology.defaults.link.speed").
        Returns the scenario, so calls chain."""
        self.settings[key] = value
        return self

    def copy(self):
        return Scenario(self.path, self.settings)

    def check(self):
        """Reads and checks the scenario as `ibfsim run` would; a dict of what it found (topology,
        seed, flows, warnings). Bad input raises ValueError naming FILE:LINE:COL."""
        return _core.check_scenario(str(self.path), _overrides(self.settings))

    def topology(self):
        info = self.check()
        topo_settings = {k[len("topology."):]: v for k, v in self.settings.items() if k.startswith("topology.")}
        return load_topology(info["topology_file"], topo_settings)

    def args(self):
        out = []
        for k, v in _overrides(self.settings):
            out += ["--set", f"{k}={v}"]
        return out

    def run(self, out=None, seed=None, check=True):
        """Runs the scenario (`ibfsim run`) into `out` and returns its Results."""
        return run(self, out=out, seed=seed, check=check)

    def sweep(self, axes, out=None, jobs=1, metrics=None, seed=None, check=True):
        return sweep(self, axes, out=out, jobs=jobs, metrics=metrics, seed=seed, check=check)

    def __repr__(self):
        return f"<ibfsim.Scenario {self.path} {self.settings}>"


def _scenario(s):
    return s if isinstance(s, Scenario) else Scenario(s)


def _command(args, check):
    r = subprocess.run([binary()] + args, capture_output=True, text=True,
                       env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"})
    if check and r.returncode not in (0,):
        raise RuntimeError(f"ibfsim {' '.join(args[:2])} failed (exit code {r.returncode}):\n{r.stderr or r.stdout}")
    return r


def run(scenario, out=None, seed=None, check=True):
    """Runs a scenario (a path or a Scenario) with `ibfsim run` and returns its Results; the printed
    summary is in Results.summary. check=False returns the results of a run that failed or was
    interrupted, if it wrote any."""
    sc = _scenario(scenario)
    args = ["run", str(sc.path)] + sc.args()
    if out is not None:
        args += ["-o", str(out)]
    if seed is not None:
        args += ["--seed", str(seed)]
    r = _command(args, check)
    folder = out if out is not None else Path("results") / sc.path.stem
    res = Results(folder)
    res.summary = r.stdout
    return res


def sweep(scenario, axes, out=None, jobs=1, metrics=None, seed=None, check=True):
    """Sweeps a scenario with `ibfsim sweep`: `axes` maps keys to values as --set takes them
    ("0.1:0.9:0.1", "a,b,c" or a list), the first key being the curve's parameter; `metrics` maps
    names (optionally "name:unit") to results.json selectors. Returns the Sweep."""
    sc = _scenario(scenario)
    args = ["sweep", str(sc.path)] + sc.args()
    for k, v in axes.items():
        text = ",".join(_value_text(x) for x in v) if isinstance(v, (list, tuple)) else _value_text(v)
        args += ["--set", f"{k}={text}"]
    for name, selector in (metrics or {}).items():
        args += ["--metric", f"{name}={selector}"]
    args += ["-j", str(jobs)]
    if out is not None:
        args += ["-o", str(out)]
    if seed is not None:
        args += ["--seed", str(seed)]
    r = _command(args, check)
    folder = out if out is not None else Path("results") / (sc.path.stem + "-sweep")
    s = Sweep(folder)
    s.log = r.stdout + r.stderr
    return s
