#!/usr/bin/env python3
"""Writes a small MPI trace in OTF2 (python3-otf2) for ibfsim's trace replay.

Every rank of a ring runs `--iterations` rounds of: compute, a blocking send to the next rank and a
receive from the previous one (even ranks send first, odd ranks receive first, as a ring without
deadlock does), compute again, then an MPI_Allreduce over all ranks. With --nonblocking the ring
is a halo exchange instead: MPI_Irecv from the previous rank, MPI_Isend to the next, compute
overlapping them, then MPI_Waitall completing both (the receive's MpiIrecv, then the send's
MpiIsendComplete, in the one region). With --split each round ends with one more MPI_Allreduce, of
4 KiB, over a sub-communicator: the even ranks, or the odd ones (as MPI_Comm_split by parity). Compute gaps differ per rank
and round so that a replay that mixes them up is seen. The clock runs at --resolution ticks per
second and starts at a large offset, so that a reader must apply both.

It also writes (--expect FILE, JSON) what the trace holds, for the replay test to compare with:
per rank its messages and bytes sent and received, its collectives, and its compute gaps in
femtoseconds (the time from one MPI call's end to the next one's start; the first from main's
start, the trace's start).

    scripts/make_otf2_trace.py OUT_DIR [--ranks 4] [--iterations 2] [--nonblocking [--cancel]]
                               [--split] [--expect expect.json]
The archive is OUT_DIR/traces.otf2 (with OUT_DIR/traces/ and OUT_DIR/traces.def).
"""
import argparse
import json
import os
import shutil
import sys

try:
    import otf2
    from otf2.enums import GroupType, Paradigm, RegionRole, LocationType, LocationGroupType, CollectiveOp
except ImportError:
    print("make_otf2_trace.py: python3-otf2 is not installed", file=sys.stderr)
    sys.exit(77)

FS_PER_S = 10**15


def plan(ranks, iterations, nonblocking=False, split=False):
    """Per rank, its calls in order: (gap in ticks before the call, call, its duration in ticks)."""
    calls = []
    for r in range(ranks):
        seq = []
        right, left = (r + 1) % ranks, (r - 1) % ranks
        for it in range(iterations):
            size = 4096 * (it + 1) + 64 * r  # bytes of this round's ring message from r
            left_size = 4096 * (it + 1) + 64 * left
            gap = 2000 + 300 * r + 700 * it  # ticks of compute before the ring
            if nonblocking:
                seq.append((gap, ("irecv", left, left_size), 300))
                seq.append((150 + 10 * r, ("isend", right, size), 300))
                seq.append((800 + 40 * r, ("waitall",), 900))
            else:
                ring = [("send", right, size), ("recv", left, left_size)]
                if r % 2:
                    ring.reverse()
                seq.append((gap, ring[0], 900))
                seq.append((150 + 10 * r, ring[1], 900))
            seq.append((5000 + 250 * r, ("allreduce", 65536), 2500))
            if split:
                seq.append((400 + 20 * r, ("allreduce_half", 4096), 1200))
        calls.append(seq)
    return calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--resolution", type=int, default=2 * 10**9, help="timer ticks per second")
    ap.add_argument("--offset", type=int, default=7 * 10**12, help="the clock's value at the trace's start")
    ap.add_argument("--expect", help="write what the trace holds (JSON) here")
    ap.add_argument("--nonblocking", action="store_true",
                    help="the ring as MPI_Irecv, MPI_Isend, compute, MPI_Waitall")
    ap.add_argument("--split", action="store_true",
                    help="one more allreduce a round over the ranks of the same parity (a sub-communicator)")
    ap.add_argument("--cancel", action="store_true",
                    help="with --nonblocking, rank 0 cancels its first receive (a replay refuses it: for testing "
                         "that error)")
    a = ap.parse_args()
    if a.ranks < 2:
        ap.error("--ranks must be at least 2")
    if os.path.isdir(os.path.join(a.out_dir, "traces")):
        shutil.rmtree(os.path.join(a.out_dir, "traces"))
    for f in ("traces.otf2", "traces.def"):
        if os.path.exists(os.path.join(a.out_dir, f)):
            os.remove(os.path.join(a.out_dir, f))
    calls = plan(a.ranks, a.iterations, a.nonblocking, a.split)
    fs_per_tick = FS_PER_S // a.resolution
    assert fs_per_tick * a.resolution == FS_PER_S, "--resolution must divide 10^15"

    # Over all ranks: the bytes the collectives' ring pieces carry (an allreduce of B bytes over m
    # ranks sends 2(m-1) x B, whatever the chunks' remainders).
    expect = {"ranks": [], "collective_bytes": 0}
    with otf2.writer.open(a.out_dir, timer_resolution=a.resolution) as trace:
        defs = trace.definitions
        node = defs.system_tree_node("cluster")
        regions = {n: defs.region(n, region_role=role, paradigm=Paradigm.MPI) for n, role in
                   (("MPI_Send", RegionRole.POINT2POINT), ("MPI_Recv", RegionRole.POINT2POINT),
                    ("MPI_Isend", RegionRole.POINT2POINT), ("MPI_Irecv", RegionRole.POINT2POINT),
                    ("MPI_Waitall", RegionRole.POINT2POINT), ("MPI_Cancel", RegionRole.POINT2POINT),
                    ("MPI_Allreduce", RegionRole.COLL_ALL2ALL))}
        main_region = defs.region("main", region_role=RegionRole.FUNCTION)
        locations = []
        for r in range(a.ranks):
            group = defs.location_group(f"MPI Rank {r}", location_group_type=LocationGroupType.PROCESS,
                                        system_tree_parent=node)
            locations.append(defs.location(f"rank {r} main thread", type=LocationType.CPU_THREAD, group=group))
        defs.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
                   paradigm=Paradigm.MPI, members=locations)
        world_group = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                 members=list(range(a.ranks)))
        world = defs.comm("MPI_COMM_WORLD", group=world_group)
        halves = []
        for parity in (0, 1):
            members = list(range(parity, a.ranks, 2))
            group = defs.group(f"MPI_COMM_WORLD split {parity}", group_type=GroupType.COMM_GROUP,
                               paradigm=Paradigm.MPI, members=members)
            halves.append((defs.comm(f"half {parity}", group=group, parent=world), len(members)))

        for r in range(a.ranks):
            w = trace.event_writer_from_location(locations[r])
            t = a.offset
            # main's Enter at the clock's start on every rank: the trace's global offset, from which
            # each rank's first compute gap counts.
            w.enter(t, main_region)
            e = {"sent": 0, "bytes_sent": 0, "received": 0, "bytes_received": 0,
                 "collectives": 0, "collective_messages": 0, "gaps_fs": []}
            pending, next_request = [], 1  # non-blocking requests posted and not yet waited for
            for gap, call, dur in calls[r]:
                t += gap
                e["gaps_fs"].append(gap * fs_per_tick)
                if call[0] == "allreduce":
                    w.enter(t, regions["MPI_Allreduce"])
                    w.mpi_collective_begin(t + 5)
                    w.mpi_collective_end(t + dur - 5, CollectiveOp.ALLREDUCE, world, otf2.Undefined.UINT32,
                                         call[1], call[1])
                    w.leave(t + dur, regions["MPI_Allreduce"])
                    e["collectives"] += 1
                    e["collective_messages"] += 2 * (a.ranks - 1)
                    if r == 0:
                        expect["collective_bytes"] += 2 * (a.ranks - 1) * call[1]
                elif call[0] == "allreduce_half":
                    comm, size = halves[r % 2]
                    w.enter(t, regions["MPI_Allreduce"])
                    w.mpi_collective_begin(t + 5)
                    w.mpi_collective_end(t + dur - 5, CollectiveOp.ALLREDUCE, comm, otf2.Undefined.UINT32,
                                         call[1], call[1])
                    w.leave(t + dur, regions["MPI_Allreduce"])
                    e["collectives"] += 1
                    e["collective_messages"] += 2 * (size - 1)
                    if r < 2:
                        expect["collective_bytes"] += 2 * (size - 1) * call[1]
                elif call[0] == "irecv":
                    # Request ids are the rank's own, counted from 1.
                    pending.append(("recv", next_request, call))
                    w.enter(t, regions["MPI_Irecv"])
                    w.mpi_irecv_request(t + 5, next_request)
                    w.leave(t + dur, regions["MPI_Irecv"])
                    next_request += 1
                    if a.cancel and r == 0 and e["received"] == 0:
                        t += dur + 50
                        w.enter(t, regions["MPI_Cancel"])
                        w.mpi_request_cancelled(t + 5, next_request - 1)
                        w.leave(t + 20, regions["MPI_Cancel"])
                        dur = 20
                elif call[0] == "isend":
                    pending.append(("send", next_request, call))
                    w.enter(t, regions["MPI_Isend"])
                    w.mpi_isend(t + 5, call[1], world, 7, call[2], next_request)
                    w.leave(t + dur, regions["MPI_Isend"])
                    next_request += 1
                    e["sent"] += 1
                    e["bytes_sent"] += call[2]
                elif call[0] == "waitall":
                    # Both requests complete in the one region: the second call's gap is 0.
                    w.enter(t, regions["MPI_Waitall"])
                    for k, (kind, request, posted) in enumerate(sorted(pending, key=lambda x: x[0] != "recv")):
                        at = t + 100 + 200 * k
                        if kind == "recv":
                            w.mpi_irecv(at, posted[1], world, 7, posted[2], request)
                            e["received"] += 1
                            e["bytes_received"] += posted[2]
                        else:
                            w.mpi_isend_complete(at, request)
                        if k > 0:
                            e["gaps_fs"].append(0)
                    pending = []
                    w.leave(t + dur, regions["MPI_Waitall"])
                elif call[0] == "send":
                    w.enter(t, regions["MPI_Send"])
                    w.mpi_send(t + 5, call[1], world, 7, call[2])
                    w.leave(t + dur, regions["MPI_Send"])
                    e["sent"] += 1
                    e["bytes_sent"] += call[2]
                else:
                    w.enter(t, regions["MPI_Recv"])
                    w.mpi_recv(t + dur - 5, call[1], world, 7, call[2])
                    w.leave(t + dur, regions["MPI_Recv"])
                    e["received"] += 1
                    e["bytes_received"] += call[2]
                t += dur
            w.leave(t + 100, main_region)
            expect["ranks"].append(e)
    if a.expect:
        with open(a.expect, "w") as f:
            json.dump(expect, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
