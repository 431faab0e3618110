"""Scale audit: does a run's cost per simulated second, its memory or its steady-state result
depend on how long it runs when it should not?

    python benchmarks/scale_audit.py                       # every family, durations T, 2T, 4T, 8T
    python benchmarks/scale_audit.py --families ge-30,rack  # some families (names: --list)
    python benchmarks/scale_audit.py --scale 0.5 --json out.json

Each family is a stationary scenario (its channel, workload and configuration do not change
over time), run through the Python API at durations D = T, 2T, 4T, 8T (T is the family's own,
times ``--scale``). Every run is a fresh subprocess, so that its peak resident memory
(``resource.getrusage``'s ``ru_maxrss``) is its own; the memory reported is the growth of
that peak during the simulation, over what the process held once the scenario was built.
Per duration it reports:

- ``cpu/s``: CPU seconds of the simulation per simulated second (the process's CPU clock
  around the ``run`` call), and ``ev/s``: the engine's events per simulated second;
- ``dRSS``: the growth of the peak resident memory during the run, MB;
- ``g1``, ``g2``: the goodput (Mb/s, all TCP flows) of the run's first and second halves:
  ``g2`` is the run of length D with a warm-up of D/2, ``g1`` the run of length D/2 (the same
  seed draws the same prefix), so ``g2/g1`` far from 1 is a steady state that drifts.

Flags (``!`` beside the family): ``time`` when CPU per simulated second grows by more than
1.3x per doubling over the last two doublings (and the 8T run takes at least 0.3 s of CPU, the
noise floor on a shared machine), also when events per simulated second grow so; ``mem``
when the peak grows by more than 16 MB from T to 8T and at least doubles (the window, queues
and series a run must hold do not grow with its length); ``drift`` when ``g2/g1`` at 4T and
8T are both outside [0.8, 1.25] on the same side, or ``g2`` at 8T is outside [0.75, 1.33] of
``g2`` at 2T (not T: a second half of T can still hold the start's transient); ``few`` instead
when a half of the 4T or 8T run delivers fewer than 10 000 segments (too few to judge: raise the
family's T with ``--scale``). A flag is a lead to read the code, not a verdict: a
configuration whose model genuinely degrades with time (no RTO backoff with an unbounded
queue, BBR under the strict RFC timer) flags too, and so do rare long stalls and long
transients; each is documented in docs/simulator.md ("Runs that depend on their length").

Families (62, ``--list``): single link in time (Bernoulli, Gilbert-Elliott, trace replay at
20-50 % loss; the ``rfc``, ``ns3``, ``linux`` and ``tossim`` profiles; ``rto_backoff=False``,
also behind a link slower than the timer), every congestion control and recovery on a 1 %
bursty channel at 10 Mb/s and on 100 Mb/s links, ACK loss (independent, synchronized,
reverse-link), 802.11 ARQ and LL-HARQ (also on a 4-hop chain), the satellite + Wi-Fi preset,
dumbbells of 32 and 256 flows (DropTail, FQ-CoDel, RED/ECN, paced, BBR), a 4-hop chain,
RED/ECN, CoDel, FQ-CoDel, pacing, a Mahimahi capacity trace, unbounded buffers with losses,
ON/OFF workloads of 4 and 64 flows. All of them, one core: about 6 minutes. The slotted
trace-driven mode (``run_trace``) is audited separately (its queue discipline).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any, Callable

DATA = os.environ.get("BURSTLAB_SHARED", "/work/shared")
MAHIMAHI = os.path.join(DATA, "data", "mahimahi-cellular", "Verizon-LTE-short.down")


# --- scenario families --------------------------------------------------------------------
# Each builder takes (duration, warmup) and returns a zero-argument callable that runs the
# simulation and returns (goodput of the TCP flows in bit/s, events). T is the base duration.


def _single(tcp_kw: dict[str, Any] | None = None, profile: str | None = None, loss: Any = "bernoulli:p=0.2",
            rate: float = 10e6, delay: float = 0.01, buffer: int = 100, ack_loss: str = "none",
            link_layer: Any = None, loss_mode: str = "packet", queue: Any = "droptail",
            reverse_loss: Any = None) -> Callable[[float, float], Callable[[], tuple[float, int, int]]]:  # fmt: skip
    def build(duration: float, warmup: float) -> Callable[[], tuple[float, int, int]]:
        from burstlab.sim import Link, Scenario, TcpConfig, Workload, run

        kw = dict(tcp_kw or {})
        tcp = TcpConfig.profile(profile, **kw) if profile else TcpConfig(**kw)
        fwd = Link(rate=rate, delay=delay, buffer=buffer, loss=_loss(loss), loss_mode=loss_mode, queue=queue, link_layer=link_layer)
        rev = None if reverse_loss is None else Link(rate=rate, delay=delay, buffer=buffer, loss=_loss(reverse_loss))
        sc = Scenario(tcp=tcp, forward=fwd, reverse=rev, ack_loss=ack_loss, workload=Workload(duration=duration, warmup=warmup), seed=3)

        def go() -> tuple[float, int]:
            r = run(sc, max_events=0)
            return r.goodput_bps, r.events, r.delivered_segments

        return go

    return build


def _loss(loss: Any) -> Any:
    if isinstance(loss, tuple) and loss[0] == "replay":  # ("replay", prr, mu, slots, slot)
        from burstlab import _core

        _, prr, mu, n, slot = loss
        bits = _core.LossModel.gilbert_elliott_prr_mu(prr, mu).sample(n, 7)
        return _core.LossModel.replay(bits, "wrap", slot)
    return loss


def _link(**kw: Any) -> Any:
    """A 10 Mb/s, 20 ms bottleneck with ``kw`` (built when the family runs)."""
    from burstlab.sim import Link

    return Link(**{"rate": 10e6, "delay": 0.020, **kw})


def _network(kind: str, **opt: Any) -> Callable[[float, float], Callable[[], tuple[float, int, int]]]:
    def build(duration: float, warmup: float) -> Callable[[], tuple[float, int, int]]:
        from burstlab.sim import Flow, Hop, Link, Network, OnOff, TcpConfig, presets, run_network

        tcp = TcpConfig(**opt.get("tcp", {}))
        common = {"duration": duration, "warmup": warmup, "seed": 3}
        if kind == "dumbbell":
            net = presets.dumbbell(opt.get("n", 32), bottleneck=opt.get("bottleneck"), tcp=tcp, **common)
        elif kind == "chain-harq":
            link = Link(rate=10e6, delay=0.002, buffer=50, loss="ge:prr=0.9,mu=0.5", link_layer="harq:attempts=2")
            net = presets.chain(4, link=link, tcp=tcp, flows=2, **common)
        elif kind == "chain":
            net = presets.chain(4, link=Link(rate=10e6, delay=0.005, buffer=50, loss="bernoulli:p=0.01"), tcp=tcp, flows=2, **common)
        elif kind == "satellite_wifi":
            net = presets.satellite_wifi(fer=1e-5, tcp=tcp, **common)
        elif kind == "mahimahi":
            link = Link(capacity=MAHIMAHI, delay=0.02, buffer=200, loss="bernoulli:p=0.02")
            net = Network([Hop("cell", link)], [Flow("f", ["cell"], tcp=tcp)], **common)
        elif kind == "onoff":
            link = Link(rate=10e6, delay=0.01, buffer=100, loss="bernoulli:p=0.05")
            flows = [Flow(f"f{k}", ["h"], tcp=tcp, on_off=OnOff(on=0.5, off=0.5)) for k in range(opt.get("n", 4))]
            net = Network([Hop("h", link)], flows, **common)
        else:
            raise ValueError(kind)

        def go() -> tuple[float, int]:
            r = run_network(net, max_events=0)
            tcp = [f for f in r.flows.values() if f.kind == "tcp"]
            return sum(f.goodput_bps for f in tcp), r.events, sum(f.delivered_segments for f in tcp)

        return go

    return build


GE = "ge:prr=0.99,mu=0.5"  # 1 % loss in bursts (mean 2 packets): enough segments to judge
GE30 = "ge:prr=0.7,mu=0.6"
#: Segments each half of the 4T and 8T runs must deliver for the drift test to mean anything.
MIN_SEGMENTS = 10_000
FAMILIES: dict[str, tuple[float, Callable[[float, float], Callable[[], tuple[float, int, int]]]]] = {
    # single link, loss families at high loss
    "bernoulli-20": (1000.0, _single(loss="bernoulli:p=0.2")),
    "bernoulli-50": (2000.0, _single(loss="bernoulli:p=0.5")),
    "ge-30": (500.0, _single(loss=GE30)),
    "replay-time-30": (1000.0, _single(loss=("replay", 0.7, 0.6, 200_000, 0.002), loss_mode="time")),
    # profiles and timers
    "profile-ns3-30": (1000.0, _single(profile="ns3", loss="bernoulli:p=0.3")),
    "profile-linux-30": (1000.0, _single(profile="linux", loss="bernoulli:p=0.3")),
    "profile-rfc-30": (1000.0, _single(profile="rfc", loss="bernoulli:p=0.3")),
    "no-backoff-30": (1000.0, _single(tcp_kw={"rto_backoff": False}, loss="bernoulli:p=0.3")),
    "no-backoff-50-bigbuf": (500.0, _single(tcp_kw={"rto_backoff": False}, loss="bernoulli:p=0.5", buffer=10**15)),
    # the time-mode analogue of the slotted PRR/mu finding: the TinyOS sender (no backoff,
    # RFC 793 timer) on a slow link (one 1040-byte packet per 10 ms) with an unbounded buffer
    "tossim-slow-25-bigbuf": (500.0, _single(profile="tossim", loss="bernoulli:p=0.25", rate=832e3, delay=0.005, buffer=10**15)),
    # a link slower than the timer: each timeout queues one more copy behind the first
    "no-backoff-8kbit-bigbuf": (1000.0, _single(tcp_kw={"rto_backoff": False, "rto_min": 0.2}, loss=None, rate=8000, buffer=10**15)),
    "tossim-slow-25": (500.0, _single(profile="tossim", loss="bernoulli:p=0.25", rate=832e3, delay=0.005, buffer=100)),
    # congestion controls and recoveries
    **{f"{v}-ge": (100.0, _single(tcp_kw={"variant": v}, loss=GE)) for v in (
        "reno", "newreno", "sack", "westwood", "vegas", "tibet", "ideal", "bbr", "bbr3", "lt-tcp")},
    "cubic-prr-ge": (100.0, _single(tcp_kw={"cc": "cubic", "recovery": "prr"}, loss=GE)),
    "rack-ge": (100.0, _single(tcp_kw={"recovery": "sack", "rack_tlp": True}, profile="linux", loss=GE)),
    "lt-tcp-ge-30": (500.0, _single(tcp_kw={"variant": "lt-tcp"}, loss=GE30)),
    "lt-tcp-bern-20": (200.0, _single(tcp_kw={"variant": "lt-tcp"}, loss="bernoulli:p=0.2")),
    # ACK loss
    "ack-independent": (200.0, _single(loss="bernoulli:p=0.01", ack_loss="independent")),
    "ack-independent-10": (1000.0, _single(loss="bernoulli:p=0.1", ack_loss="independent")),
    "ack-sync-ge": (200.0, _single(loss=GE, ack_loss="sync")),
    "ack-reverse-30": (200.0, _single(loss="bernoulli:p=0.05", reverse_loss="bernoulli:p=0.3")),
    # link layers
    "arq-7-bern-50": (50.0, _single(loss="bernoulli:p=0.5", link_layer="arq:retry_limit=7")),
    "harq-2-ge": (200.0, _single(loss=GE, link_layer="harq:attempts=2")),
    "satellite-wifi": (200.0, _network("satellite_wifi")),
    # queues and pacing
    "red-ecn": (50.0, _single(tcp_kw={"ecn": True}, loss="bernoulli:p=0.01", queue="red")),
    "codel": (50.0, _single(loss="bernoulli:p=0.01", queue="codel", buffer=1000)),
    "fq-codel": (50.0, _single(loss="bernoulli:p=0.01", queue="fq_codel", buffer=1000)),
    "paced-cubic": (50.0, _single(tcp_kw={"cc": "cubic", "pacing": "on"}, loss="bernoulli:p=0.05")),
    "huge-buffer-bern-20": (1000.0, _single(loss="bernoulli:p=0.2", buffer=10**15)),
    "huge-buffer-cubic-1": (20.0, _single(tcp_kw={"cc": "cubic", "recovery": "sack"}, loss="bernoulli:p=0.01", buffer=10**15)),
    # fast links: many packets per simulated second, large windows and scoreboards
    "sack-100M-0.1": (10.0, _single(tcp_kw={"variant": "sack"}, loss="bernoulli:p=0.001", rate=100e6, buffer=1000)),
    "rack-100M-ge": (10.0, _single(profile="linux", loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    "cubic-prr-100M-1": (10.0, _single(tcp_kw={"cc": "cubic", "recovery": "prr"}, loss="bernoulli:p=0.01", rate=100e6, buffer=1000)),
    "bbr-100M-1": (10.0, _single(tcp_kw={"variant": "bbr"}, loss="bernoulli:p=0.01", rate=100e6, buffer=1000)),
    "bbr3-100M-1": (10.0, _single(tcp_kw={"variant": "bbr3"}, loss="bernoulli:p=0.01", rate=100e6, buffer=1000)),
    "lt-tcp-100M-5": (10.0, _single(tcp_kw={"variant": "lt-tcp"}, loss="bernoulli:p=0.05", rate=100e6, buffer=1000)),
    "lt-tcp-hugebuf-1": (25.0, _single(tcp_kw={"variant": "lt-tcp"}, loss="bernoulli:p=0.01", buffer=10**15)),
    "vegas-100M-ge": (10.0, _single(tcp_kw={"variant": "vegas"}, loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    "westwood-100M-ge": (10.0, _single(tcp_kw={"variant": "westwood"}, loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    "tibet-100M-ge": (10.0, _single(tcp_kw={"variant": "tibet"}, loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    "ideal-100M-ge": (10.0, _single(tcp_kw={"variant": "ideal"}, loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    "ns3-sack-100M-ge": (10.0, _single(profile="ns3", tcp_kw={"variant": "sack"}, loss="ge:prr=0.999,mu=0.5", rate=100e6, buffer=1000)),
    # networks
    "dumbbell-32": (10.0, _network("dumbbell", n=32)),
    "dumbbell-256": (2.0, _network("dumbbell", n=256)),
    "dumbbell-32-fq-codel": (10.0, _network("dumbbell", n=32, bottleneck=_link(queue="fq_codel", buffer=1000))),
    "dumbbell-32-red-ecn": (10.0, _network("dumbbell", n=32, bottleneck=_link(queue="red", buffer=200), tcp={"ecn": True})),
    "dumbbell-32-paced": (10.0, _network("dumbbell", n=32, tcp={"cc": "cubic", "pacing": "on"})),
    "dumbbell-32-bbr": (10.0, _network("dumbbell", n=32, tcp={"variant": "bbr"})),
    "chain-4": (50.0, _network("chain")),
    "chain-4-harq": (20.0, _network("chain-harq")),
    "onoff-64": (50.0, _network("onoff", n=64)),
    "mahimahi": (50.0, _network("mahimahi")),
    "onoff-4": (200.0, _network("onoff")),
}


# --- one run in this process --------------------------------------------------------------


def one(family: str, duration: float, warmup: float) -> dict[str, Any]:
    _, builder = FAMILIES[family]
    go = builder(duration, warmup)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c0, w0 = time.process_time(), time.perf_counter()
    goodput, events, segments = go()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"goodput": goodput, "events": events, "segments": segments, "cpu": cpu, "wall": wall, "drss_mb": (after - before) / 1024}


def spawn(family: str, duration: float, warmup: float) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--one", family, str(duration), str(warmup)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1]}
    return json.loads(out.stdout)


# --- the audit ----------------------------------------------------------------------------


def audit(family: str, scale: float) -> dict[str, Any]:
    base = FAMILIES[family][0] * scale
    rows = []
    for k in range(4):
        d = base * 2**k
        second = spawn(family, d, d / 2)
        first = spawn(family, d / 2, 0.0)
        if "error" in second or "error" in first:
            return {"family": family, "error": second.get("error") or first.get("error")}
        rows.append({"duration": d, "cpu_per_s": second["cpu"] / d, "wall_per_s": second["wall"] / d, "cpu": second["cpu"],
                     "events_per_s": second["events"] / d, "drss_mb": second["drss_mb"],
                     "g1": first["goodput"], "g2": second["goodput"], "segments": min(first["segments"], second["segments"])})  # fmt: skip
    return {"family": family, "rows": rows, "flags": flags(rows)}


def flags(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    ratio = [rows[k + 1]["cpu_per_s"] / max(rows[k]["cpu_per_s"], 1e-12) for k in range(3)]
    ev = [rows[k + 1]["events_per_s"] / max(rows[k]["events_per_s"], 1e-12) for k in range(3)]
    if (min(ratio[1:]) > 1.3 and rows[3]["cpu"] >= 0.3) or min(ev[1:]) > 1.3:
        out.append("time")
    if rows[3]["drss_mb"] - rows[0]["drss_mb"] > 16 and rows[3]["drss_mb"] >= 2 * max(rows[0]["drss_mb"], 1.0):
        out.append("mem")
    if min(r["segments"] for r in rows[2:]) < MIN_SEGMENTS:
        return out + ["few"]  # too few segments per half to judge the steady state
    q = [r["g2"] / r["g1"] if r["g1"] > 0 else float("nan") for r in rows]
    low, high = (all(x < 0.8 for x in q[2:]), all(x > 1.25 for x in q[2:]))
    # (from 2T: the T run's second half can still hold the start's transient)
    g = rows[3]["g2"] / rows[1]["g2"] if rows[1]["g2"] > 0 else float("nan")
    if low or high or not 0.75 <= g <= 1.33:
        out.append("drift")
    return out


def show(result: dict[str, Any]) -> None:
    fam = result["family"]
    if "error" in result:
        print(f"{fam:22s} error: {result['error']}")
        return
    mark = " ! " + ",".join(result["flags"]) if result["flags"] else ""
    print(f"{fam}{mark}")
    for r in result["rows"]:
        q = r["g2"] / r["g1"] if r["g1"] > 0 else float("nan")
        print(f"   D={r['duration']:8.1f}s  cpu/s={r['cpu_per_s'] * 1e3:8.2f}ms  ev/s={r['events_per_s']:10.0f}  "
              f"dRSS={r['drss_mb']:7.1f}MB  segs={r['segments']:9d}  g1={r['g1'] / 1e6:7.3f}  g2={r['g2'] / 1e6:7.3f}  g2/g1={q:5.2f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", help="comma-separated family names (default: all)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every family's base duration T")
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--list", action="store_true", help="list the families and their base durations")
    ap.add_argument("--one", nargs=3, metavar=("FAMILY", "DURATION", "WARMUP"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], float(a.one[1]), float(a.one[2]))))
        return
    if a.list:
        for name, (t, _) in FAMILIES.items():
            print(f"{name:22s} T = {t:g} s")
        return
    names = a.families.split(",") if a.families else list(FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        sys.exit(f"error: unknown family {unknown[0]!r} (--list)")
    results = []
    for name in names:
        res = audit(name, a.scale)
        show(res)
        sys.stdout.flush()
        results.append(res)
    flagged = [r["family"] for r in results if r.get("flags") or "error" in r]
    print(f"\n{len(results)} families, {len(flagged)} flagged or failed: {', '.join(flagged) or 'none'}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
