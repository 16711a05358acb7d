#!/usr/bin/env python3
"""OTF2 trace replay, end to end: scripts/make_otf2_trace.py writes a trace of 6 ranks (3 rounds of
compute, a ring of blocking sends and receives, compute, an allreduce of 64 KiB) with what it holds
(expect.json), and the same with the ring as non-blocking calls (MPI_Irecv, MPI_Isend, compute,
MPI_Waitall) and one more allreduce a round over a sub-communicator (the ranks of one parity);
`ibfsim run` replays each on two switches, InfiniBand and then RoCE v2 (`fabric: roce`, 100GbE),
and the results of each must show:
  * every message delivered: per rank, the trace's point-to-point messages and bytes sent and
    received exactly; the allreduces' ring pieces all there (2(m-1) per rank per allreduce over m
    ranks, and 2(m-1) x its bytes over all ranks); no error completion; every step done;
  * every compute gap reproduced exactly: in trace_steps.csv, each step's posted time minus the
    previous step's completion is its gap, and each call's gap is the trace's, to the femtosecond;
  * non-blocking calls do not wait: an MPI_Irecv's and an MPI_Isend's steps complete when they
    post, and the first round's MPI_Waitall waits for the receive's message.
Then the errors: a trace with a cancelled request, and a missing trace, are refused (exit 2) with
the scenario's file, line and column and what was expected.
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


FABRICS = (("infiniband", ""), ("roce", "fabric: roce\nroce: {speed: 100GbE}\n"))


def replay(pattern, fabric, make, scenario, ibfsim, env, out, check0):
    """Writes the trace of `pattern`, replays it on `fabric` and checks the results; returns the gaps
    checked."""
    nonblocking = pattern == "nonblocking"
    name = f"{pattern}_{fabric}"

    def check(cond, what):
        check0(cond, f"{fabric}: {what}")

    trace_dir, expect_path = os.path.join(out, pattern), os.path.join(out, pattern + "_expect.json")
    if not os.path.exists(expect_path):
        subprocess.run([sys.executable, make, trace_dir, "--ranks", str(RANKS), "--iterations", str(ROUNDS),
                        "--expect", expect_path] + (["--nonblocking", "--split"] if nonblocking else []), check=True)
    whole = json.load(open(expect_path))
    expect = whole["ranks"]
    run_dir = os.path.join(out, name + "_run")
    r = subprocess.run([ibfsim, "run", scenario(name, os.path.join(trace_dir, "traces.otf2"), dict(FABRICS)[fabric]),
                        "-o", run_dir], capture_output=True, text=True, env=env)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    assert r.returncode == 0, f"{name}: ibfsim run exited {r.returncode}"

    results = json.load(open(os.path.join(run_dir, "results.json")))
    tr = results["trace_replay"]
    pieces = sum(e["collective_messages"] for e in expect)  # the allreduces' ring messages
    check(pieces == RANKS * ROUNDS * (2 * (RANKS - 1) + (2 * (RANKS // 2 - 1) if nonblocking else 0)),
          f"{pattern}: {pieces} pieces planned")
    p2p = sum(e["sent"] for e in expect)
    check(tr["done"] == 1, f"{pattern}: the replay is done")
    check(tr["messages_sent"] == p2p + pieces, f"{pattern}: messages sent {tr['messages_sent']} == {p2p} + {pieces}")
    check(tr["messages_received"] == tr["messages_sent"], f"{pattern}: every message sent was received")
    check(tr["error_completions"] == 0, f"{pattern}: no error completion")
    check(tr["bytes_sent"] == sum(e["bytes_sent"] for e in expect) + whole["collective_bytes"],
          f"{pattern}: bytes sent {tr['bytes_sent']}")
    check(whole["collective_bytes"] == ROUNDS * 2 * (RANKS - 1) * ALLREDUCE + (ROUNDS * 2 * 2 * 2 * 4096 if nonblocking
                                                                              else 0), f"{pattern}: collective bytes")
    check(tr["bytes_received"] == tr["bytes_sent"], f"{pattern}: bytes received == bytes sent")

    with open(os.path.join(run_dir, "trace_ranks.csv")) as f:
        ranks = list(csv.DictReader(f))
    check(len(ranks) == RANKS, f"{pattern}: {len(ranks)} rows in trace_ranks.csv")
    for row in ranks:
        r, e = int(row["rank"]), expect[int(row["rank"])]
        for col, want in (("point_to_point_sent", e["sent"]), ("point_to_point_bytes_sent", e["bytes_sent"]),
                          ("point_to_point_received", e["received"]),
                          ("point_to_point_bytes_received", e["bytes_received"]),
                          ("messages_sent", e["sent"] + e["collective_messages"]),
                          ("messages_received", e["received"] + e["collective_messages"])):
            check(int(row[col]) == want, f"{pattern}: rank {r}: {col} {row[col]} == {want}")

    with open(os.path.join(run_dir, "trace_steps.csv")) as f:
        steps = list(csv.DictReader(f))
    by_rank = {}
    for row in steps:
        by_rank.setdefault(int(row["rank"]), []).append(row)
    # Calls of a round's ring: a send and a receive, or an MPI_Irecv, an MPI_Isend and the
    # MPI_Waitall's two completions; then the allreduce, 2(n-1) steps, and with the split the
    # half's, 2(3-1).
    ring_calls = 4 if nonblocking else 2
    split_steps = 2 * (RANKS // 2 - 1) if nonblocking else 0
    gaps_checked = 0
    for r in range(RANKS):
        rows = sorted(by_rank.get(r, []), key=lambda x: int(x["step"]))
        check(len(rows) == ROUNDS * (ring_calls + 2 * (RANKS - 1) + split_steps), f"{pattern}: rank {r}: {len(rows)} steps")
        previous_end, seen_calls = 0, set()
        for row in rows:
            posted, completed, gap = int(row["posted_fs"]), int(row["completed_fs"]), int(row["gap_fs"])
            call = int(row["call"])
            check(completed >= posted > 0 or (posted == 0 and gap == 0), f"{pattern}: rank {r} step {row['step']} ran")
            check(posted - previous_end == gap, f"{pattern}: rank {r} step {row['step']}: posted {posted} - previous "
                  f"completion {previous_end} == gap {gap}")
            if call not in seen_calls:
                seen_calls.add(call)
                check(gap == expect[r]["gaps_fs"][call],
                      f"{pattern}: rank {r} call {call}: gap {gap} fs == the trace's {expect[r]['gaps_fs'][call]}")
                gaps_checked += 1
                in_round = call % (ring_calls + (2 if nonblocking else 1))
                if nonblocking and in_round in (0, 1):  # MPI_Irecv, MPI_Isend: nothing to wait for
                    check(completed == posted, f"{pattern}: rank {r} call {call} completes as it posts")
                if nonblocking and call == 2:
                    # The first round's receive completion: its message, posted by the neighbour as
                    # the round starts, is still on its way (later rounds' may be in already).
                    check(completed > posted, f"{pattern}: rank {r} call {call} waits for its message")
            previous_end = completed
    check(gaps_checked == sum(len(e["gaps_fs"]) for e in expect), f"{pattern}: {gaps_checked} gaps checked")
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
    topology = os.path.join(src, "topologies", "two_switches.yaml")

    def scenario(name, trace_file, extra=""):
        path = os.path.join(out, name + ".yaml")
        with open(path, "w") as f:
            f.write(f"topology: {topology}\nseed: 1\ntrace:\n  file: {trace_file}\n  placement: linear\n"
                    "phases: {limit: 10ms}\n" + extra)
        return path

    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    gaps_checked = sum(replay(p, f, make, scenario, ibfsim, env, out, check)
                       for p in ("blocking", "nonblocking") for f, _ in FABRICS)

    # Errors: located in the scenario, exit 2.
    bad_dir = os.path.join(out, "cancelled")
    subprocess.run([sys.executable, make, bad_dir, "--ranks", "2", "--iterations", "1", "--nonblocking", "--cancel"],
                   check=True)
    for name, trace_file, want in (
            ("cancelled", os.path.join(bad_dir, "traces.otf2"),
             "rank 0: request 1 is cancelled (MpiRequestCancelled); a replay cannot cancel a message"),
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
