"""Padhye validation (Barsocchi et al. §V, Fig. 3): burstlab's own Reno and NewReno over Bernoulli
loss against the full Padhye model.

Barsocchi et al. validate their ns-2 set-up by running a single TCP connection over a Bernoulli
channel, 10 runs of 2000 s with the first 200 s discarded, and comparing the median goodput
with Padhye's formula evaluated at the runs' mean RTT, RTO and forward segment error rate;
agreement is good at high error rates (buffer mostly empty) and Padhye underestimates at low
error rates where the buffer matters.

Here: a bulk transfer over one link whose bandwidth-delay product is well above the windows
Padhye predicts for p ≥ 0.5 % (so the queue stays nearly empty, as the model assumes),
Bernoulli loss on data packets, lossless ACK path. For each variant, p and seed the
simulator reports its send rate, goodput, loss counts and RTT/RTO series; the model is
evaluated at the mean measured RTT (smoothed RTT samples), the median measured RTO (T0, the
timeout before backoff), the measured segment loss rate, b = packets per ACK (2 with delayed
ACKs) and Wmax = the window limit (none by default). The ratio reported is

    median over seeds of the simulated send rate / Padhye's B(p)

(B is a send rate, retransmissions included), plus the same for goodput against B·(1 − p).
``burstlab validate padhye --plot DIR`` runs it and writes the table and the plot.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from burstlab._core import LossModel, ParameterError
from burstlab._util import json_safe
from burstlab.analytic import mathis, padhye, padhye_approx
from burstlab.io import atomic_write
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run

#: Loss probabilities of the comparison: 0.5 % to 10 % (the task's range; Barsocchi et al. Fig. 3
#: spans 2 % to 30 %).
DEFAULT_PS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1)


@dataclass(frozen=True)
class PadhyeSetup:
    """The scenario of the comparison. Defaults: 10 Mb/s, 50 ms one way (RTT ≈ 100 ms, a
    bandwidth-delay product of 125 packets of 1000 bytes, far above Padhye's mean window of
    ≈ 17 packets at p = 0.5 %), a 1000-packet DropTail buffer that never fills, delayed ACKs
    (b = 2), RFC 6298 RTO with a 1 s floor, 600 s runs with the first 100 s discarded
    (Padhye's steady state), 5 seeds."""

    variants: tuple[str, ...] = ("reno", "newreno")
    ps: tuple[float, ...] = DEFAULT_PS
    seeds: int = 5
    duration: float = 600.0
    warmup: float = 100.0
    rate: float = 10e6
    delay: float = 0.050
    buffer: int = 1000
    mss: int = 1000
    delayed_ack: bool = True
    ack_every: int = 2
    ack_timeout: float = 0.2
    rto_min: float = 1.0
    max_cwnd: int | None = None
    first_seed: int = 1

    def validate(self) -> None:
        if not self.variants:
            raise ParameterError("invalid variants: expected at least one TCP variant")
        for p in self.ps:
            if not 0.0 < p < 1.0:
                raise ParameterError(f"invalid p = {p!r}: expected a loss probability in (0, 1)")
        if not (self.rate > 0 and self.delay > 0 and self.buffer >= 1 and self.mss >= 1):
            raise ParameterError(
                f"invalid link: rate = {self.rate!r}, delay = {self.delay!r}, buffer = {self.buffer!r}, "
                f"mss = {self.mss!r}: expected positive values"
            )
        if self.seeds < 1:
            raise ParameterError(f"invalid seeds = {self.seeds!r}: expected at least 1")
        if not (self.duration > 0 and 0 <= self.warmup < self.duration):
            raise ParameterError(
                f"invalid duration = {self.duration!r} / warmup = {self.warmup!r}: expected 0 ≤ warmup < duration"
            )

    @property
    def b(self) -> int:
        """Padhye's b, packets acknowledged per ACK."""
        return self.ack_every if self.delayed_ack else 1


@dataclass(frozen=True)
class RunMeasure:
    """What one simulation run contributes to the comparison."""

    variant: str
    p: float
    seed: int
    send_pps: float  # segments sent per measured second, retransmissions included
    goodput_pps: float
    loss_rate: float  # data segments lost / sent
    rtt: float  # mean smoothed RTT over the measured period, seconds
    t0: float  # median RTO over the measured period, seconds
    timeouts: int
    fast_retransmits: int


@dataclass(frozen=True)
class PadhyeRow:
    """One (variant, p) point: the simulation (median over seeds, with the range) and the
    models evaluated at the mean measured RTT, median T0 and mean loss rate."""

    variant: str
    p: float
    n_runs: int
    loss_rate: float
    rtt: float
    t0: float
    send_pps: float
    send_pps_min: float
    send_pps_max: float
    goodput_pps: float
    padhye_pps: float
    padhye_approx_pps: float
    mathis_pps: float
    ratio: float  # send_pps / padhye_pps
    goodput_ratio: float  # goodput_pps / (padhye_pps · (1 − loss_rate))
    timeouts_per_run: float
    runs: list[RunMeasure] = field(default_factory=list)

    def to_dict(self, runs: bool = False) -> dict[str, Any]:
        d = asdict(self)
        if not runs:
            d.pop("runs")
        return d


def measure(res: Any, variant: str, p: float, seed: int, warmup: float, mss: int = 1000) -> RunMeasure:
    """Extract the comparison's inputs from one ``burstlab.sim.SimResult``."""
    dur = float(res.duration)
    if not dur > 0:
        raise ParameterError(f"simulation of {variant} p={p} seed={seed} measured no time (duration={dur})")
    # Counters and rates cover the measured period (after the warm-up); packets_sent counts
    # every data segment put on the link, retransmissions included: Padhye's send rate.
    sent = int(res.packets_sent)
    send_pps = sent / dur
    loss_rate = int(res.packets_lost) / sent if sent else math.nan
    s = res.series or {}
    rtt = t0 = math.nan
    if "time" in s and len(s["time"]):
        t = np.asarray(s["time"], dtype=np.float64)
        keep = t >= warmup
        srtt = np.asarray(s["srtt"], dtype=np.float64)[keep]
        rto = np.asarray(s["rto"], dtype=np.float64)[keep]
        srtt = srtt[np.isfinite(srtt) & (srtt > 0)]
        rto = rto[np.isfinite(rto) & (rto > 0)]
        if srtt.size:
            rtt = float(srtt.mean())
        if rto.size:
            t0 = float(np.median(rto))
    return RunMeasure(
        variant=variant,
        p=p,
        seed=seed,
        send_pps=send_pps,
        goodput_pps=float(res.goodput_pps),
        loss_rate=loss_rate,
        rtt=rtt,
        t0=t0,
        timeouts=int(res.timeouts),
        fast_retransmits=int(res.fast_retransmits),
    )


def _nanmean(xs: Sequence[float]) -> float:
    a = np.asarray(xs, dtype=np.float64)
    a = a[np.isfinite(a)]
    return float(a.mean()) if a.size else math.nan


def summarise(runs: Sequence[RunMeasure], setup: PadhyeSetup) -> PadhyeRow:
    """Median simulated rate over the seeds against the models at the mean measured
    parameters (Barsocchi et al. §V: "the mean RTT, RTO and forward segment error rates")."""
    if not runs:
        raise ParameterError("summarise: no runs")
    v, p = runs[0].variant, runs[0].p
    send = np.array([r.send_pps for r in runs])
    good = np.array([r.goodput_pps for r in runs])
    loss = _nanmean([r.loss_rate for r in runs])
    rtt = _nanmean([r.rtt for r in runs])
    t0 = _nanmean([r.t0 for r in runs])
    if not math.isfinite(rtt):  # no RTT samples: fall back to the propagation RTT
        rtt = 2.0 * setup.delay
    if not math.isfinite(t0):
        t0 = max(setup.rto_min, 4.0 * rtt)
    pl = loss if 0.0 < loss < 1.0 else p
    w = float(setup.max_cwnd) if setup.max_cwnd else None
    pad = padhye(pl, rtt, t0, setup.b, w, setup.mss).pps
    appr = padhye_approx(pl, rtt, t0, setup.b, w, setup.mss).pps
    mat = mathis(pl, rtt, setup.mss, c=math.sqrt(1.5 / setup.b)).pps
    med_send = float(np.median(send))
    med_good = float(np.median(good))
    return PadhyeRow(
        variant=v,
        p=p,
        n_runs=len(runs),
        loss_rate=pl,
        rtt=rtt,
        t0=t0,
        send_pps=med_send,
        send_pps_min=float(send.min()),
        send_pps_max=float(send.max()),
        goodput_pps=med_good,
        padhye_pps=pad,
        padhye_approx_pps=appr,
        mathis_pps=mat,
        ratio=med_send / pad,
        goodput_ratio=med_good / (pad * (1.0 - pl)),
        timeouts_per_run=float(np.mean([r.timeouts for r in runs])),
        runs=list(runs),
    )


def scenario(setup: PadhyeSetup, variant: str, p: float, seed: int) -> Any:
    """The ``burstlab.sim.Scenario`` of one run."""
    tcp = TcpConfig(
        variant=variant,
        mss=setup.mss,
        max_cwnd=setup.max_cwnd,
        delayed_ack=setup.delayed_ack,
        ack_every=setup.ack_every,
        ack_timeout=setup.ack_timeout,
        rto_min=setup.rto_min,
    )
    link = Link(
        rate=setup.rate,
        delay=setup.delay,
        buffer=setup.buffer,
        buffer_unit="packets",
        loss=LossModel.bernoulli(p),
        loss_mode="packet",
    )
    return Scenario(
        tcp=tcp,
        forward=link,
        reverse=None,
        ack_loss="none",
        workload=Workload(duration=setup.duration, warmup=setup.warmup),
        seed=seed,
        series=True,
    )


def run_comparison(
    setup: PadhyeSetup | None = None, progress: Callable[[str], None] | None = None
) -> list[PadhyeRow]:
    """Run every (variant, p, seed) through ``burstlab.sim.run`` and summarise."""
    st = setup or PadhyeSetup()
    st.validate()
    rows = []
    for v in st.variants:
        for p in st.ps:
            runs = []
            for k in range(st.seeds):
                seed = st.first_seed + k
                res = run(scenario(st, v, p, seed))
                runs.append(measure(res, v, p, seed, st.warmup, st.mss))
            row = summarise(runs, st)
            rows.append(row)
            if progress:
                progress(f"{v:8} p={p:<6g} sim {row.send_pps:9.3f} pps  padhye {row.padhye_pps:9.3f} pps  ratio {row.ratio:.3f}")
    return rows


def format_table(rows: Sequence[PadhyeRow]) -> str:
    head = (
        f"{'variant':8} {'p':>6} {'p_meas':>7} {'rtt_s':>7} {'t0_s':>6} {'TO/run':>7} "
        f"{'sim_pps':>9} {'padhye':>9} {'approx':>9} {'mathis':>9} {'ratio':>6} {'gp_ratio':>8}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.variant:8} {r.p:>6.3g} {r.loss_rate:>7.4f} {r.rtt:>7.4f} {r.t0:>6.3f} {r.timeouts_per_run:>7.1f} "
            f"{r.send_pps:>9.3f} {r.padhye_pps:>9.3f} {r.padhye_approx_pps:>9.3f} {r.mathis_pps:>9.3f} "
            f"{r.ratio:>6.3f} {r.goodput_ratio:>8.3f}"
        )
    lines.append("ratio = median simulated send rate / Padhye full model B(p); gp_ratio = median goodput / (B·(1-p)).")
    return "\n".join(lines)


def write_outputs(rows: Sequence[PadhyeRow], setup: PadhyeSetup, outdir: str) -> list[str]:
    """Write ``padhye.csv``, ``padhye.json`` and ``padhye.png`` into ``outdir``."""
    os.makedirs(outdir, exist_ok=True)
    paths = []
    csv_path = os.path.join(outdir, "padhye.csv")

    def w_csv(tmp: str) -> None:
        with open(tmp, "w", newline="") as fh:
            d0 = rows[0].to_dict()
            wr = csv.DictWriter(fh, fieldnames=list(d0))
            wr.writeheader()
            for r in rows:
                wr.writerow(r.to_dict())

    atomic_write(csv_path, w_csv)
    paths.append(csv_path)
    json_path = os.path.join(outdir, "padhye.json")

    def w_json(tmp: str) -> None:
        with open(tmp, "w") as fh:
            json.dump(json_safe({"setup": asdict(setup), "rows": [r.to_dict(runs=True) for r in rows]}), fh, indent=2, allow_nan=False)

    atomic_write(json_path, w_json)
    paths.append(json_path)
    png = os.path.join(outdir, "padhye.png")
    atomic_write(png, lambda tmp: plot(rows, setup, tmp))
    paths.append(png)
    return paths


def plot(rows: Sequence[PadhyeRow], setup: PadhyeSetup, path: str) -> None:
    """Send rate against p, log-log: simulation medians with the seed range, Padhye's full
    model and approximation at the measured parameters, Mathis' √(3/(2b)) law."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, axr) = plt.subplots(2, 1, figsize=(7, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    markers = ["o", "s", "^", "D", "v"]
    for i, v in enumerate(dict.fromkeys(r.variant for r in rows)):
        rs = [r for r in rows if r.variant == v]
        x = np.array([r.loss_rate for r in rs])
        y = np.array([r.send_pps for r in rs])
        lo = y - np.array([r.send_pps_min for r in rs])
        hi = np.array([r.send_pps_max for r in rs]) - y
        ax.errorbar(x, y, yerr=[lo, hi], fmt=markers[i % len(markers)], capsize=3, label=f"burstlab {v} (median, range of {rs[0].n_runs} seeds)")
        axr.plot(x, [r.ratio for r in rs], markers[i % len(markers)] + "-", label=v)
        if i == 0:
            ax.plot(x, [r.padhye_pps for r in rs], "k-", label="Padhye full model (measured RTT, T0, p)")
            ax.plot(x, [r.padhye_approx_pps for r in rs], "k--", label="Padhye approximation")
            ax.plot(x, [r.mathis_pps for r in rs], "k:", label="Mathis √(3/(2b))/(RTT√p)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("send rate (segments/s)")
    ax.set_title(f"Reno/NewReno over Bernoulli loss vs Padhye (RTT≈{2 * setup.delay * 1000:.0f} ms, b={setup.b})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    axr.axhline(1.0, color="k", lw=0.8)
    axr.set_xlabel("segment loss rate p")
    axr.set_ylabel("sim / Padhye")
    axr.grid(True, which="both", alpha=0.3)
    axr.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=120)
    plt.close(fig)


__all__ = [
    "DEFAULT_PS",
    "PadhyeRow",
    "PadhyeSetup",
    "RunMeasure",
    "format_table",
    "measure",
    "plot",
    "run_comparison",
    "scenario",
    "summarise",
    "write_outputs",
]
