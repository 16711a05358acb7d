#!/usr/bin/env python3
"""OTF2 trace replay, end to end: scripts/make_otf2_trace.py writes a trace of 6 ranks (3 rounds of
compute, a ring of blocking sends and receives, compute, an allreduce of 64 KiB) with what it holds
(expect.json); `ibfsim run` replays it on two switches, InfiniBand and then RoCE v2 (`fabric: roce`,
100GbE), and the results of each must show:
  * every message delivered: per rank, the trace's point-to-point messages and bytes sent and
    received exactly; the allreduces' ring pieces all there (2(n-1) per rank per allreduce, and
    2(n-1) x 64 KiB bytes over all ranks per allreduce); no error completion; every step done;
  * every compute gap reproduced exactly: in trace_steps.csv, each step's posted time minus the
    previous step's completion is its gap, and each call's gap is the trace's, to the femtosecond.
Then the errors: a trace with an MPI_Isend, and a missing trace, are refused (exit 2) with the
scenario's file, line and column and what was expected.
Skipped (exit 77) without python3-otf2.

    trace_replay_test.py IBFSIM SOURCE_DIR OUT_DIR
"""
import csv
import json
import os
import shutil
import subprocess
import sys

RANKS, ROUNDS, ALLREDUCE = 6, 3, 65536


def check_run(run_dir, expect, failures, fabric):
    """The checks of one replay's results; returns the gaps checked."""
    def check(cond, what):
        if not cond:
            failures.append(f"{fabric}: {what}")

    results = json.load(open(os.path.join(run_dir, "results.json")))
    tr = results["trace_replay"]
    pieces = RANKS * 2 * (RANKS - 1) * ROUNDS  # the allreduces' ring messages
    p2p = sum(e["sent"] for e in expect)
    check(tr["done"] == 1, "the replay is done")
    check(tr["messages_sent"] == p2p + pieces, f"messages sent {tr['messages_sent']} == {p2p} + {pieces}")
    check(tr["messages_received"] == tr["messages_sent"], "every message sent was received")
    check(tr["error_completions"] == 0, "no error completion")
    check(tr["bytes_sent"] == sum(e["bytes_sent"] for e in expect) + ROUNDS * 2 * (RANKS - 1) * ALLREDUCE,
          f"bytes sent {tr['bytes_sent']}")
    check(tr["bytes_received"] == tr["bytes_sent"], "bytes received == bytes sent")

    with open(os.path.join(run_dir, "trace_ranks.csv")) as f:
        ranks = list(csv.DictReader(f))
    check(len(ranks) == RANKS, f"{len(ranks)} rows in trace_ranks.csv")
    for row in ranks:
        r, e = int(row["rank"]), expect[int(row["rank"])]
        for col, want in (("point_to_point_sent", e["sent"]), ("point_to_point_bytes_sent", e["bytes_sent"]),
                          ("point_to_point_received", e["received"]),
                          ("point_to_point_bytes_received", e["bytes_received"]),
                          ("messages_sent", e["sent"] + 2 * (RANKS - 1) * e["collectives"]),
                          ("messages_received", e["received"] + 2 * (RANKS - 1) * e["collectives"])):
            check(int(row[col]) == want, f"rank {r}: {col} {row[col]} == {want}")

    with open(os.path.join(run_dir, "trace_steps.csv")) as f:
        steps = list(csv.DictReader(f))
    by_rank = {}
    for row in steps:
        by_rank.setdefault(int(row["rank"]), []).append(row)
    gaps_checked = 0
    for r in range(RANKS):
        rows = sorted(by_rank.get(r, []), key=lambda x: int(x["step"]))
        # 3 calls a round: 2 ring steps and an allreduce of 2(n-1) steps.
        check(len(rows) == ROUNDS * (2 + 2 * (RANKS - 1)), f"rank {r}: {len(rows)} steps")
        previous_end, seen_calls = 0, set()
        for row in rows:
            posted, completed, gap = int(row["posted_fs"]), int(row["completed_fs"]), int(row["gap_fs"])
            call = int(row["call"])
            check(completed >= posted > 0 or (posted == 0 and gap == 0), f"rank {r} step {row['step']} ran")
            check(posted - previous_end == gap,
                  f"rank {r} step {row['step']}: posted {posted} - previous completion {previous_end} == gap {gap}")
            if call not in seen_calls:
                seen_calls.add(call)
                check(gap == expect[r]["gaps_fs"][call],
                      f"rank {r} call {call}: gap {gap} fs == the trace's {expect[r]['gaps_fs'][call]}")
                gaps_checked += 1
            previous_end = completed
    check(gaps_checked == sum(len(e["gaps_fs"]) for e in expect), f"{gaps_checked} gaps checked")
    return gaps_checked



def main():
    ibfsim, src, out = sys.argv[1:4]
    try:
        import otf2  # noqa: F401
    except ImportError:
        print("python3-otf2 is not installed: skipped")
        return 77
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    make = os.path.join(src, "scripts", "make_otf2_trace.py")
    trace_dir, expect_path = os.path.join(out, "trace"), os.path.join(out, "expect.json")
    subprocess.run([sys.executable, make, trace_dir, "--ranks", str(RANKS), "--iterations", str(ROUNDS),
                    "--expect", expect_path], check=True)
    expect = json.load(open(expect_path))["ranks"]
    topology = os.path.join(src, "topologies", "two_switches.yaml")

    def scenario(name, trace_file, extra=""):
        path = os.path.join(out, name + ".yaml")
        with open(path, "w") as f:
            f.write(f"topology: {topology}\nseed: 1\ntrace:\n  file: {trace_file}\n  placement: linear\n"
                    "phases: {limit: 10ms}\n" + extra)
        return path

    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    failures = []
    gaps_checked = 0
    for fabric, extra in (("infiniband", ""), ("roce", "fabric: roce\nroce: {speed: 100GbE}\n")):
        run_dir = os.path.join(out, "run" if fabric == "infiniband" else "run_" + fabric)
        r = subprocess.run([ibfsim, "run", scenario("replay_" + fabric, os.path.join(trace_dir, "traces.otf2"), extra),
                            "-o", run_dir], capture_output=True, text=True, env=env)
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        assert r.returncode == 0, f"ibfsim run ({fabric}) exited {r.returncode}"
        gaps_checked += check_run(run_dir, expect, failures, fabric)

    def check(cond, what):
        if not cond:
            failures.append(what)

    # Errors: located in the scenario, exit 2.
    bad_dir = os.path.join(out, "nonblocking")
    subprocess.run([sys.executable, make, bad_dir, "--ranks", "2", "--iterations", "1", "--nonblocking"], check=True)
    for name, trace_file, want in (
            ("nonblocking", os.path.join(bad_dir, "traces.otf2"),
             "rank 0: an MpiIsend record; non-blocking MPI calls are not supported"),
            ("missing", os.path.join(out, "nothing.otf2"), "(no such file)")):
        path = scenario(name, trace_file)
        b = subprocess.run([ibfsim, "run", path, "-o", os.path.join(out, name + "_run")], capture_output=True,
                           text=True, env=env)
        check(b.returncode == 2, f"{name}: exit {b.returncode} == 2")
        check(f"{path}:4:" in b.stderr and want in b.stderr, f"{name}: message {b.stderr.strip()!r} names {path}:4: "
              f"and {want!r}")

    for f in failures:
        print("FAILED:", f)
    print(f"{len(failures)} failures; {gaps_checked} gaps checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
