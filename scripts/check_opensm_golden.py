#!/usr/bin/env python3
"""Sanity checks for one OpenSM golden run (see tests/subnet_manager/golden/README.md).

Usage: check_opensm_golden.py NETFILE RUNDIR LMC [--minimal-paths] [--allow-unrouted-hcas]
                              [--sm-host NAME] [--readback FILE]

RUNDIR holds what scripts/make_opensm_golden.sh kept of one OpenSM run: opensm-lfts.dump and
guid2lid. FILE is the output of dump_lfts run against ibsim after OpenSM (the LFTs read back from
the simulated switches); without --readback that comparison is skipped. Checks:
  * guid2lid names every port of the net file (switch port 0, every cabled HCA port) with an
    LMC-aligned range of 2^LMC LIDs, LIDs unique, and agrees with the LID comments of the dump;
  * every switch has an LFT block with an entry for every HCA LID and its own LID (-> port 0),
    no entry is 255 or points at an uncabled port; LIDs of other switches may be left unrouted
    (updn cannot reach one root from another without going down and up again): they are counted;
  * from every switch, following the LFTs through the cables reaches every HCA LID without a
    loop; with --minimal-paths every such path is a shortest path through the switches; with
    --allow-unrouted-hcas a switch may leave an HCA LID unrouted (ftree cannot route to a non-CN
    on a root from another root): such entries are counted, not failed;
  * the LFTs read back from ibsim's switches (--readback) equal OpenSM's dump.
Prints a summary and facts about the LID order; exits 1 on the first kind of failure found.
"""
import collections
import re
import sys


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def parse_net(path):
    """Nodes in file order: name -> dict(type, ports, guid, links{port: (peer, peer_port)})."""
    nodes = collections.OrderedDict()
    next_guid = {"switch": 0x200000, "hca": 0x100000}
    cur = None
    for raw in open(path):
        line = raw.split("#", 1)[0].strip()
        if not line:
            cur = None
            continue
        m = re.match(r"(switchguid|caguid|hcaguids)=(0x[0-9a-fA-F]+)", line)
        if m:
            next_guid["switch" if m.group(1) == "switchguid" else "hca"] = int(m.group(2), 16)
            continue
        m = re.match(r'(Switch|Hca|Ca)\s+(\d+)\s+"([^"]+)"', line)
        if m:
            kind = "switch" if m.group(1) == "Switch" else "hca"
            ports = int(m.group(2))
            cur = m.group(3)
            guid = next_guid[kind]
            next_guid[kind] += 1 if kind == "switch" else ports + 1
            nodes[cur] = {"type": kind, "ports": ports, "guid": guid, "links": {}}
            continue
        m = re.match(r'\[(\d+)\]\s+"([^"]+)"(?:\[(\d+)\])?', line)
        if m and cur is not None:
            nodes[cur]["links"][int(m.group(1))] = (m.group(2), int(m.group(3) or 1))
            continue
        fail(f"{path}: cannot parse line: {raw.rstrip()}")
    for name, n in nodes.items():
        for p, (peer, pp) in n["links"].items():
            if nodes[peer]["links"].get(pp) != (name, p):
                fail(f"{path}: link {name}/{p} -> {peer}/{pp} not listed back")
    return nodes


def port_guid(node, port):
    return node["guid"] + (0 if node["type"] == "switch" else port)


def parse_guid2lid(path):
    g2l = {}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        g2l[int(f[0], 16)] = (int(f[1], 16), int(f[2], 16))
    return g2l


HDR = re.compile(r"Unicast lids \[(?:0x)?[0-9a-fA-F]+-(?:0x)?[0-9a-fA-F]+\] of switch .*guid (0x[0-9a-fA-F]+) \('?([^')]+)'?\):")
ENTRY = re.compile(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s+[#:]")


def parse_lfts(path):
    """switch guid -> {lid: port}; also lid -> destination text from the comments."""
    lfts, dest = {}, {}
    cur = None
    for line in open(path):
        m = HDR.match(line.strip())
        if m:
            cur = int(m.group(1), 16)
            if cur in lfts:
                fail(f"{path}: switch {m.group(1)} listed twice")
            lfts[cur] = {}
            continue
        m = ENTRY.match(line.strip())
        if m and cur is not None:
            lid = int(m.group(1), 16)
            lfts[cur][lid] = int(m.group(2))
            pg = re.search(r"portguid (0x[0-9a-fA-F]+)", line)
            if pg:
                dest[lid] = int(pg.group(1), 16)
    return lfts, dest


def main():
    args = sys.argv[1:]
    minimal = "--minimal-paths" in args
    allow_unrouted_hcas = "--allow-unrouted-hcas" in args
    opts = {"--sm-host": "h1", "--readback": None}
    for o in opts:
        if o in args:
            opts[o] = args[args.index(o) + 1]
    sm_host, readback = opts["--sm-host"], opts["--readback"]
    args = [a for i, a in enumerate(args)
            if not a.startswith("--") and (i == 0 or args[i - 1] not in opts)]
    net, rundir, lmc = args[0], args[1], int(args[2])
    nodes = parse_net(net)
    g2l = parse_guid2lid(f"{rundir}/guid2lid")
    lfts, dest = parse_lfts(f"{rundir}/opensm-lfts.dump")
    nlids = 1 << lmc

    # Ports that must have LIDs: switch port 0, every cabled HCA port.
    ports = []  # (guid, node name, port)
    for name, n in nodes.items():
        if n["type"] == "switch":
            ports.append((port_guid(n, 0), name, 0))
        else:
            for p in sorted(n["links"]):
                ports.append((port_guid(n, p), name, p))
    guid_of = {(name, p): g for g, name, p in ports}
    if len({g for g, _, _ in ports}) != len(ports):
        fail("duplicate port GUIDs in the net file")
    lid_owner = {}
    for g, name, p in ports:
        if g not in g2l:
            fail(f"guid2lid has no entry for {name}/{p} (0x{g:016x})")
        lo, hi = g2l[g]
        # Switch port 0 gets one LID unless lmc_esp0; HCA ports 2^LMC.
        want = 1 if nodes[name]["type"] == "switch" else nlids
        if hi - lo + 1 != want or lo % want:
            fail(f"{name}/{p}: LID range {lo}-{hi}, expected {want} LIDs aligned to {want}")
        for lid in range(lo, hi + 1):
            if lid in lid_owner:
                fail(f"LID {lid} given to {lid_owner[lid]} and {name}/{p}")
            lid_owner[lid] = (name, p)
    extra = set(g2l) - {g for g, _, _ in ports}
    if extra:
        fail(f"guid2lid names unknown GUIDs {sorted(hex(g) for g in extra)}")
    for lid, g in dest.items():
        if lid in lid_owner and guid_of[lid_owner[lid]] != g:
            fail(f"dump says LID {lid} is 0x{g:x}, guid2lid says {lid_owner[lid]}")

    # LFTs complete and pointing at cabled ports.
    switches = [name for name, n in nodes.items() if n["type"] == "switch"]
    unrouted_switch_lids = []  # (switch, LID of another switch) without an entry: updn does that
    unrouted_hca_lids = []  # (switch, HCA) without an entry, with --allow-unrouted-hcas
    for s in switches:
        g = nodes[s]["guid"]
        if g not in lfts:
            fail(f"no LFT for switch {s}")
        for lid, (name, p) in lid_owner.items():
            port = lfts[g].get(lid)
            if (port is None or port == 255) and nodes[name]["type"] == "switch" and name != s:
                unrouted_switch_lids.append((s, name))
                continue
            if (port is None or port == 255) and allow_unrouted_hcas and nodes[name]["type"] != "switch":
                unrouted_hca_lids.append((s, name))
                continue
            if port is None or port == 255:
                fail(f"{s}: no route to LID {lid} ({name}/{p})")
            if name == s and port != 0:
                fail(f"{s}: own LID {lid} routed to port {port}, not 0")
            if name != s and port not in nodes[s]["links"]:
                fail(f"{s}: LID {lid} routed to uncabled port {port}")
    if set(lfts) != {nodes[s]["guid"] for s in switches}:
        fail("dump has LFTs of switches not in the net file")

    # Shortest switch-hop distances (number of switch-to-switch cables) between switches.
    def bfs(src):
        dist = {src: 0}
        q = collections.deque([src])
        while q:
            u = q.popleft()
            for peer, _ in nodes[u]["links"].values():
                if nodes[peer]["type"] == "switch" and peer not in dist:
                    dist[peer] = dist[u] + 1
                    q.append(peer)
        return dist
    dist = {s: bfs(s) for s in switches}

    # Walk every (switch, HCA LID) pair.
    nonminimal = 0
    walks = 0
    for s in switches:
        for lid, (name, p) in lid_owner.items():
            if nodes[name]["type"] == "switch":
                continue
            if (s, name) in unrouted_hca_lids:
                continue
            cur, hops, seen = s, 0, set()
            while True:
                if cur in seen:
                    fail(f"loop routing LID {lid} ({name}) from {s}")
                seen.add(cur)
                port = lfts[nodes[cur]["guid"]][lid]
                peer, pp = nodes[cur]["links"][port]
                if nodes[peer]["type"] != "switch":
                    if (peer, pp) != (name, p):
                        fail(f"LID {lid} ({name}/{p}) from {s} ends at {peer}/{pp}")
                    break
                cur, hops = peer, hops + 1
            walks += 1
            leaf = nodes[name]["links"][p][0]
            if hops != dist[s][leaf]:
                nonminimal += 1
                if minimal:
                    fail(f"LID {lid} ({name}) from {s}: {hops} hops, shortest {dist[s][leaf]}")

    # Read-back from ibsim equals the dump.
    back = parse_lfts(readback)[0] if readback else lfts
    if back != lfts:
        diffs = [(hex(g), lid) for g in lfts for lid in lfts[g]
                 if back.get(g, {}).get(lid) != lfts[g][lid]]
        fail(f"LFTs read back from ibsim differ from opensm-lfts.dump, e.g. {diffs[:5]}")

    # LID order facts (not checks): is it "SM port first, then ascending byte-reversed port GUID"?
    def rev(g):
        return int.from_bytes(g.to_bytes(8, "big"), "little")
    # The SM runs on an HCA's port 1 or on a switch's management port 0.
    sm_guid = guid_of[(sm_host, 0 if nodes[sm_host]["type"] == "switch" else 1)]
    order = sorted((g for g, _, _ in ports if g != sm_guid), key=rev)
    by_lid = sorted((g2l[g][0], g) for g, _, _ in ports)
    observed = [g for _, g in by_lid]
    hyp = observed == [sm_guid] + order
    print(f"ok: {len(switches)} switches, {len(ports)} ports, {len(lid_owner)} LIDs, "
          f"{walks} switch->HCA-LID walks, {nonminimal} longer than the shortest path; "
          + ("ibsim read-back identical" if readback else "no ibsim read-back given"))
    if unrouted_hca_lids:
        print(f"note: {len(unrouted_hca_lids)} switch->HCA-LID entries unrouted: "
              + ", ".join(f"{a}->{b}" for a, b in unrouted_hca_lids))
    if unrouted_switch_lids:
        print(f"note: {len(unrouted_switch_lids)} switch->switch-LID entries unrouted, e.g. "
              + ", ".join(f"{a}->{b}" for a, b in unrouted_switch_lids[:4]))
    print(f"lid order: SM port ({sm_host}) LID {g2l[sm_guid][0]}; "
          f"'SM first, then ascending byte-reversed port GUID' "
          f"{'holds' if hyp else 'does NOT hold'}; max LID {max(lid_owner)}")


if __name__ == "__main__":
    main()
