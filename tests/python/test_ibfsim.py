"""import ibfsim: topologies from the generators and files, scenarios loaded, edited, checked, run
and swept, results as dicts and DataFrames; and the example script of examples/."""
import json
import os
import runpy
import shutil
import subprocess
import sys

import pytest

import ibfsim


def test_generators_build_the_documented_fabrics():
    t = ibfsim.generate("leaf_spine", leaves=16, spines=8, hosts_per_leaf=8)
    assert (t.hcas, t.switches, len(t.cables)) == (128, 24, 256)
    s = t.summary()
    assert s["diameter_switches"] == 3 and s["diameter_hops"] == 2
    assert s["bisection_of_full"] == 1.0 and s["bisection_exact"]
    torus = ibfsim.generate("torus", dims=[4, 4, 4], hosts_per_switch=2, defaults={"link": {"speed": "HDR"}})
    assert torus.hcas == 128 and torus.switches == 64
    assert {c["rate"] for c in torus.cables} == {"4x HDR"}
    assert torus.nodes[0] == {"name": "h1", "type": "hca", "ports": 1, "guid": torus.nodes[0]["guid"],
                              "buffer_credits": 256, "vls": 8, "vl15_buffer_credits": 10,
                              "speeds": "SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR", "widths": "1x, 2x, 4x, 8x, 12x"}
    assert "diameter: 7 switches crossed" in torus.summary_text()
    with pytest.raises(ValueError, match="generator kind"):
        ibfsim.generate("ring", n=4)


def test_topology_files_and_yaml_round_trip(source, out):
    dump = ibfsim.load_topology(source / "topologies/examples/small_cluster.ibnetdiscover")
    text = dump.to_yaml("from the example dump")
    assert text.startswith("# from the example dump\n")
    (out / "cluster.yaml").write_text(text)
    back = ibfsim.load_topology(out / "cluster.yaml")
    assert back.nodes == dump.nodes and back.cables == dump.cables
    longer = ibfsim.load_topology(out / "cluster.yaml", {"defaults.link.length": "10m"})
    assert {c["length_m"] for c in longer.cables} == {10.0}
    assert "Switch" in dump.to_ibnetdiscover()


def test_scenarios_edit_check_run_and_results(source, out):
    sc = ibfsim.Scenario(source / "scenarios/quickstart.yaml")
    sc.set("workload.load", 0.3).set("phases.measure", "20us").set("phases.warmup", "5us")
    info = sc.check()
    assert info["hcas"] == 8 and info["seed"] == 1
    assert sc.topology().switches == 1
    with pytest.raises(ValueError, match="quickstart.yaml"):
        sc.copy().set("workload.load", 7).check()
    res = sc.run(out / "run")
    assert res.json["load"]["offered"] == pytest.approx(0.3, rel=0.2)
    assert res["packets"]["created"] == res["packets"]["delivered"]
    assert "fabric: 8 HCAs, 1 switch, 8 cables (4x EDR)" in res.summary
    ports = res.ports()
    assert {"node", "port", "peer", "tx_packets", "run_busy_fraction"} <= set(ports.columns)
    assert len(ports) == 16
    assert res.flows().loc[0, "throughput.accepted_payload_gbps"] > 0
    assert res.select("load.accepted") == pytest.approx(res.json["load"]["accepted"])
    assert res.report.exists()


def test_tables_plain_and_compressed_read_the_same(source, out, monkeypatch):
    sc = ibfsim.Scenario(source / "scenarios/quickstart.yaml", {"phases.measure": "20us", "phases.warmup": "5us"})
    plain = sc.run(out / "plain")
    packed = sc.copy().set("outputs.compress", True).run(out / "packed")
    # results.json holds no table; its index names the files and their rows.
    assert "ports" not in plain.json and "links" not in plain.json
    assert plain.tables()["ports"] == {"file": "ports.csv", "rows": 16}
    assert packed.tables()["ports"] == {"file": "ports.csv.zst", "rows": 16}
    assert packed.tables()["links"] == {"file": "links.csv.zst", "rows": 8}
    assert not (out / "packed" / "ports.csv").exists()
    for name in ("ports", "port_vls", "discards", "port_utilization", "credit_stall", "links", "classes"):
        raw = (out / "plain" / (name + ".csv")).read_bytes()
        path = out / "packed" / (name + ".csv.zst")
        # Every way of reading a compressed table gives the plain table's bytes: the zstandard
        # module, the zstd command, the C++ core.
        assert ibfsim.read_table_bytes(path) == raw
        assert ibfsim._core.read_table_text(str(path)) == raw
        assert subprocess.run(["zstd", "-dcq", str(path)], capture_output=True).stdout == raw
        assert plain.table(name).equals(packed.table(name))
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as without python3-zstandard: the zstd command
    assert ibfsim.read_table_bytes(out / "packed" / "ports.csv.zst") == (out / "plain" / "ports.csv").read_bytes()
    monkeypatch.setattr(shutil, "which", lambda name: None)  # and without it: the C++ core
    assert ibfsim.read_table_bytes(out / "packed" / "ports.csv.zst") == (out / "plain" / "ports.csv").read_bytes()
    # A port's figure is found in the tables, as results.json once had it.
    busy = plain.table("port_utilization").set_index(["node", "port"]).loc[("sw1", 3), "busy_fraction"]
    assert packed.select("ports[node=sw1,port=3].window.busy_fraction") == busy
    assert plain.select("ports[node=sw1,port=3].window.busy_fraction") == busy
    vls = packed.port_vls().set_index(["node", "port", "vl"])
    assert packed.select("port_vls[node=h1,port=1,vl=0].tx_packets") == vls.loc[("h1", 1, 0), "tx_packets"]
    assert packed.select("ports[node=h1,port=1].vls[0].tx_packets") == vls.loc[("h1", 1, 0), "tx_packets"]
    view = packed.with_tables()
    assert len(view["ports"]) == 16 and len(view["links"]) == 8
    first = view["ports"][0]
    assert first["vls"][0]["tx_packets"] == vls.loc[(first["node"], first["port"], 0), "tx_packets"]


def test_sweep_curve_as_a_dataframe(source, out):
    sc = ibfsim.Scenario(source / "scenarios/quickstart.yaml", {"phases.measure": "20us", "phases.warmup": "5us"})
    sw = sc.sweep({"workload.load": [0.2, 0.6]}, jobs=2, out=out / "sweep",
                  metrics={"acc": "load.accepted", "hot:Gb/s": "flows[0].throughput.accepted_payload_gbps"})
    curve = sw.curve()
    assert list(curve["workload.load"]) == [0.2, 0.6]
    assert list(curve["status"]) == ["ok", "ok"]
    assert (curve["acc"] - curve["accepted_load"]).abs().max() < 1e-5
    assert [p.json["load"]["offered"] > 0 for p in sw.points()] == [True, True]
    assert sw.saturation["series"][0]["points"] == 2
    assert sw.report.exists()


def test_example_script_sweeps_reads_the_curve_and_plots_it(source, out, monkeypatch, capsys):
    script = source / "examples/sweep_curve.py"
    args = [str(script), "--out", str(out), "--quick"]
    if os.environ.get("IBFSIM_SANITIZER_PRELOAD"):
        # The sanitizer build's module needs the runtime this interpreter was started with (and a
        # new interpreter would not have): run the script here, as its own __main__.
        monkeypatch.setattr(sys, "argv", args)
        runpy.run_path(str(script), run_name="__main__")
        stdout = capsys.readouterr().out
    else:
        r = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=os.environ)
        assert r.returncode == 0, r.stderr
        stdout = r.stdout
    assert (out / "curve.png").stat().st_size > 1000
    assert "saturation" in stdout
