#!/usr/bin/env python3
"""The table of ready-made topologies in topologies/README.md says what `ibfsim topo` says: for
every row, the file exists and its hosts, switches and cables are topo's counts, and a row that
calls its fabric "full bisection" or "oversubscribed" agrees with topo's bisection (1.00 of full
bisection, or less).

Usage: check_presets.py IBFSIM REPO_ROOT
"""
import os
import re
import subprocess
import sys


def rows(readme):
    text = open(readme, encoding="utf-8").read()
    section = text.split("## Ready-made files", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[0].endswith(".yaml`"):
            yield cells[0].strip("`"), cells[1], *(int(c.replace(",", "")) for c in cells[2:])


def main():
    ibfsim, root = sys.argv[1], os.path.abspath(sys.argv[2])
    problems, checked = [], 0
    for name, what, hosts, switches, cables in rows(os.path.join(root, "topologies", "README.md")):
        path = os.path.join(root, "topologies", name)
        if not os.path.exists(path):
            problems.append(f"{name}: no such file")
            continue
        out = subprocess.run([ibfsim, "topo", path], capture_output=True, text=True,
                             env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"}).stdout
        got = {
            "hosts": int(re.search(r"^hosts: (\d+)", out, re.M).group(1)),
            "switches": int(re.search(r"^switches: (\d+)", out, re.M).group(1)),
            "cables": int(re.search(r"^cables: (\d+)", out, re.M).group(1)),
        }
        for key, want in (("hosts", hosts), ("switches", switches), ("cables", cables)):
            if got[key] != want:
                problems.append(f"{name}: the table says {want} {key}, topo {got[key]}")
        full = re.search(r"([\d.]+) of full bisection", out)
        if "full bisection" in what and not (full and float(full.group(1)) == 1.0):
            problems.append(f"{name}: the table says full bisection, topo: {full.group(0) if full else 'no fraction'}")
        if "oversubscribed" in what and not (full and float(full.group(1)) < 1.0):
            problems.append(f"{name}: the table says oversubscribed, topo: {full.group(0) if full else 'no fraction'}")
        checked += 1
    for p in problems:
        print(p)
    print(f"{checked} ready-made topologies checked, {len(problems)} problems")
    return 1 if problems or checked < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
