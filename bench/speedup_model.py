#!/usr/bin/env python3
"""The speedup model of docs/scale.md, from scale_bench's lines.

    build/bench/scale_bench --hosts 128,2048 --threads 1,2 | bench/speedup_model.py [--threads 16] [--ranks 4]

Reads the `key=value` lines scale_bench prints (the one-thread line of each fabric gives A and c,
the two-partition line, if any, the share of actions that cross a cut) and prints, per fabric,
the predicted speedup on T threads and on R ranks of T threads, and the wall time of one
simulated millisecond. The assumptions (docs/scale.md, "What it predicts") are flags.
"""
import argparse
import math
import sys


def parse(line):
    return {k: float(v) for k, v in (f.split("=", 1) for f in line.split() if "=" in f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=16, help="threads per machine (16)")
    ap.add_argument("--ranks", type=int, default=4, help="MPI ranks, one per machine (4)")
    ap.add_argument("--imbalance", type=float, default=0.1, help="largest partition's work over the mean, less 1 (0.1)")
    ap.add_argument("--barrier-us", type=float, default=1.0, help="handover of a window to the threads (1 us)")
    ap.add_argument("--crossing-cost", type=float, default=0.05, help="a crossing's cost at the barrier, in actions (0.05, profiled)")
    ap.add_argument("--alpha-us", type=float, default=2.0, help="one small-message step between machines (2 us)")
    ap.add_argument("--collectives", type=int, default=5, help="collective steps per window across ranks (5)")
    ap.add_argument("--gbytes-per-s", type=float, default=10.0, help="network bandwidth between machines (10 GB/s)")
    ap.add_argument("--windows-per-us", type=float, default=67.0, help="windows per simulated microsecond (67)")
    ap.add_argument("--packet-bytes", type=float, default=2150.0, help="bytes of a packet's head event across ranks")
    a = ap.parse_args()

    fabrics = {}
    for line in sys.stdin:
        if not line.startswith("hosts="):
            continue
        f = parse(line)
        one = fabrics.setdefault(int(f["hosts"]), {})
        if f.get("threads") == 1 and f.get("ranks", 1) == 1:
            one["A"], one["c"] = f["actions_per_window"], f["ns_per_action"] / 1000.0
        elif f.get("crossings_per_window", 0) > 0 and f.get("threads", 1) * f.get("ranks", 1) == 2:
            one["s2"] = f["crossings_per_window"] / f["actions_per_window"]
    if not fabrics:
        sys.exit("speedup_model.py: no scale_bench line (hosts=...) on standard input")

    T, R = a.threads, a.ranks
    print(f"hosts  work_us_per_window  S({T})  S({T})_parallel_drain  S({R}x{T})  ms_1core_s  ms_{T}_s  ms_{R}x{T}_s")
    for hosts, f in sorted(fabrics.items()):
        if "A" not in f:
            print(f"{hosts}: no one-thread line", file=sys.stderr)
            continue
        A, c = f["A"], f["c"]
        s2 = f.get("s2", 0.12)  # the share crossing a two-way cut
        share = lambda P: 2 * s2 * (P - 1) / P  # a packet crosses when its spine is elsewhere
        work = c * A
        cx = a.crossing_cost * c
        t_threads = work * (1 + a.imbalance) / T + share(T) * A * cx + a.barrier_us
        t_parallel = work * (1 + a.imbalance) / T + share(T) * A * cx / T + a.barrier_us
        P = R * T
        crossings = share(P) * A
        remote = crossings * (R - 1) / R
        bytes_per_rank = remote * (a.packet_bytes + 2 * 50) / 3 / R
        t_ranks = (work * (1 + a.imbalance) / P + crossings * cx / R + a.barrier_us
                   + a.collectives * a.alpha_us * math.ceil(math.log2(R)) + bytes_per_rank / (a.gbytes_per_s * 1e3))
        per_ms = a.windows_per_us * 1000 / 1e6  # windows per ms, us -> s
        print(f"{hosts}  {work:.1f}  {work / t_threads:.1f}  {work / t_parallel:.1f}  {work / t_ranks:.1f}  "
              f"{work * per_ms:.2f}  {t_threads * per_ms:.2f}  {t_ranks * per_ms:.2f}")


if __name__ == "__main__":
    main()
