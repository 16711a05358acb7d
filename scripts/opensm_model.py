#!/usr/bin/env python3
"""An executable description of what OpenSM 3.3 does, checked against the golden data.

Usage: scripts/opensm_model.py [GOLDEN_DIR]   (default tests/subnet_manager/golden)

For every run under GOLDEN_DIR/<topology>/<run>/ it predicts, from topology.net alone,
  * the LIDs in guid2lid (every run, whatever the routing engine), and
  * for runs with routing_engine minhop, dor or updn, every entry of opensm-lfts.dump (and for
    updn the roots, when OpenSM's opensm-updn-roots.dump is there),
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

minhop / dor forwarding tables (osm_ucast_mgr.c, osm_switch_recommend_path), per switch S:
  1. Port order: the HCA ports of each switch, switches taken by number of HCA links (most
     first; ties in switch GUID table order, i.e. ascending byte-reversed node GUID), a switch's
     HCAs by its port number; then every other port (the switches' port 0) in GUID table order.
  2. For LID offset i = 0 .. 2^LMC-1 (outer loop), for every port in that order with a LID
     base + i: S's own LID -> port 0; an HCA on S -> its port. Otherwise the candidates are S's
     ports to a switch one hop nearer the destination's switch (hop counts through switches).
  3. Ports are scanned from `start` cyclically (1, 2, ..., N, wrapping, port 0 skipped), where
     start = 1, except for minhop with i > 0: one past the port chosen for LID base + i - 1.
     minhop, LMC 0: the first scanned candidate with the fewest HCA LIDs routed through it so
       far at S.
     minhop, LMC > 0: if some candidates lead to a neighbour switch that none of this
       destination port's LIDs has used yet at S, the first scanned of those with the fewest
       HCA LIDs; otherwise the fewest HCA LIDs, ties to the candidate whose neighbour carried
       fewer of this destination's LIDs, else the first scanned (recommend() below has the
       exact bookkeeping).
     dor: only the candidates to the neighbour behind the first scanned candidate (parallel
       cables to one switch); the fewest HCA LIDs, ties as for minhop with LMC > 0 but counting
       LIDs per neighbour port, else the first scanned.
  4. Routing an HCA LID adds one to the chosen port's count and to the neighbour's count for
     that destination port; switch LIDs count nothing (port_profile_switch_nodes FALSE).
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


def switches_in_table_order(nodes):
    return sorted((n for n, v in nodes.items() if v["type"] == "switch"),
                  key=lambda n: guid_order_key(nodes[n]["guid"]))


def minhop_hops(nodes):
    """hops[s][target] = {port: hop count to switch target through that port}, as
    osm_ucast_mgr_build_lid_matrices leaves it: 1 + the neighbour's least hops."""
    sws = [n for n, v in nodes.items() if v["type"] == "switch"]
    dist = {}
    for s in sws:
        d = {s: 0}
        q = collections.deque([s])
        while q:
            u = q.popleft()
            for peer, _ in nodes[u]["links"].values():
                if nodes[peer]["type"] == "switch" and peer not in d:
                    d[peer] = d[u] + 1
                    q.append(peer)
        dist[s] = d
    hops = {}
    for s in sws:
        hops[s] = {}
        for t in dist[s]:
            ports = {0: 0} if t == s else {}
            for port, (peer, _) in nodes[s]["links"].items():
                if nodes[peer]["type"] == "switch" and t in dist[peer]:
                    ports[port] = dist[peer][t] + 1
            hops[s][t] = ports
    return hops


def updn_auto_roots(nodes):
    """updn_find_root_nodes_by_min_hop: a switch is a root if, weighting each switch's least hop
    count to every switch holding HCAs by its HCA count, exactly one hop value holds more than 90%
    of the HCAs and no other holds more than 5%."""
    hops = minhop_hops(nodes)
    cas = collections.Counter()
    for name, n in nodes.items():
        if n["type"] != "switch":
            for peer, _ in n["links"].values():
                if nodes[peer]["type"] == "switch":
                    cas[peer] += 1
    total = sum(cas.values())
    roots = []
    for s in switches_in_table_order(nodes):
        hist = collections.Counter()
        for t, k in cas.items():
            if t in hops[s]:
                hist[min(hops[s][t].values())] += k
        if sum(1 for v in hist.values() if v > total * 0.9) == 1 and \
           sum(1 for v in hist.values() if v > total * 0.05) == 1:
            roots.append(s)
    return roots


def updn_hops(nodes, roots):
    """The hop tables updn_build_lid_matrices builds: switches ranked by distance from the roots;
    a step from rank a to rank b is DOWN if a < b, UP if a > b, between equal ranks UP from the
    larger node GUID (and UP between two roots); then for every target switch a breadth-first
    search outwards that never takes an UP step after a DOWN step. The search sets each port's hop
    count once (the first, shortest time) and re-queues a switch whenever one of its ports gets a
    count while it is not queued, carrying the direction of that step."""
    sws = switches_in_table_order(nodes)
    rank = {s: (0 if s in roots else None) for s in sws}
    q = collections.deque(s for s in sws if rank[s] == 0)
    while q:
        u = q.popleft()
        for port in sorted(nodes[u]["links"]):
            peer, _ = nodes[u]["links"][port]
            if nodes[peer]["type"] == "switch" and (rank[peer] is None or rank[peer] > rank[u] + 1):
                rank[peer] = rank[u] + 1
                q.append(peer)
    INF = 10 ** 9
    r = lambda s: INF if rank[s] is None else rank[s]  # noqa: E731

    def direction(cur, rem):  # "UP" or "DOWN" for a step cur -> rem
        if r(cur) == 0 and r(rem) == 0:
            return "UP"
        if r(cur) != r(rem):
            return "DOWN" if r(cur) < r(rem) else "UP"
        return "UP" if nodes[cur]["guid"] > nodes[rem]["guid"] else "DOWN"

    hops = {s: {} for s in sws}
    for t in sws:
        for s in sws:
            hops[s][t] = {}
        hops[t][t][0] = 0
        state = {s: {"dir": None, "queued": False} for s in sws}
        state[t]["dir"] = "UP"
        q = collections.deque([t])
        while q:
            u = q.popleft()
            state[u]["queued"] = False
            cur_dir = state[u]["dir"]
            for port in sorted(nodes[u]["links"]):
                rem, rport = nodes[u]["links"][port]
                if nodes[rem]["type"] != "switch":
                    continue
                nxt = direction(u, rem)
                if cur_dir == "DOWN" and nxt == "UP":
                    continue
                cur_min = min(hops[u][t].values())
                if cur_min + 1 < hops[rem][t].get(rport, 0xFF):
                    hops[rem][t][rport] = cur_min + 1
                    if not state[rem]["queued"]:
                        state[rem]["dir"] = nxt
                        state[rem]["queued"] = True
                        q.append(rem)
    for s in sws:
        hops[s] = {t: ports for t, ports in hops[s].items() if ports}
    return hops


def port_order(nodes):
    """OpenSM's port_order_list: the HCA ports of each switch (switches by number of HCA links,
    most first, ties in switch GUID table order; a switch's HCAs by its port number), then every
    port not listed yet (the switches' port 0) in port GUID table order."""
    sws = sorted((n for n in nodes.values() if n["type"] == "switch"),
                 key=lambda n: guid_order_key(n["guid"]))
    load = lambda n: sum(1 for peer, _ in n["links"].values()  # noqa: E731
                         if nodes[peer]["type"] != "switch")
    order, seen = [], set()
    for sn in sorted(sws, key=lambda n: -load(n)):  # sorted() is stable, like glibc 2.36 qsort
        for port in sorted(sn["links"]):
            peer, pp = sn["links"][port]
            if nodes[peer]["type"] != "switch":
                guid = nodes[peer]["guid"] + pp
                if guid not in seen:
                    seen.add(guid)
                    order.append((guid, peer, pp))
    rest = sorted((t for t in all_ports(nodes) if t[0] not in seen), key=lambda t: guid_order_key(t[0]))
    return order + rest


def predict_lfts(nodes, lids, lmc, dor, hops=None):
    """switch guid -> {lid: port}, following osm_ucast_mgr.c / osm_switch_recommend_path, on the
    hop tables `hops` (minhop's unless given: updn passes its own)."""
    hops = hops or minhop_hops(nodes)
    order = port_order(nodes)
    is_sw = lambda name: nodes[name]["type"] == "switch"  # noqa: E731
    out = {}
    for s, sn in nodes.items():
        if sn["type"] != "switch":
            continue
        nports = sn["ports"] + 1
        lft, count = {}, collections.Counter()
        remotes = collections.defaultdict(list)  # target port guid -> [[node, rem_port, fwd]]
        for offset in range(1 << lmc):
            for guid, name, p in order:
                lo, hi = lids[guid]
                lid = lo + offset
                if lid > hi:
                    continue
                if name == s:
                    lft[lid] = 0
                    continue
                if not is_sw(name) and nodes[name]["links"][p][0] == s:
                    best = next(q for q, v in sn["links"].items() if v == (name, p))
                else:
                    target = name if is_sw(name) else nodes[name]["links"][p][0]
                    if target not in hops[s]:
                        continue  # no path: no entry
                    start = lft[lid - 1] + 1 if offset and not dor else 1
                    best = recommend(nodes, sn, hops[s][target], start, nports, count,
                                     remotes[guid], bool(lmc), dor)
                    if best is None:
                        continue
                lft[lid] = best
                if not is_sw(name):
                    count[best] += 1
                    rnode, rport = sn["links"][best]
                    r = remotes[guid]
                    for e in r:
                        if e[0] == rnode and (not dor or e[1] == rport):
                            e[2] += 1
                            break
                    else:
                        r.append([rnode, rport, 1])
        out[sn["guid"]] = lft
    return out


def recommend(nodes, sn, port_hops, start, nports, count, remotes, for_lmc, dor):
    """osm_switch_recommend_path for a destination behind a switch that S reaches with
    port_hops = {port: hops} (no scatter/shifting)."""
    least = min(port_hops.values())
    INF = 0xFFFFFFFF
    least_paths = least_other_sys = least_fwd = INF
    best = best_other_sys = 0
    first_remote = None
    for i in range(start, start + nports):
        port = i % nports
        if port == 0 or port not in sn["links"]:
            continue
        rnode, rport = sn["links"][port]
        if port_hops.get(port) != least:
            continue
        check = count[port]
        rem = None
        if dor:
            if first_remote is None:
                first_remote = rnode
            elif rnode != first_remote:
                continue
            if for_lmc:
                rem = next((e for e in remotes if e[0] == rnode and e[1] == rport), [rnode, rport, 0])
        elif for_lmc:
            # OpenSM first looks the neighbour's system image GUID up, then its node GUID. ibsim
            # gives every node its own system image GUID (= node GUID), so "system already used"
            # and "node already used" coincide and OpenSM's best_port_other_node never applies.
            rem = next((e for e in remotes if e[0] == rnode), None)
            if rem is None and check < least_other_sys:
                least_other_sys, best_other_sys, least_fwd = check, port, 0
        if check < least_paths:
            best, least_paths = port, check
            if for_lmc and rem is not None and rem[2] < least_fwd:
                least_fwd = rem[2]
        elif for_lmc and rem is not None and check == least_paths and rem[2] < least_fwd:
            least_fwd, best = rem[2], port
    if not best:
        return None
    if for_lmc and not dor and best_other_sys:
        return best_other_sys
    return best


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
            hops = None
            if engine == "updn":
                named = os.path.join(rundir, "root_guids.txt")
                if os.path.isfile(named):
                    guids = {int(x, 16) for x in open(named).read().split()}
                    roots = [n for n, v in nodes.items() if v["type"] == "switch" and v["guid"] in guids]
                else:
                    roots = updn_auto_roots(nodes)
                dumped = os.path.join(rundir, "opensm-updn-roots.dump")
                if os.path.isfile(dumped):
                    used = {int(x, 16) for x in open(dumped).read().split()}
                    if used != {nodes[n]["guid"] for n in roots}:
                        msg += f", roots {sorted(roots)} but OpenSM used {sorted(hex(g) for g in used)}"
                        bad += 1
                msg += f", roots {','.join(roots)}"
                hops = updn_hops(nodes, roots)
            if engine in ("minhop", "dor", "updn"):
                got, _ = chk.parse_lfts(os.path.join(rundir, "opensm-lfts.dump"))
                want = predict_lfts(nodes, lids, lmc, engine == "dor", hops)
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
