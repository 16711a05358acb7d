#!/usr/bin/env python3
"""The README shows what ibfsim prints: its quickstart block equals a run of the quickstart (paths and
wall time aside), and the cc_victim and perftest figures it quotes are what those runs give.

check_readme_figures.py IBFSIM SOURCE_DIR OUT_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys


def run(ibfsim, src, out, scenario, *sets):
    args = [ibfsim, "run", scenario, "-o", out] + [a for s in sets for a in ("--set", s)]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run(args, cwd=src, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def comparable(lines):
    # Where the results went and how long it took differ from machine to machine.
    return [l for l in lines if not re.match(r"(results|report|wall time): ", l)]


def main():
    ibfsim, src, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)  # a run into an earlier run's folder says so
    readme = open(os.path.join(src, "README.md")).read()
    failures = []

    m = re.search(r"```\n\$ \./build/ibfsim run scenarios/quickstart\.yaml\n(.*?)```", readme, re.S)
    if not m:
        sys.exit("README.md: no block starting '$ ./build/ibfsim run scenarios/quickstart.yaml'")
    shown = comparable(m.group(1).splitlines())
    printed = comparable(run(ibfsim, src, os.path.join(out, "quickstart"), "scenarios/quickstart.yaml").splitlines())
    if shown != printed:
        failures.append("README.md quickstart block:\n  shown:   " + "\n           ".join(shown) +
                        "\n  printed: " + "\n           ".join(printed))

    def victim(cc):
        d = os.path.join(out, "cc_" + cc)
        run(ibfsim, src, d, "scenarios/cc_victim.yaml", "congestion_control.enabled=" + cc)
        flows = json.load(open(os.path.join(d, "results.json")))["flows"]
        return next(f["throughput"] for f in flows if f["name"] == "victim")

    off, on = victim("false"), victim("true")
    fair = off["offered_payload_gbps"]
    text = (f"flow at {round(100 * off['accepted_payload_gbps'] / fair)}% of its fair share without, "
            f"{off['accepted_payload_gbps']:.2f} of the {fair:.2f} Gb/s it offers, and "
            f"{round(100 * on['accepted_payload_gbps'] / fair)}% with, {on['accepted_payload_gbps']:.2f}")
    if text not in " ".join(readme.split()):
        failures.append("README.md: expected the cc_victim sentence to read '" + text + "'")

    bw = re.search(r"BW average ([0-9.]+) Gb/s", run(ibfsim, src, os.path.join(out, "bw"), "scenarios/perftest_write_bw.yaml"))
    lat = re.search(r"t_typical ([0-9.]+) us", run(ibfsim, src, os.path.join(out, "lat"), "scenarios/perftest_write_lat.yaml"))
    text = f"({bw.group(1)} Gb/s and {float(lat.group(1)):.3f} us on"
    if text not in " ".join(readme.split()):
        failures.append("README.md: expected the perftest figures to read '" + text + "'")

    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
