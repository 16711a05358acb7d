#!/usr/bin/env python3
"""An executable description of what OpenSM 3.3 does, checked against the golden data.

Usage: scripts/opensm_model.py [GOLDEN_DIR]   (default tests/subnet_manager/golden)

For every run under GOLDEN_DIR/<topology>/<run>/ it predicts, from topology.net alone,
  * the LIDs in guid2lid (every run, whatever the routing engine), and
  * for runs with routing_engine minhop or dor, every entry of opensm-lfts.dump,
using the rules below, and prints how many predictions differ (exit 1 if any does). The rules are
what the golden data shows; they are written down in tests/subnet_manager/golden/README.md, and
are meant as the specification ibfsim's subnet manager follows.

LIDs (reassign from scratch, every port starting at LID 0):
  1. The SM's own port first, then every other port in "GUID table order": ascending port GUID
     compared as a little-endian number, i.e. byte-reversed (OpenSM keys its port table by the
     GUID in network byte order and compares the keys as host integers on x86-64).
  2. A running cursor starts at 1. An HCA port takes the next 2^LMC LIDs aligned to 2^LMC at or
     after the cursor; a switch port 0 takes exactly one LID (lmc_esp0 FALSE), unaligned. The
     cursor moves past what was taken; holes left by alignment are never filled.

minhop / dor forwarding tables, per switch S independently:
  1. Destinations: for LID offset i = 0 .. 2^LMC-1 (outer loop), every HCA port in GUID table
     order (its LID base + i); then every switch LID (offset 0 only), in GUID table order.
  2. S's own LID -> port 0. Otherwise the candidates are S's cabled ports leading one hop closer
     to the destination (the HCA itself, or a switch nearer to the destination's switch).
  3. dor: the lowest-numbered candidate.
     minhop: with LMC > 0 and an HCA destination, keep only the candidates whose neighbour switch
     has been used the fewest times so far by this destination port's lower LIDs at S; then take
     the candidate with the fewest HCA LIDs routed through it so far at S, ties to the lowest
     port number. Routing an HCA LID adds one to its port's count; switch LIDs count nothing.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_opensm_golden as chk  # noqa: E402  (parsers)


def guid_order_key(guid):
    return int.from_bytes(guid.to_bytes(8, "big"), "little")


def all_ports(nodes):
    """(port guid, node name, port number): switch port 0, every cabled HCA port."""
    out = []
    for name, n in nodes.items():
        if n["type"] == "switch":
            out.append((n["guid"], name, 0))
        else:
            out.extend((n["guid"] + p, name, p) for p in sorted(n["links"]))
    return out


def predict_lids(nodes, sm_host, lmc):
    ports = all_ports(nodes)
    sm = next(t for t in ports if t[1] == sm_host)
    order = [sm] + sorted((t for t in ports if t != sm), key=lambda t: guid_order_key(t[0]))
    lids, cursor = {}, 1
    for guid, name, _ in order:
        size = 1 if nodes[name]["type"] == "switch" else 1 << lmc
        base = (cursor + size - 1) // size * size
        lids[guid] = (base, base + size - 1)
        cursor = base + size
    return lids


def switch_distances(nodes):
    dist = {}
    for s, n in nodes.items():
        if n["type"] != "switch":
            continue
        d = {s: 0}
        q = collections.deque([s])
        while q:
            u = q.popleft()
            for peer, _ in nodes[u]["links"].values():
                if nodes[peer]["type"] == "switch" and peer not in d:
                    d[peer] = d[u] + 1
                    q.append(peer)
        dist[s] = d
    return dist


def predict_lfts(nodes, lids, lmc, dor):
    """switch guid -> {lid: port}."""
    dist = switch_distances(nodes)
    ports = all_ports(nodes)
    is_sw = lambda name: nodes[name]["type"] == "switch"  # noqa: E731
    cas = sorted((t for t in ports if not is_sw(t[1])), key=lambda t: guid_order_key(t[0]))
    sws = sorted((t for t in ports if is_sw(t[1])), key=lambda t: guid_order_key(t[0]))
    seq = [(t, i) for i in range(1 << lmc) for t in cas] + [(t, 0) for t in sws]
    out = {}
    for s, sn in nodes.items():
        if sn["type"] != "switch":
            continue
        lft, count, used = {}, collections.Counter(), collections.defaultdict(list)
        for (guid, name, p), i in seq:
            lid = lids[guid][0] + i
            if name == s:
                lft[lid] = 0
                continue
            target = name if is_sw(name) else nodes[name]["links"][p][0]
            cands = []
            for port, (peer, pp) in sorted(sn["links"].items()):
                if not is_sw(peer):
                    if (peer, pp) == (name, p):
                        cands.append(port)
                elif target != s and dist[peer].get(target, -9) == dist[s].get(target, -1) - 1:
                    cands.append(port)
            if not cands:
                continue  # unreachable: no entry
            if dor:
                best = cands[0]
            else:
                pool = cands
                if lmc and not is_sw(name):
                    uses = {q: used[guid].count(sn["links"][q][0]) for q in cands}
                    pool = [q for q in cands if uses[q] == min(uses.values())]
                best = min(pool, key=lambda q: (count[q], q))
                if not is_sw(name):
                    used[guid].append(sn["links"][best][0])
            if not is_sw(name):
                count[best] += 1
            lft[lid] = best
        out[sn["guid"]] = lft
    return out


def conf_value(path, key, default=None):
    for line in open(path):
        f = line.split()
        if len(f) >= 2 and f[0] == key:
            return f[1]
    return default


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "subnet_manager", "golden")
    failures = 0
    for topo in sorted(os.listdir(root)):
        net = os.path.join(root, topo, "topology.net")
        if not os.path.isfile(net):
            continue
        nodes = chk.parse_net(net)
        for run in sorted(os.listdir(os.path.join(root, topo))):
            rundir = os.path.join(root, topo, run)
            if not os.path.isfile(os.path.join(rundir, "opensm.conf")):
                continue
            engine = conf_value(os.path.join(rundir, "opensm.conf"), "routing_engine")
            lmc = int(conf_value(os.path.join(rundir, "opensm.conf"), "lmc", "0"))
            sm_host = re.search(r"SIM_HOST=(\S+)", open(os.path.join(rundir, "command.txt")).read()).group(1)
            got_lids = chk.parse_guid2lid(os.path.join(rundir, "guid2lid"))
            lids = predict_lids(nodes, sm_host, lmc)
            lid_bad = sum(1 for g in lids if got_lids.get(g) != lids[g])
            msg = f"{topo}/{run}: LIDs {len(lids) - lid_bad}/{len(lids)} as predicted"
            bad = lid_bad
            if engine in ("minhop", "dor"):
                got, _ = chk.parse_lfts(os.path.join(rundir, "opensm-lfts.dump"))
                want = predict_lfts(nodes, lids, lmc, engine == "dor")
                total = sum(len(t) for t in got.values())
                lft_bad = sum(1 for g in set(got) | set(want)
                              for lid in set(got.get(g, {})) | set(want.get(g, {}))
                              if got.get(g, {}).get(lid) != want.get(g, {}).get(lid))
                msg += f", LFT entries {total - lft_bad}/{total} as predicted"
                bad += lft_bad
            print(("ok   " if not bad else "DIFF ") + msg)
            failures += bad != 0
    if failures:
        print(f"{failures} runs differ from the model")
        sys.exit(1)


if __name__ == "__main__":
    main()
