#!/usr/bin/env python3
"""Sweeps the offered load of a scenario, reads the curve as a pandas DataFrame and plots latency
and accepted load against offered load with matplotlib.

    PYTHONPATH=build/python python3 examples/sweep_curve.py [--scenario FILE] [--out DIR] [--quick]

Run from the repository after the README's commands (scripts/quickstart.sh builds build/python).
"""
import argparse
from pathlib import Path

import ibfsim


def main():
    repo = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default=str(repo / "scenarios/quickstart.yaml"))
    ap.add_argument("--out", default="results/example-sweep")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="three short points instead of nine")
    args = ap.parse_args()

    sc = ibfsim.Scenario(args.scenario)
    loads = "0.2,0.6,1.0" if args.quick else "0.1:0.9:0.1"
    if args.quick:
        sc.set("phases.warmup", "5us").set("phases.measure", "20us")
    out = Path(args.out)
    sweep = sc.sweep({"workload.load": loads}, jobs=args.jobs, out=out / "sweep")
    curve = sweep.curve()
    print(curve[["workload.load", "offered_load", "accepted_load", "msg_mean_ns", "msg_p99_ns", "saturated"]].to_string(index=False))
    for s in sweep.saturation["series"]:
        where = s.get("saturation_point", {}).get("offered_load")
        print(f"saturation: {'at offered load %.3f' % where if where is not None else 'none up to the highest load'}, "
              f"highest accepted load {s['saturation_throughput']:.3f}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (lat, thr) = plt.subplots(1, 2, figsize=(10, 4))
    lat.plot(curve["offered_load"], curve["msg_mean_ns"], "o-", color="#0072b2", label="mean")
    lat.plot(curve["offered_load"], curve["msg_p99_ns"], "o:", color="#0072b2", mfc="white", label="p99")
    lat.set_yscale("log")
    lat.set_xlabel("offered load (fraction of the injection link rate)")
    lat.set_ylabel("message latency (ns)")
    lat.legend()
    thr.plot([0, 1], [0, 1], "--", color="gray", label="accepted = offered")
    thr.plot(curve["offered_load"], curve["accepted_load"], "o-", color="#0072b2", label="accepted")
    thr.set_xlabel("offered load (fraction of the injection link rate)")
    thr.set_ylabel("accepted load (fraction of the injection link rate)")
    thr.legend()
    fig.suptitle(f"{Path(args.scenario).stem}: latency and throughput against offered load")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=120)
    print(f"plot: {out / 'curve.png'}")


if __name__ == "__main__":
    main()
