#!/usr/bin/env python3
"""The congestion control trade-off of scenarios/cc_victim.yaml: sweeps the switches'
SwitchCongestionSetting.Threshold (congestion_control.switch.threshold) and, for each point, runs
`ibfsim run` and reads the victim's throughput (and its fraction of its fair share: what it
offers, half a link) and the hot link's utilization (the contributors' payload over the payload
rate of a 4x EDR link in 2 KiB packets: 2048 B per 66 symbol edges of 2.56 ns = 96.97 Gb/s).
Writes curve.csv, and curve.png / curve.svg with gnuplot (curve.gp is the script).

A stand-in for `ibfsim sweep` until that command exists; only the Python standard library.

  python3 scripts/cc_threshold_sweep.py [--ibfsim build/ibfsim] [-o results/cc_threshold_sweep]
"""
import argparse
import csv
import json
import os
import subprocess
import sys

LINE_PAYLOAD_GBPS = 2048 * 8 / (66 * 2.56)  # 96.97 Gb/s


def run(ibfsim, scenario, out, sets):
    cmd = [ibfsim, "run", scenario, "-o", out]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    with open(os.path.join(out, "results.json")) as f:
        j = json.load(f)
    flows = {x["name"]: x for x in j["flows"]}
    hot = [flows[c]["throughput"]["accepted_payload_gbps"] for c in ("c1", "c2", "c3", "c4")]
    victim = flows["victim"]["throughput"]["accepted_payload_gbps"]
    fair = flows["victim"]["load"] * LINE_PAYLOAD_GBPS
    cc = j.get("congestion_control", {}).get("totals", {})
    return {
        "victim_gbps": victim,
        "victim_fraction_of_fair_share": victim / fair,
        "hot_link_utilization": sum(hot) / LINE_PAYLOAD_GBPS,
        "contributor_min_gbps": min(hot),
        "contributor_max_gbps": max(hot),
        "fecn_marked": cc.get("fecn_marked", 0),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ibfsim", default="build/ibfsim")
    ap.add_argument("--scenario", default="scenarios/cc_victim.yaml")
    ap.add_argument("-o", "--out", default="results/cc_threshold_sweep")
    ap.add_argument("--thresholds", default="2,4,6,8,9,10,11,12,13,14,15")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    off = run(a.ibfsim, a.scenario, os.path.join(a.out, "off"), {"congestion_control.enabled": "false"})
    rows.append({"threshold": "off", **off})
    for t in [int(x) for x in a.thresholds.split(",")]:
        r = run(a.ibfsim, a.scenario, os.path.join(a.out, f"t{t}"), {"congestion_control.switch.threshold": t})
        rows.append({"threshold": t, **r})
        print(f"threshold {t:2d}: victim {r['victim_gbps']:.2f} Gb/s ({100 * r['victim_fraction_of_fair_share']:.1f}% "
              f"of its fair share), hot link {100 * r['hot_link_utilization']:.2f}%", flush=True)
    print(f"congestion control off: victim {off['victim_gbps']:.2f} Gb/s "
          f"({100 * off['victim_fraction_of_fair_share']:.1f}%), hot link {100 * off['hot_link_utilization']:.2f}%")
    csv_path = os.path.join(a.out, "curve.csv")
    with open(csv_path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(csv_path + ".tmp", csv_path)
    gp = os.path.join(a.out, "curve.gp")
    with open(gp, "w") as f:
        f.write(f"""set datafile separator ','
set key bottom left
set grid
set xlabel 'SwitchCongestionSetting.Threshold (0 loose .. 15 aggressive)'
set ylabel 'percent'
set yrange [0:110]
set xrange [1:16]
set title 'cc\\_victim: victim throughput vs hot link utilization (congestion control off: victim {100 * off["victim_fraction_of_fair_share"]:.0f}% of its share)'
do for [fmt in "png svg"] {{
  if (fmt eq "png") {{ set terminal pngcairo size 900,600 }} else {{ set terminal svg size 900,600 }}
  set output '{os.path.join(a.out, "curve")}.'.fmt
  plot '{csv_path}' every ::2 using 1:($3*100) with linespoints lw 2 title 'victim, % of its fair share', \\
       '' every ::2 using 1:($4*100) with linespoints lw 2 title 'hot link utilization, %', \\
       95 with lines dt 2 title '95%', 90 with lines dt 3 title '90%'
}}
""")
    try:
        subprocess.run(["gnuplot", gp], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"no plot: {e}", file=sys.stderr)
    print(f"curve: {csv_path}")


if __name__ == "__main__":
    main()
