#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perfetto_check.py PROTO TRACE [TRACK=STATE...]: decode TRACE (tsa-prstat
--perfetto) with protoc against PROTO (tests/userspace/perfetto.proto) and
check it: every byte decodes to a known field; each track's slices begin
and end in turn and add up, per thread track, to the window (from the
first slice's begin to the last slice's end); the flows that begin end;
each TRACK=STATE names a thread whose every slice is named STATE.
Prints one line of what it saw, then each thread's time over the window
as its slices' states add it up (TID=NS ...); exit 0 when all hold, 1
when not."""
import os
import re
import subprocess
import sys

args = sys.argv[1:]
whole = args[:1] == ["--whole"]
args = args[1:] if whole else args
proto, trace = args[0], args[1]
want = dict(a.split("=", 1) for a in args[2:])
text = subprocess.run(["protoc", "--decode=perfetto.protos.Trace",
                       "--proto_path=" + (os.path.dirname(proto) or "."),
                       proto], stdin=open(trace, "rb"),
                      capture_output=True, check=True).stdout.decode()
bad = []
if re.search(r"^\s*\d+\s*[:{]", text, re.M):
    bad.append("unknown fields")
# The packets, flattened: one dict per packet.
packets, cur, stack = [], None, []
for line in text.splitlines():
    s = line.strip()
    if s.endswith("{"):
        stack.append(s[:-1].strip())
        if stack == ["packet"]:
            cur = {"path": {}}
            packets.append(cur)
        else:
            cur["path"].setdefault("/".join(stack[1:]), []).append("{")
        continue
    if s == "}":
        stack.pop()
        continue
    k, v = s.split(":", 1)
    cur["path"].setdefault("/".join(stack[1:] + [k]), []).append(v.strip())
names, threads, slices, opened, tids, states = {}, set(), {}, {}, {}, {}
first = last = None
flows, ends, counters = [], [], set()
for p in packets:
    f = p["path"]
    if "track_descriptor/uuid" in f:
        u = f["track_descriptor/uuid"][0]
        if "track_descriptor/thread/thread_name" in f:
            names[u] = f["track_descriptor/thread/thread_name"][0].strip('"')
            tids[u] = f["track_descriptor/thread/tid"][0]
            threads.add(u)
        elif "track_descriptor/counter" in f:
            counters.add(u)
        elif "track_descriptor/name" in f:
            names[u] = f["track_descriptor/name"][0].strip('"')
            threads.add(u)	# a group's track: a line as a thread's is
        continue
    t = f.get("track_event/type", [""])[0]
    u = f.get("track_event/track_uuid", [""])[0]
    ts = int(f.get("timestamp", ["0"])[0])
    if t == "TYPE_SLICE_BEGIN":
        if u in opened:
            bad.append("a slice begins inside another on %s" % u)
        opened[u] = (ts, f["track_event/name"][0].strip('"'))
        # The states' time of the slice: its *_ns arguments but the tops'.
        an = f.get("track_event/debug_annotations/name", [])
        uv = f.get("track_event/debug_annotations/uint_value", [])
        un = [n.strip('"') for n in an if n.endswith('_ns"')]
        states[u] = states.get(u, 0) + sum(
            int(v) for n, v in zip(un, uv)
            if n.endswith("_ns") and not n.startswith("top_"))
        first = ts if first is None else min(first, ts)
        flows += f.get("track_event/flow_ids", [])
        ends += f.get("track_event/terminating_flow_ids", [])
    elif t == "TYPE_SLICE_END":
        if u not in opened:
            bad.append("an end without a begin on %s" % u)
            continue
        b, n = opened.pop(u)
        slices.setdefault(u, []).append((b, ts, n))
        last = ts if last is None else max(last, ts)
    elif t == "TYPE_COUNTER":
        if u not in counters:
            bad.append("a counter on a track that is not one")
if opened:
    bad.append("slices left open")
window = (last or 0) - (first or 0)
sums = {names.get(u, u): sum(e - b for b, e, _ in s) for u, s in slices.items()
        if u in threads}
for n, tot in sums.items():
    if whole and tot != window:
        bad.append("%s: slices %d ns, window %d ns" % (n, tot, window))
if sorted(flows) != sorted(ends):
    bad.append("flows %s end %s" % (flows, ends))
for n, st in want.items():
    got = {x for u, s in slices.items() if names.get(u) == n for _, _, x in s}
    if got != {st}:
        bad.append("%s: slices named %s, expected %s" % (n, got, st))
print("%d packets, %d line tracks, window %d ns, %d slices, %d flows, "
      "%d counter tracks%s" % (len(packets), len(threads), window,
                               sum(len(s) for s in slices.values()),
                               len(flows), len(counters),
                               "; " + "; ".join(bad) if bad else ""))
# Each thread's time over the window, from its slices' states.
print(" ".join("%s=%d" % (tids[u], states.get(u, 0))
               for u in sorted(tids, key=lambda u: int(tids[u]))))
sys.exit(1 if bad or not sums else 0)
