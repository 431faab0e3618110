"""The kernel's TCP through ``burstlab shell`` against ``burstlab sim --profile linux`` on the
same channel (root; docs/shell.md).

Each run: a bulk transfer for ``--secs`` seconds from inside the shell (the kernel's
congestion control chosen with the shell's ``cc``, i.e. ``burstlab shell --cc``) to a receiver
outside, over a 10 Mb/s, 10 ms one-way path with a 100-packet DropTail buffer, the channel on
the data direction only; and the simulator on the same link with ``TcpConfig.profile("linux",
cc=…, mss=1448)`` (a 1500-byte MTU with timestamps). Two comparisons per run:

- **fresh**: the simulator draws its own losses from the model, over many seeds of its own
  (``--fresh-seeds``, 500 by default; cheap, so that its sampling spread hardly adds to the
  kernel's: on a bursty channel one run's goodput varies by a third, and 50 seeds left the
  fresh mean ±5 % uncertain, as much as 50 kernel runs);
- **replayed by packet number**: the simulator replays the exact fates the shell applied to
  the kernel's data segments (``LossModel.replay``; the SYN, the handshake's ACK and the FIN,
  which the simulator does not send, left out, so that its n-th data packet gets the
  kernel's n-th data segment's fate; past the end of the log it wraps, and the share of its
  packets that did is reported), so both see the same loss sequence;
- **replayed by segment**: the simulator's segment meets the fate the shell gave the same
  transmission of the kernel's segment (``LossModel.keyed_replay`` of
  ``shell.for_simulator``: the kernel's byte offsets on the simulator's 1448-byte segments),
  so both lose the same segments; a transmission the kernel never made (a retransmission
  more, or data past the end of the kernel's run) meets the channel's model on the
  simulator's own stream (``otherwise``), not a free pass. (Runs saved before the delivered
  keys were kept, with only the lost ones, replay with such transmissions delivered.)

Goodput on both sides is the simulator's definition: the bytes delivered in order to the
receiver by ``--secs`` seconds after the first send, divided by ``--secs``. The kernel's is
the bytes the receiver had read by the sender's start + ``--secs`` (one monotonic clock on
both sides of the shell), its counters are ``nstat``'s at that moment and its lost segments
those sent within the window; after the window the sender lets its socket drain for
``GRACE`` seconds more, then resets the connection. (Runs saved before this measured the
kernel over the time to the connection's close, and are not pooled with later ones.)

Per cell: mean goodput on each side, the ratio of the means with a 95 % bootstrap interval
(runs resampled; replayed runs as pairs, fresh ones apart) and a verdict against the issue's targets (fresh
±15 %, replayed either way ±10 %): ``within`` when the interval lies inside, ``outside`` when it lies
outside, ``inconclusive`` when it straddles a bound. Beside them, the loss-recovery counters
of both (kernel: ``nstat`` in the shell's namespace). A congestion control the simulator does
not have (``bbr`` before the simulator's BBR) runs on the kernel side alone.

    sudo python benchmarks/shell_vs_sim.py [--cc reno,cubic,bbr] [--channels NAME,...] [--secs 20]
        [--seeds 1-5] [--fresh-seeds 1-500] [--out runs.json] [--json]
    python benchmarks/shell_vs_sim.py --from runs.json     # the same summary again, no kernel runs
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

import numpy as np

from burstlab import _core, shell
from burstlab.lossspec import parse_loss_spec
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run
from shell_accuracy import _sink, bytes_by  # the same receiver (this script's folder is on the path)

RATE, DELAY, BUFFER = 10e6, 0.01, 100
#: name → (loss spec, link layer spec or None). "starlink ge" is fitted when it runs.
CHANNELS: dict[str, tuple[str, str | None]] = {
    "bernoulli 1 %": ("bernoulli:p=0.01", None),
    "bernoulli 5 %": ("bernoulli:p=0.05", None),
    "bernoulli 10 %": ("bernoulli:p=0.1", None),
    "gilbert-elliott b=0.01 g=0.3": ("ge:b=0.01,g=0.3", None),
    "starlink ge": ("", None),
    # 802.11b ARQ (DCF timing at 11 Mb/s), 3 attempts, 20 % of attempts lost: 0.8 % residual
    "arq 3 attempts 20 %": ("bernoulli:p=0.2", "arq:retry_limit=2"),
}
TARGET = {"fresh": 0.15, "replayed": 0.10, "keyed": 0.10}
SIDES = ("fresh", "replayed", "keyed")
MSS = 1448
#: Short names of the sides in the summary line.
LABEL = {"kernel": "kern", "fresh": "fresh", "replayed": "pkt", "keyed": "seg"}
#: Kernel counters (nstat, TcpExt) beside the simulator's.
COUNTERS = {"TcpExtTCPSackRecovery": "fast_retransmits", "TcpExtTCPTimeouts": "timeouts", "TcpExtTCPLossProbes": "loss_probes",
            "TcpExtTCPLostRetransmit": "lost_retransmissions"}  # fmt: skip

#: After the window, how long the sender lets its socket buffer drain before it resets the
#: connection (a run in exponential backoff could otherwise drain for minutes): the replay
#: by packet number then holds the kernel's next packets, not the log's start again.
GRACE = 5.0

SENDER = """
import json, os, socket, struct, subprocess, sys, threading, time
def counters():
    nstat = subprocess.run(["nstat", "-az"], capture_output=True, text=True).stdout
    return {l.split()[0]: int(l.split()[1]) for l in nstat.splitlines()[1:] if len(l.split()) >= 2 and l.split()[1].isdigit()}
port, secs, info, grace = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
s = socket.socket()
s.connect((os.environ["BURSTLAB_SHELL_PEER"], port))
cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\\0").decode()
t = time.monotonic(); b = b"x" * 65536
window = {}
def at_end():  # the counters at the end of the window, t + secs
    time.sleep(max(0.0, t + secs - time.monotonic())); window.update(counters())
w = threading.Thread(target=at_end); w.start()
s.settimeout(0.5)  # a send blocked in backoff must not hold the loop past the window
while time.monotonic() - t < secs:
    try:
        s.sendall(b)
    except socket.timeout:
        pass
w.join()
s.shutdown(socket.SHUT_WR)
s.settimeout(max(0.01, t + secs + grace - time.monotonic()))
try:
    s.recv(1); drained = True
except socket.timeout:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); drained = False
s.close()
open(info, "w").write(json.dumps({"cc": cc, "start": t, "counters": window, "counters_all": counters(), "drained": drained}))
"""


def starlink_ge() -> str:
    """A Gilbert-Elliott fit (Srinivasan et al.'s transition counts) of the Starlink ping
    trace (registered dataset starlink-ping), as a loss spec."""
    from burstlab.datasets.starlink import starlink
    from burstlab.models import GilbertElliottModel

    m = GilbertElliottModel(method="counts").fit(starlink()[0])
    return f"ge:b={m.b_:.6f},g={m.g_:.6f}"


def _kernel(cc: str, spec: str, layer: str | None, seed: int, secs: float) -> dict[str, Any]:
    t, out, port = _sink(timeline=True)
    up = shell.Direction(rate=RATE, delay=DELAY, buffer=BUFFER, loss=parse_loss_spec(spec), link_layer=layer, seed=seed)
    down = shell.Direction(rate=RATE, delay=DELAY, buffer=BUFFER)
    with tempfile.TemporaryDirectory() as d:
        info = os.path.join(d, "info.json")
        res = shell.run([sys.executable, "-c", SENDER, str(port), str(secs), info, str(GRACE)], up, down, cc=cc)
        out["stop"].set()
        t.join()
        with open(info) as f:
            sender = json.load(f)
    if sender["cc"] != cc:
        raise SystemExit(f"error: the kernel ran {sender['cc']}, not {cc}")
    c = sender["counters"]
    log = res.uplink["log"]
    # goodput as the simulator counts it (bytes delivered in order by `secs` after the first
    # send, over `secs`): the bytes the receiver had read by the sender's start + secs (one
    # monotonic clock on both sides of the shell)
    goodput = bytes_by(out, sender["start"] + secs) * 8 / secs
    # the data segments the channel lost in that window (sent before the first one + secs)
    data_in = log["t_in"][log["kind"] == 0]
    end = int(data_in.min()) + int(secs * 1e9) if len(data_in) else 0
    lost_in_window = int(np.count_nonzero((log["kind"] == 0) & (log["fate"] == 1) & (log["t_in"] < end)))
    # the fates of the data segments alone (IP packets over 60 bytes: not the SYN, the
    # handshake's ACK or the FIN), which the simulator's data packets line up with
    admitted = log["fate"] != 2
    data = log["bytes"][admitted] > 60
    # keyed by segment: only the lost transmissions need keeping (a key not in a keyed
    # replay is delivered)
    k = res.keyed_fates("uplink")
    lost = {c: k[c][k["lost"]].tolist() for c in shell.KEY_COLUMNS}
    kept = {c: k[c][~k["lost"]].tolist() for c in shell.KEY_COLUMNS}
    return {"goodput": goodput, "window": True, "goodput_to_close": out["bps"], "drained": sender["drained"],
            "lost_in_window": lost_in_window, "fates": res.fates("uplink")[data], "lost_keys": lost, "kept_keys": kept,
            **{v: c.get(n, 0) for n, v in COUNTERS.items()}}  # fmt: skip


def _kernel_when_free(cc: str, spec: str, layer: str | None, seed: int, secs: float, tries: int = 60) -> dict[str, Any]:
    """:func:`_kernel`, waiting while another shell of the same level holds the shell's
    addresses (its start is refused; a run that has started is not disturbed)."""
    for _ in range(tries - 1):
        try:
            return _kernel(cc, spec, layer, seed, secs)
        except shell.ShellError as e:
            if "taken" not in str(e) and "File exists" not in str(e):
                raise
            print(f"(another shell holds the addresses: {e}; retrying in 5 s)", file=sys.stderr, flush=True)
            time.sleep(5)
    return _kernel(cc, spec, layer, seed, secs)


def _sim(cc: str, loss: _core.LossModel, layer: str | None, seed: int, secs: float) -> dict[str, Any]:
    tcp = TcpConfig.profile("linux", cc=cc, mss=1448)
    fwd = Link(rate=RATE, delay=DELAY, buffer=BUFFER, loss=loss, link_layer=layer)
    r = run(Scenario(tcp=tcp, forward=fwd, reverse=Link(rate=RATE, delay=DELAY, buffer=BUFFER), workload=Workload(duration=secs), seed=seed))
    return {"goodput": float(r.goodput_bps), "packets_sent": int(r.packets_sent), "channel_losses": int(r.channel_losses),
            **{v: int(getattr(r, v)) for v in COUNTERS.values()}}  # fmt: skip


def keyed_model(kernel: dict[str, Any], spec: str) -> _core.LossModel:
    """The simulator's replay keyed by segment of a kernel run: its lost transmissions lost,
    the others it logged delivered, any other transmission decided by the channel's model
    ``spec`` (a run saved with its lost keys alone: delivered)."""
    lost, kept = kernel["lost_keys"], kernel.get("kept_keys")
    logged = kept or {c: [] for c in shell.KEY_COLUMNS}
    cols = {c: np.asarray(lost[c] + logged[c], dtype=np.uint64) for c in shell.KEY_COLUMNS}
    fates = {**cols, "lost": np.r_[np.ones(len(lost["num"]), bool), np.zeros(len(logged["num"]), bool)]}
    k = shell.for_simulator(fates, MSS)
    otherwise = parse_loss_spec(spec) if kept is not None else None
    return _core.LossModel.keyed_replay(k["flow"], k["kind"], k["num"], k["tx"], k["lost"], otherwise=otherwise)


def _sim_knows(cc: str) -> bool:
    try:
        TcpConfig.profile("linux", cc=cc, mss=1448)
    except (_core.ParameterError, ValueError):
        return False
    return True


def ratio_interval(sim: list[float], kern: list[float], paired: bool, n_boot: int = 4000, seed: int = 0) -> tuple[float, float, float]:
    """mean(sim) / mean(kern) and its 95 % percentile-bootstrap interval (runs resampled;
    paired: the same indices on both sides)."""
    s, k = np.asarray(sim), np.asarray(kern)
    g = np.random.default_rng(seed)
    i = g.integers(0, len(s), (n_boot, len(s)))
    j = i if paired else g.integers(0, len(k), (n_boot, len(k)))
    boots = s[i].mean(axis=1) / k[j].mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return float(s.mean() / k.mean()), float(lo), float(hi)


def verdict(lo: float, hi: float, target: float) -> str:
    if 1 - target <= lo and hi <= 1 + target:
        return "within"
    if hi < 1 - target or lo > 1 + target:
        return "outside"
    return "inconclusive"


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def cell(cc: str, name: str, spec: str, layer: str | None, seeds: list[int], secs: float, fresh_seeds: list[int]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    load = [os.getloadavg()[0]]  # the machine's load (1-minute average) before and after the kernel's runs
    for seed in seeds:
        k = _kernel_when_free(cc, spec, layer, seed, secs)
        fates = k.pop("fates")
        row: dict[str, Any] = {"seed": seed, "kernel": k, "logged": int(len(fates)), "lost_at": np.flatnonzero(fates).tolist()}
        runs.append(row)
    load.append(os.getloadavg()[0])
    out: dict[str, Any] = {"cc": cc, "channel": name, "spec": spec, "link_layer": layer, "secs": secs, "runs": runs, "load": load}
    return summarise(out, fresh_seeds)


def summarise(out: dict[str, Any], fresh_seeds: list[int]) -> dict[str, Any]:
    """The cell's means, ratios, intervals, verdicts and counters from its runs; the fresh
    side simulated here, over ``fresh_seeds`` (the simulator is cheap: its own sampling
    spread then hardly adds to the kernel's)."""
    cc, runs = out["cc"], out["runs"]
    windowed = {bool(r["kernel"].get("window")) for r in runs}
    if len(windowed) > 1:
        raise SystemExit(f"error: {cc} {out['channel']}: runs saved before the kernel's goodput was measured over the window "
                         "(bytes to its close) cannot be pooled with later runs")  # fmt: skip
    out["kernel_measure"] = "window" if windowed == {True} else "to close"
    for side in SIDES:
        out.pop(side, None)  # a saved cell's summary: computed again
    if _sim_knows(cc) and out["link_layer"] is None:
        # the replayed sides, from each run's logged fates (with a link layer the log holds
        # each frame's fate, and the simulator's link layer asks its loss model per attempt:
        # no replay there)
        # (a replay keyed by segment only when every run keyed the same way: runs saved with
        # their lost keys alone deliver what the log does not hold, later ones draw it)
        same = len({"kept_keys" in r["kernel"] for r in runs}) == 1
        for r in runs:
            bits = np.ones(r["logged"], np.uint8)
            bits[r["lost_at"]] = 0
            r["replayed"] = _sim(cc, _core.LossModel.replay(_core.BitTrace.from_numpy(bits), "wrap", None), None, r["seed"], out["secs"])
            r.pop("keyed", None)
            if same:
                r["keyed"] = _sim(cc, keyed_model(r["kernel"], out["spec"]), None, r["seed"], out["secs"])
    kern = [r["kernel"]["goodput"] for r in runs]
    out["kernel_mbps"] = statistics.fmean(kern) / 1e6
    sides: dict[str, list[dict[str, Any]]] = {"kernel": [r["kernel"] for r in runs]}
    if _sim_knows(cc):
        sides["fresh"] = [_sim(cc, parse_loss_spec(out["spec"]), out["link_layer"], s, out["secs"]) for s in fresh_seeds]
    for side in ("replayed", "keyed"):
        if side in runs[0]:
            sides[side] = [r[side] for r in runs]
    for side in SIDES:
        if side in sides:
            sim = [r["goodput"] for r in sides[side]]
            m, lo, hi = ratio_interval(sim, kern, paired=side != "fresh")
            out[side] = {"mbps": statistics.fmean(sim) / 1e6, "ratio": m, "ci": [lo, hi], "verdict": verdict(lo, hi, TARGET[side]),
                         "runs": len(sim)}  # fmt: skip
    if "replayed" in sides:
        past = [max(0, r["replayed"]["packets_sent"] - r["logged"]) / r["replayed"]["packets_sent"] for r in runs]
        out["replayed"]["past_log_share"] = statistics.fmean(past)
    out["counters"] = {side: {v: statistics.fmean(r[v] for r in rs) for v in COUNTERS.values()} for side, rs in sides.items()}
    # channel losses per run: the kernel's data segments lost (its log) against the simulator's
    # (runs saved before the window: the kernel's over the whole connection)
    kern_lost = [r["kernel"].get("lost_in_window", sum(1 for k in r["kernel"]["lost_keys"]["kind"] if k == 0)) for r in runs]
    out["losses"] = {"kernel": statistics.fmean(kern_lost),
                     **{side: statistics.fmean(r["channel_losses"] for r in rs) for side, rs in sides.items() if side != "kernel"}}  # fmt: skip
    return out


def _line(c: dict[str, Any]) -> str:
    s = f"{c['cc']:6} {c['channel']:30} kernel {c['kernel_mbps']:6.3f}"
    if "load" in c:
        s = f"[load {c['load'][0]:.1f}-{c['load'][1]:.1f}] " + s
    for side in SIDES:
        if side in c:
            x = c[side]
            s += f"  {side} {x['mbps']:6.3f} ({x['ratio']:.3f} [{x['ci'][0]:.3f}, {x['ci'][1]:.3f}] {x['verdict']}; {x['runs']} runs)"
        elif "fresh" not in c:
            s += f"  {side}   n/a (the simulator has no {c['cc']})"
        else:
            s += f"  {side}   n/a (link layer: the log holds frames' fates)"
    if "replayed" in c:
        s += f"  past log {c['replayed']['past_log_share'] * 100:.1f} %"
    s += "  | losses " + " ; ".join(f"{LABEL[side]} {v:.1f}" for side, v in c["losses"].items())
    cnt = c["counters"]
    s += "  | fr/rto/tlp/lost-retx " + " ; ".join(
        f"{LABEL[side]} " + "/".join(f"{cnt[side][v]:.1f}" for v in COUNTERS.values()) for side in cnt
    )
    return s


NAMES = {"bernoulli 1 %": "Bernoulli 1 %", "bernoulli 5 %": "Bernoulli 5 %", "bernoulli 10 %": "Bernoulli 10 %",
         "gilbert-elliott b=0.01 g=0.3": "Gilbert-Elliott b = 0.01, g = 0.3", "starlink ge": "Gilbert-Elliott fit of the Starlink pings",
         "arq 3 attempts 20 %": "802.11b ARQ, 3 attempts, 20 % per attempt"}  # fmt: skip


def markdown_row(c: dict[str, Any]) -> str:
    """The cell as a row of docs/validation.md's table."""
    row = [c["cc"], NAMES.get(c["channel"], c["channel"]), f"{c['kernel_mbps']:.3f}"]
    for side in SIDES:
        x = c.get(side)
        row += ["—", ""] if x is None else [f"{x['mbps']:.3f}: {x['ratio']:.3f} [{x['ci'][0]:.3f}, {x['ci'][1]:.3f}]", x["verdict"]]
    order = [side for side in ("kernel", *SIDES) if side in c["losses"]]
    row.append(" / ".join(f"{c['losses'][side]:.0f}" for side in order))
    row.append(" / ".join(f"{c['counters'][side]['timeouts']:.1f}" for side in order))
    if "load" in c:
        row.append(f"{c['load'][0]:.1f}-{c['load'][1]:.1f}")
    return "| " + " | ".join(row) + " |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="reno,cubic", help="Kernel congestion controls (any the kernel offers: reno, cubic, bbr).")
    ap.add_argument("--secs", type=float, default=20.0)
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--channels", default=",".join(CHANNELS), help="Comma-separated names of CHANNELS.")
    ap.add_argument("--fresh-seeds", default="1-500", help="Simulator seeds of the fresh side (unpaired with the kernel's runs).")
    ap.add_argument("--out", default=None, help="Write every run (and the cells) to this JSON file.")
    ap.add_argument("--from", dest="from_", default=None,
                    help="Summarise the runs earlier --out files saved (comma-separated: the runs of the same cell pooled; no kernel runs; "
                         "the simulator's sides simulated again).")  # fmt: skip
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="With --from: the cells as rows of docs/validation.md's table.")
    a = ap.parse_args(argv)
    if a.from_:
        pooled: dict[tuple[str, str], dict[str, Any]] = {}
        for path in a.from_.split(","):
            with open(path) as f:
                for c in json.load(f):
                    key = (c["cc"], c["channel"])
                    if key in pooled:
                        pooled[key]["runs"] += c["runs"]
                        pooled[key].pop("load", None)  # several sessions: no one load
                    else:
                        pooled[key] = c
        for c in pooled.values():
            c.setdefault("secs", a.secs)
            c = summarise(c, _seeds(a.fresh_seeds))
            print(markdown_row(c) if a.markdown else _line(c), flush=True)
        return 0
    shell.check_environment()
    ccs = a.cc.split(",")
    for cc in ccs:
        shell.check_congestion_control(cc)
    names = a.channels.split(",")
    unknown = [n for n in names if n not in CHANNELS]
    if unknown:
        ap.error(f"unknown channel {unknown[0]!r} (known: {', '.join(CHANNELS)})")
    cells: list[dict[str, Any]] = []
    for cc in ccs:
        for name in names:
            spec, layer = CHANNELS[name]
            spec = spec or starlink_ge()
            c = cell(cc, name, spec, layer, _seeds(a.seeds), a.secs, _seeds(a.fresh_seeds))
            cells.append(c)
            if not a.json:
                print(_line(c), flush=True)
            if a.out:
                with open(a.out, "w") as f:
                    json.dump(cells, f, indent=1)
    if a.json:
        print(json.dumps([{k: v for k, v in c.items() if k != "runs"} for c in cells], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
