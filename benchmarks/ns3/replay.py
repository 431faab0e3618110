#!/usr/bin/env python3
"""ns-3's loss order replayed in burstlab: both simulators with the same losses.

Runs ``ns3_reference.py --trace`` (the optional ns-3 environment, ``bash benchmarks/ns3/setup.sh``)
for one congestion control, loss rate and seeds, reads from each run the order of losses among
the data packets node 1 received (``phy-rx`` / ``channel-drop`` lines, frames above 200 bytes),
and runs burstlab's ``TcpConfig.profile("ns3", cc=...)`` on the same link with
``LossModel.replay(order, end="deliver")``: the k-th data packet burstlab puts on the link is
lost if and only if ns-3's k-th was (past the end of ns-3's run, Bernoulli at p, seeded by the
run). Differences between the two are then mechanism, not sampling; docs/ns3-reference.md
("Issue 11") and docs/validation.md ("Against ns-3 3.44 with its own defaults") show what this
found. Prints, over the seeds, the mean goodput, data packets sent, fast retransmits and
timeouts on each side and the ratio, then seconds spent and segments sent per congestion state
(0 Open, 1 Disorder, 3 Recovery, 4 Loss; ns-3's ``CongState`` trace, burstlab's series).

    python benchmarks/ns3/replay.py --cc cubic --loss 0.1 --seeds 1-40
    python benchmarks/ns3/replay.py --cc linux-reno --loss 0.1 --seeds 1-20 --burstlab-tcp pipe_rule=rfc6675
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: Frames above this size (PPP + IP + TCP + payload) are data packets; ACKs are 54-66 bytes.
DATA_FRAME_MIN = 200
#: Congestion states as ns-3's CongState and burstlab's series number them.
STATES = {0: "Open", 1: "Disorder", 3: "Recovery", 4: "Loss"}


def split_runs(lines: list[str]) -> list[list[str]]:
    """The stderr of ``ns3_reference.py --trace`` over several seeds, one list per run (time
    runs forward within a run and restarts with the next)."""
    runs: list[list[str]] = []
    last = float("inf")
    for line in lines:
        parts = line.split()
        try:
            t = float(parts[0])
        except (IndexError, ValueError):
            continue  # ns-3's own messages
        if not runs or t < last:
            runs.append([])
        runs[-1].append(line)
        last = t
    return runs


def loss_order(run: list[str]) -> list[int]:
    """1 = delivered, 0 = lost, for each data packet node 1's error model saw, in order."""
    bits = []
    for line in run:
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("phy-rx", "channel-drop") and int(parts[2]) > DATA_FRAME_MIN:
            bits.append(1 if parts[1] == "phy-rx" else 0)
    return bits


def ns3_states(run: list[str], duration: float) -> tuple[dict[int, float], dict[int, int], float]:
    """Seconds and data segments sent per congestion state, and when the connection opened."""
    start = next(float(x.split()[0]) for x in run if x.split()[1] == "cwnd")
    secs: dict[int, float] = collections.Counter()
    sent: dict[int, int] = collections.Counter()
    state, since = 0, start
    for line in run:
        parts = line.split()
        if parts[1] == "cong" and len(parts) == 5:
            t = float(parts[0])
            secs[state] += t - since
            state, since = int(parts[4]), t
        elif parts[1] == "tx":
            sent[state] += 1
    secs[state] += duration - since
    return secs, sent, start


def burstlab_run(cc: str, bits: list[int], p: float, seed: int, duration: float, extra: dict[str, Any]) -> Any:
    import numpy as np

    from burstlab import _core
    from burstlab.sim import Link, TcpConfig, presets
    from burstlab.sim.network import run_network
    from burstlab.traces import Trace

    tail = (np.random.default_rng(seed).random(200_000) >= p).astype(np.uint8)
    order = np.concatenate([np.asarray(bits, np.uint8), tail])
    tcp = dataclasses.replace(TcpConfig.profile("ns3", cc=cc, mss=1000), **extra)
    link = Link(rate=10e6, delay=0.01, buffer=100, loss=_core.LossModel.replay(Trace(order).bits, end="deliver"))
    return run_network(presets.single(forward=link, tcp=tcp, duration=duration, seed=seed, series=True, log=True))


def burstlab_states(res: Any) -> tuple[dict[int, float], dict[int, int]]:
    import numpy as np

    from burstlab.sim.network import LOG_EVENTS, LOG_KINDS

    se, lg = res.flows["flow"].series, res.log
    t, st = np.asarray(se["time"]), np.asarray(se["state"])
    secs: dict[int, float] = collections.Counter()
    for i in range(len(t)):
        secs[int(st[i])] += (t[i + 1] if i + 1 < len(t) else res.end_time) - t[i]
    sent_mask = ((np.asarray(lg["event"]) == LOG_EVENTS.index("sent")) & (np.asarray(lg["kind"]) == LOG_KINDS.index("data"))
                 & (np.asarray(lg["sent_time"]) == np.asarray(lg["time"])) & (np.asarray(lg["link"]) <= 0))  # fmt: skip
    at = np.searchsorted(t, np.asarray(lg["time"])[sent_mask], side="right") - 1
    sent = collections.Counter(int(st[max(i, 0)]) for i in at)
    return secs, sent


def parse_seeds(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="cubic", help="newreno, westwood, vegas, cubic or linux-reno")
    ap.add_argument("--loss", type=float, default=0.1)
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--burstlab-tcp", action="append", default=[], metavar="NAME=VALUE",
                    help="a TcpConfig field for burstlab's side only (repeatable)")
    ap.add_argument("--ns3-python", default=str(HERE / ".venv" / "bin" / "python"))
    args = ap.parse_args(argv)
    extra: dict[str, Any] = {}
    for kv in args.burstlab_tcp:
        k, _, v = kv.partition("=")
        extra[k] = json.loads(v) if v[:1].isdigit() or v in ("true", "false") else v
    seeds = parse_seeds(args.seeds)
    if not Path(args.ns3_python).exists():
        print(f"error: {args.ns3_python}: no ns-3 environment (bash benchmarks/ns3/setup.sh)", file=sys.stderr)
        return 2
    proc = subprocess.run([args.ns3_python, str(HERE / "ns3_reference.py"), "--profile", "ns3", "--cc", args.cc,
                           "--loss", str(args.loss), "--seeds", args.seeds, "--duration", str(args.duration), "--trace"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if proc.returncode != 0:
        print(f"error: ns3_reference.py failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return 2
    ns3 = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    runs = split_runs(proc.stderr.splitlines())
    if len(runs) != len(seeds) or len(ns3) != len(seeds):
        print(f"error: expected {len(seeds)} ns-3 runs, read {len(ns3)} results and {len(runs)} traces", file=sys.stderr)
        return 2
    keys = ("goodput_bps", "packets_sent", "fast_retransmits", "timeouts")
    tot = {side: collections.Counter() for side in ("ns3", "bl")}
    secs = {side: collections.Counter() for side in ("ns3", "bl")}
    sent = {side: collections.Counter() for side in ("ns3", "bl")}
    for seed, run, r in zip(seeds, runs, ns3, strict=True):
        s, n, start = ns3_states(run, args.duration)
        secs["ns3"].update(s)
        sent["ns3"].update(n)
        for k in keys:
            tot["ns3"][k] += r[k]
        res = burstlab_run(args.cc, loss_order(run), args.loss, seed, args.duration - start, extra)
        f = res.flows["flow"]
        for k in keys:
            tot["bl"][k] += getattr(f, k)
        s, n = burstlab_states(res)
        secs["bl"].update(s)
        sent["bl"].update(n)
    n = len(seeds)
    print(f"{args.cc}, p = {args.loss}, seeds {args.seeds}: ns-3's loss order replayed in burstlab (means per run)")
    print("        goodput Mb/s    sent  fast retx   RTO")
    for side, name in (("ns3", "ns-3"), ("bl", "burstlab")):
        t = tot[side]
        print(f"{name:9s} {t['goodput_bps'] / n / 1e6:10.4f} {t['packets_sent'] / n:7.0f} {t['fast_retransmits'] / n:10.1f}"
              f" {t['timeouts'] / n:5.1f}")  # fmt: skip
    print(f"ratio burstlab / ns-3: {tot['bl']['goodput_bps'] / tot['ns3']['goodput_bps']:.3f}")
    print("state       seconds ns-3 / burstlab   segments sent ns-3 / burstlab")
    for code, name in STATES.items():
        print(f"{name:9s} {secs['ns3'][code] / n:10.2f} / {secs['bl'][code] / n:<10.2f} {sent['ns3'][code] / n:10.0f} / {sent['bl'][code] / n:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
