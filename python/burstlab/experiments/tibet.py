"""The TIBET study of Martignon & Capone ("TCP with Bandwidth Estimation over Wireless
Networks").

Every figure of the paper that comes from a simulation, with one command:

- **Figs. 2-3** (§III, fairness): 10 long-lived connections share a 2 or a 10 Mb/s
  DropTail bottleneck, k TCP Reno and 10 − k TIBET, k = 0..10: the mean goodput of each
  kind against the fair share, and Jain's index of the ten.
- **Figs. 4-5** (§IV.A): one connection over a 2 or a 10 Mb/s link whose DropTail buffer
  holds one bandwidth-delay product, packets dropped independently (a Poisson process of
  drops: Bernoulli per packet) with probability 10⁻⁴..10⁻¹; TCP Reno, TIBET and the Ideal
  TCP of §V, with Westwood+ and Vegas beside them. "The one-way RTT is 50 ms" is read as a
  50 ms one-way delay (RTT 100 ms) by default; the other reading (RTT 50 ms) is run too.
- **Fig. 6**: 10 Mb/s, p = 0.1 %, the link's delay set for RTTs of 20-400 ms.
- **Fig. 8** (§IV.B): 2 Mb/s, a two-state continuous-time Markov channel (exponential
  sojourns, mean 8 s good and 4 s bad), 1 % loss in the good state, 0-50 % in the bad.
- **Figs. 11-12** (§V): the wired + wireless path S — BS — D of Fig. 10, RTT 100 and
  400 ms, packet error rate p on the wireless hop: the Ideal TCP's goodput against the
  model 3.4·MSS/(RTT·p·log2(1/p)) (eq. 3), beside TCP Reno against 1.31·MSS/(RTT·√p)
  (eq. 4; Fig. 9 plots the two closed forms).

Every TCP is the ns-2 agent of the paper's time as `docs/study-tibet.md` argues: the
congestion controls differ, the rest is shared (Reno's loss recovery, 1000-byte segments,
no delayed ACKs, initial window 1, an RTO floor of 0.2 s). What the paper leaves open is a
field of :class:`Setup` with a documented default, and the study re-runs the paper's three
TCPs with each of them varied one at a time (``sensitivity``).

Every (cell, replicate) simulation is one row of the results store, keyed by the hash of
its parameters, replicate and seed (:mod:`burstlab.experiments.common`): a killed study
resumes where it stopped and the rows never depend on the worker count. Replicate k uses
the same seed in every cell (common random numbers): the same loss draws for every TCP
and the same start times for every mix of Figs. 2-3, so differences between cells are
paired.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from burstlab._core import LossModel, ParameterError
from burstlab.analytic import tibet_ideal, tibet_reno
from burstlab.experiments.common import environments as common_environments
from burstlab.experiments.common import (
    by_cell,
    cell_groups,
    NAN_RATIO,
    Item,
    Ratio,
    Task,
    cell_hash,
    keyed_items,
    mean_ci,
    paired_difference,
    paired_ratio,
    sweep_points,
)
from burstlab.sim import Link, TcpConfig, presets, run_network, run_network_seeds
from burstlab.sim.presets import bdp_packets
from burstlab.experiments.tibet_settings import (  # noqa: F401  (the study's settings and constants, re-exported)
    CCS,
    FAIR_RATES,
    FIG6_P,
    FIG6_RATE,
    FIG8_RATE,
    KS,
    LABEL,
    LOSS_PS,
    MARKOV,
    MODEL_PS,
    MODEL_RANGE,
    MODEL_RTTS,
    N_FLOWS,
    PAPER_CCS,
    P_BADS,
    QUICK_DURATION,
    QUICK_GRID,
    QUICK_SENSITIVITY,
    READINGS,
    READING_LABEL,
    RTTS,
    SENSITIVITY,
    SINGLE_RATES,
    STUDY,
    Setup,
    StudyConfig,
    WIRED_RATE,
    WIRELESS_DELAY,
    _bad,
)
from burstlab.sweep import task_seed

# --------------------------------------------------------------------------------------
# cells: one simulated configuration (without its replicate)
# --------------------------------------------------------------------------------------
#: Every cell has every key; the ones an experiment does not use are None, so a
#: sensitivity point that does not change an experiment gives the same cells (run once).
_UNUSED = {"k_reno": None, "n_flows": 1, "p": None, "p_good": None, "p_bad": None, "mean_good": None, "mean_bad": None,
           "start_spread": None, "access_delay": None, "wired_rate": None}  # fmt: skip


def tcp_params(s: Setup) -> dict[str, Any]:
    """The fields every cell records: the TCP and the run."""
    return {"recovery": s.recovery, "rto_min": float(s.rto_min), "init_cwnd": s.init_cwnd, "delayed_ack": s.delayed_ack, "mss": s.mss,
            "rwnd": s.rwnd, "buffer_bdp": float(s.buffer_bdp), "duration": float(s.duration), "warmup": float(s.warmup)}  # fmt: skip


def fairness_cell(s: Setup, rate: float, k: int) -> dict[str, Any]:
    """Figs. 2-3: k TCP Reno and N_FLOWS − k TIBET connections over one bottleneck."""
    return {**_UNUSED, "experiment": "fairness", "cc": "reno+tibet", "k_reno": k, "n_flows": N_FLOWS, "rate": float(rate), "one_way": s.one_way,
            "loss": "none", "start_spread": float(s.start_spread), "access_delay": float(s.access_delay), **tcp_params(s)}  # fmt: skip


def bernoulli_cell(s: Setup, cc: str, rate: float, one_way: float, p: float) -> dict[str, Any]:
    """Figs. 4-6: one connection, Bernoulli packet loss ``p`` on the data path."""
    return {**_UNUSED, "experiment": "bernoulli", "cc": cc, "rate": float(rate), "one_way": float(one_way), "loss": "bernoulli", "p": float(p), **tcp_params(s)}


def markov_cell(s: Setup, cc: str, p_bad: float) -> dict[str, Any]:
    """Fig. 8: one connection on 2 Mb/s, the two-state Markov channel of §IV.B."""
    g, b, pg = MARKOV
    return {**_UNUSED, "experiment": "markov", "cc": cc, "rate": FIG8_RATE, "one_way": s.one_way, "loss": "markov",
            "p_good": pg, "p_bad": float(p_bad), "mean_good": g, "mean_bad": b, **tcp_params(s)}  # fmt: skip


def model_cell(s: Setup, cc: str, rtt: float, p: float) -> dict[str, Any]:
    """Figs. 11-12: one connection S — wired — BS — wireless (packet error rate ``p``) — D."""
    return {**_UNUSED, "experiment": "model", "cc": cc, "rate": float(s.wireless_rate), "one_way": float(rtt) / 2, "loss": "bernoulli", "p": float(p),
            "wired_rate": WIRED_RATE, **tcp_params(s)}  # fmt: skip


def cell_id(p: dict[str, Any]) -> str:
    return cell_hash(STUDY, p)


def cells(cfg: StudyConfig, s: Setup, ccs: Sequence[str], readings: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Every cell of environment ``s`` for congestion controls ``ccs``; Figs. 4-5 under
    ``readings`` (default: the environment's own)."""
    out = [fairness_cell(s, r, k) for r in FAIR_RATES for k in cfg.ks]
    for reading in readings or (s.reading,):
        out += [bernoulli_cell(s, cc, r, READINGS[reading], p) for cc in ccs for r in SINGLE_RATES for p in cfg.loss_ps]
    out += [bernoulli_cell(s, cc, FIG6_RATE, rtt / 2, FIG6_P) for cc in ccs for rtt in cfg.rtts]
    out += [markov_cell(s, cc, pb) for cc in ccs for pb in cfg.p_bads]
    out += [model_cell(s, cc, rtt, p) for cc in PAPER_CCS if cc in ccs for rtt in MODEL_RTTS for p in cfg.model_ps]
    return out


# --------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def replicate_seed(study_seed: int, k: int) -> int:
    """Replicate k's seed: the same in every cell (common random numbers)."""
    return task_seed(study_seed, STUDY, "replicate", k)


def items(cfg: StudyConfig, p: dict[str, Any], n: int) -> list[Item]:
    """Replicates 0..n−1 of cell ``p``, keyed by {study, params, replicate, seed, burstlab
    version} (:func:`burstlab.experiments.common.keyed_items`)."""
    return keyed_items(STUDY, cell_id(p), p, [replicate_seed(cfg.seed, k) for k in range(n)])


def _group(p: dict[str, Any]) -> str:
    """The task a cell's runs go to: its environment, experiment and a coordinate, so that
    tasks are a few seconds of work each."""
    env = cell_id({k: v for k, v in p.items() if k in _TASK_ENV})
    return f"{env}/{p['experiment']}/{p['cc']}/{p['rate']:g}/{p['one_way']:g}"


_TASK_ENV = set(tcp_params(Setup())) | {"start_spread", "access_delay", "wired_rate"}


def plan(cfg: StudyConfig) -> list[Task]:
    """Every simulation the study needs, deduplicated by key, grouped into tasks."""
    want: dict[str, tuple[dict[str, Any], int]] = {}  # cell id -> (params, replicates)
    for name, _, s in sweep_points(cfg):
        base = name == "baseline"
        n = cfg.seeds if base else cfg.sweep_seeds
        for p in cells(cfg, s, CCS if base else PAPER_CCS, tuple(READINGS) if base else None):
            cid = cell_id(p)
            have = want.get(cid)
            want[cid] = (p, max(n, have[1] if have else 0))
    groups: dict[str, list[Item]] = {}
    for p, n in want.values():
        groups.setdefault(_group(p), []).extend(items(cfg, p, n))
    return [Task(name, tuple(its)) for name, its in sorted(groups.items())]


# --------------------------------------------------------------------------------------
# one simulation
# --------------------------------------------------------------------------------------
def tcp_config(p: dict[str, Any], cc: str) -> Any:
    """The TCP of a cell: congestion control ``cc``, the rest shared (the paper's agents
    differ only in congestion control)."""
    return TcpConfig(cc=cc, recovery=p["recovery"], mss=p["mss"], init_cwnd=p["init_cwnd"], delayed_ack=p["delayed_ack"], rto_min=p["rto_min"], rwnd=p["rwnd"])


def buffer_packets(p: dict[str, Any]) -> int:
    """The DropTail buffer: ``buffer_bdp`` bandwidth-delay products of the propagation
    round trip, in packets of MSS + 40 header bytes (at least 2)."""
    return bdp_packets(p["rate"], 2 * p["one_way"] * p["buffer_bdp"], p["mss"] + 40)


def start_times(p: dict[str, Any], seed: int) -> list[float]:
    """Figs. 2-3: each connection's start, uniform in [0, start_spread] from the replicate's
    seed (the same for every mix k, so the mixes are paired)."""
    rng = np.random.default_rng([seed, 0x7469_6265])  # "tibe": a stream of its own
    return [float(x) for x in rng.uniform(0.0, p["start_spread"], p["n_flows"])]


def network(p: dict[str, Any], seed: int) -> Any:
    """The :class:`burstlab.sim.Network` of one simulation (see the module docstring)."""
    common = {"duration": p["duration"], "warmup": p["warmup"], "seed": seed}
    if p["experiment"] == "fairness":
        k = p["k_reno"]
        tcps = [tcp_config(p, "reno")] * k + [tcp_config(p, "tibet")] * (p["n_flows"] - k)
        bottleneck = Link(rate=p["rate"], delay=p["one_way"] - p["access_delay"], buffer=buffer_packets(p))
        net = presets.dumbbell(p["n_flows"], bottleneck, access_delay=p["access_delay"], tcp=tcps, **common)
        return replace(net, flows=[replace(f, start=t) for f, t in zip(net.flows, start_times(p, seed))])
    if p["loss"] == "markov":  # §IV.B, Fig. 7: exponential sojourns, a Bernoulli trial per packet at the state's rate
        link = Link(rate=p["rate"], delay=p["one_way"], buffer=buffer_packets(p),
                    loss=LossModel.markov_ct(p["mean_good"], p["mean_bad"], p["p_good"], p["p_bad"]), loss_mode="time")  # fmt: skip
        return presets.single(link, tcp=tcp_config(p, p["cc"]), **common)
    loss = LossModel.bernoulli(p["p"])
    if p["experiment"] == "model":  # Fig. 10: S — wired — BS — wireless — D
        wireless = Link(rate=p["rate"], delay=WIRELESS_DELAY, buffer=buffer_packets(p), loss=loss)
        return presets.wired_wireless(2 * p["one_way"], wireless, wired_rate=p["wired_rate"], tcp=tcp_config(p, p["cc"]), **common)
    link = Link(rate=p["rate"], delay=p["one_way"], buffer=buffer_packets(p), loss=loss)
    return presets.single(link, tcp=tcp_config(p, p["cc"]), **common)


#: The link whose utilisation and queue a row records.
BOTTLENECK = {"fairness": "bottleneck", "bernoulli": "forward", "markov": "forward", "model": "wireless"}

#: Columns of the ``runs`` table: the cell's parameters, then the run's numbers.
RUN_SCHEMA: dict[str, str] = {
    "study": "VARCHAR",
    "cell": "VARCHAR",
    "experiment": "VARCHAR",
    "cc": "VARCHAR",
    "k_reno": "INTEGER",
    "n_flows": "INTEGER",
    "rate": "DOUBLE",
    "one_way": "DOUBLE",
    "loss": "VARCHAR",
    "p": "DOUBLE",
    "p_good": "DOUBLE",
    "p_bad": "DOUBLE",
    "mean_good": "DOUBLE",
    "mean_bad": "DOUBLE",
    "start_spread": "DOUBLE",
    "access_delay": "DOUBLE",
    "wired_rate": "DOUBLE",
    "recovery": "VARCHAR",
    "rto_min": "DOUBLE",
    "init_cwnd": "INTEGER",
    "delayed_ack": "BOOLEAN",
    "mss": "INTEGER",
    "rwnd": "INTEGER",
    "buffer_bdp": "DOUBLE",
    "duration": "DOUBLE",
    "warmup": "DOUBLE",
    "replicate": "INTEGER",
    "seed": "BIGINT",
    "goodput_bps": "DOUBLE",
    "goodput_reno_bps": "DOUBLE",
    "goodput_tibet_bps": "DOUBLE",
    "jain": "DOUBLE",
    "flow_goodputs": "VARCHAR",
    "timeouts": "BIGINT",
    "fast_retransmits": "BIGINT",
    "retransmissions": "BIGINT",
    "packets_sent": "BIGINT",
    "channel_losses": "BIGINT",
    "queue_drops": "BIGINT",
    "utilisation": "DOUBLE",
    "queue_delay_mean": "DOUBLE",
    "events": "BIGINT",
    "sim_config_hash": "VARCHAR",
    "config": "VARCHAR",
}
_RESULT_COLUMNS = set(list(RUN_SCHEMA)[list(RUN_SCHEMA).index("replicate"):]) | {"study", "cell"}


def run_item(it: Item, r: Any = None) -> dict[str, Any]:
    """Simulate one item (or take its result ``r``); its row."""
    p = it.params
    r = run_network(network(p, it.seed)) if r is None else r
    tcp = [f for f in r.flows.values() if f.kind == "tcp"]
    g = [f.goodput_bps for f in tcp]
    k = p["k_reno"] if p["experiment"] == "fairness" else None
    link = r.links[BOTTLENECK[p["experiment"]]]

    def total(attr: str) -> int:
        return int(sum(getattr(f, attr) for f in tcp))

    return {
        "key": it.key, "study": STUDY, "cell": it.cell, **p, "replicate": it.replicate, "seed": it.seed,
        "goodput_bps": float(sum(g)),
        "goodput_reno_bps": float(np.mean(g[:k])) if k else None,
        "goodput_tibet_bps": float(np.mean(g[k:])) if k is not None and k < len(g) else None,
        "jain": r.jain_index, "flow_goodputs": json.dumps([round(x, 3) for x in g]),
        "timeouts": total("timeouts"), "fast_retransmits": total("fast_retransmits"), "retransmissions": total("retransmissions"),
        "packets_sent": total("packets_sent"), "channel_losses": total("channel_losses"), "queue_drops": total("queue_drops"),
        "utilisation": link.utilisation, "queue_delay_mean": link.queue_delay_mean, "events": r.events,
        "sim_config_hash": r.config_hash, "config": it.config,
    }  # fmt: skip


def run_task(task: Task) -> list[dict[str, Any]]:
    """Run every item of a task; one row per item (the worker function). The replicates of
    a cell are simulated together (:func:`burstlab.sim.run_network_seeds`), except in the
    fairness experiment, whose flows' start times depend on the seed."""
    rows = []
    for its in cell_groups(task.items):
        p = its[0].params
        if p["experiment"] == "fairness":
            rows += [run_item(it) for it in its]
        else:
            rows += [run_item(it, r) for it, r in zip(its, run_network_seeds(network(p, its[0].seed), [it.seed for it in its]), strict=True)]
    return rows


def fairness_mechanism(p: dict[str, Any], seeds: Sequence[int]) -> dict[str, dict[str, float]]:
    """Mechanism evidence for the report: re-run a Figs. 2-3 cell with ``seeds`` and the
    window series, and give per kind of connection ("reno", "tibet") the means per
    connection of its goodput ÷ fair share, timeouts and fast retransmits per measured
    second, the ssthresh its loss responses set and its cwnd (segments, every ACK)."""
    k, mss = p["k_reno"], p["mss"]
    acc: dict[str, list[tuple[float, ...]]] = {"reno": [], "tibet": []}
    secs = p["duration"] - p["warmup"]
    for seed in seeds:
        r = run_network(replace(network(p, seed), series=True))
        for i, f in enumerate(r.flows.values()):
            ss, cw, t = f.series["ssthresh"], f.series["cwnd"], f.series["time"]
            keep = t >= p["warmup"]
            with np.errstate(invalid="ignore"):
                changed = np.flatnonzero(np.diff(ss) != 0) + 1  # the rows where a loss response set ssthresh
            set_ = ss[changed[t[changed] >= p["warmup"]]]
            set_ = set_[np.isfinite(set_)]
            acc["reno" if i < k else "tibet"].append((f.goodput_bps / fair_share(p["rate"], mss, p["n_flows"]), f.timeouts / secs, f.fast_retransmits / secs,
                                                      float(np.mean(set_)) / mss if len(set_) else math.nan, float(np.mean(cw[keep])) / mss))  # fmt: skip
    names = ("share", "timeouts_per_s", "fast_retransmits_per_s", "ssthresh", "cwnd")
    return {kind: dict(zip(names, (float(np.nanmean(col)) for col in np.array(v).T))) for kind, v in acc.items() if v}


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellStats:
    """One cell over its replicates: the goodputs by replicate (b/s; Figs. 2-3: the
    aggregate, and each kind's mean per connection), Jain's index, and the mechanism
    counters (per run, or rates)."""

    params: dict[str, Any]
    n: int
    goodput: np.ndarray
    reno: np.ndarray
    tibet: np.ndarray
    jain: np.ndarray
    timeouts_per_s: float  # per measured second, all connections
    fast_retransmits_per_s: float
    channel_loss: float  # channel losses / packets sent
    queue_drop: float  # queue drops / packets sent
    utilisation: float
    queue_delay: float  # mean queueing delay at the bottleneck (s)

    @property
    def mean(self) -> float:
        return mean_ci(self.goodput)[0]

    @property
    def ci(self) -> float:
        return mean_ci(self.goodput)[1]


def _col(rs: Sequence[dict[str, Any]], k: str) -> np.ndarray:
    return np.array([np.nan if r[k] is None else r[k] for r in rs], dtype=float)


def cell_stats(rows: Sequence[dict[str, Any]]) -> dict[str, CellStats]:
    """Group rows by cell; the statistics of each."""
    out = {}
    for cid, rs in by_cell(rows).items():
        p = {k: rs[0][k] for k in RUN_SCHEMA if k in rs[0] and k not in _RESULT_COLUMNS}
        secs = len(rs) * (p["duration"] - p["warmup"])
        sent = sum(r["packets_sent"] for r in rs)
        qd = _col(rs, "queue_delay_mean")
        out[cid] = CellStats(
            params=p, n=len(rs), goodput=_col(rs, "goodput_bps"), reno=_col(rs, "goodput_reno_bps"), tibet=_col(rs, "goodput_tibet_bps"),
            jain=_col(rs, "jain"), timeouts_per_s=sum(r["timeouts"] for r in rs) / secs,
            fast_retransmits_per_s=sum(r["fast_retransmits"] for r in rs) / secs,
            channel_loss=sum(r["channel_losses"] for r in rs) / sent if sent else math.nan,
            queue_drop=sum(r["queue_drops"] for r in rs) / sent if sent else math.nan,
            utilisation=float(np.mean(_col(rs, "utilisation"))), queue_delay=float(np.nanmean(qd)) if np.isfinite(qd).any() else math.nan,
        )  # fmt: skip
    return out


def fair_share(rate: float, mss: int, n: int = N_FLOWS) -> float:
    """The fair share in goodput: the bottleneck's capacity less the 40 header bytes of
    every packet, divided among the ``n`` connections (b/s)."""
    return rate * mss / (mss + 40) / n


@dataclass(frozen=True)
class Order:
    """Where a ≥ b holds over a set of points, from paired 95 % intervals of a − b:
    ``above`` (the interval above 0), ``tied`` (it contains 0), ``below``."""

    above: list[Any]
    tied: list[Any]
    below: list[Any]

    @property
    def n(self) -> int:
        return len(self.above) + len(self.tied) + len(self.below)


class Env:
    """The cells of one environment, by their figure coordinates."""

    def __init__(self, cfg: StudyConfig, setup: Setup, stats: dict[str, CellStats]) -> None:
        self.cfg, self.setup, self._stats = cfg, setup, stats
        self._headline: dict[str, float] | None = None

    def _get(self, p: dict[str, Any]) -> CellStats | None:
        return self._stats.get(cell_id(p))

    def fair(self, rate: float, k: int) -> CellStats | None:
        return self._get(fairness_cell(self.setup, rate, k))

    def single(self, cc: str, rate: float, p: float, reading: str | None = None) -> CellStats | None:
        return self._get(bernoulli_cell(self.setup, cc, rate, READINGS[reading or self.setup.reading], p))

    def rtt(self, cc: str, rtt: float) -> CellStats | None:
        return self._get(bernoulli_cell(self.setup, cc, FIG6_RATE, rtt / 2, FIG6_P))

    def markov(self, cc: str, p_bad: float) -> CellStats | None:
        return self._get(markov_cell(self.setup, cc, p_bad))

    def model(self, cc: str, rtt: float, p: float) -> CellStats | None:
        return self._get(model_cell(self.setup, cc, rtt, p))

    def share(self, rate: float) -> float:
        return fair_share(rate, self.setup.mss)

    @staticmethod
    def order(pairs: Sequence[tuple[Any, CellStats | None, CellStats | None]], attr: str = "goodput") -> Order:
        """a ≥ b at each (point, a, b), by the paired 95 % interval of the difference of
        ``attr`` (goodput, or Jain's index)."""
        o = Order([], [], [])
        for x, a, b in pairs:
            if a is None or b is None:
                continue
            d, h = paired_difference(getattr(a, attr), getattr(b, attr))
            if not math.isfinite(d):
                continue
            (o.above if d - (h if math.isfinite(h) else 0) > 0 else o.below if d + (h if math.isfinite(h) else 0) < 0 else o.tied).append(x)
        return o

    def order_loss(self, a: str, b: str, rate: float, reading: str | None = None) -> Order:
        return self.order([(p, self.single(a, rate, p, reading), self.single(b, rate, p, reading)) for p in self.cfg.loss_ps])

    def order_rtt(self, a: str, b: str) -> Order:
        return self.order([(r, self.rtt(a, r), self.rtt(b, r)) for r in self.cfg.rtts])

    def order_markov(self, a: str, b: str) -> Order:
        return self.order([(pb, self.markov(a, pb), self.markov(b, pb)) for pb in self.cfg.p_bads])

    def ratio(self, a: CellStats | None, b: CellStats | None) -> Ratio:
        return paired_ratio(a.goodput, b.goodput) if a is not None and b is not None else NAN_RATIO

    def fairness_dev(self, rate: float) -> list[tuple[int, str, float, float]]:
        """(k, kind, mean goodput ÷ fair share, its 95 % half-width) for every mix and kind present."""
        out = []
        fs = self.share(rate)
        for k in self.cfg.ks:
            c = self.fair(rate, k)
            if c is None:
                continue
            for kind, arr in (("reno", c.reno), ("tibet", c.tibet)):
                m, h = mean_ci(arr)
                if math.isfinite(m):
                    out.append((k, kind, m / fs, h / fs))
        return out

    def model_error(self, rtt: float, p: float, cc: str = "ideal") -> tuple[float, float]:
        """Simulated goodput ÷ the closed form − 1 (eq. 3 for the Ideal TCP, eq. 4 for Reno,
        the nominal RTT) and its 95 % half-width."""
        c = self.model(cc, rtt, p)
        if c is None:
            return math.nan, math.nan
        m, h = mean_ci(c.goodput)
        ref = closed_form(cc, p, rtt, self.setup.mss)
        return m / ref - 1, h / ref

    def headline(self) -> dict[str, float]:
        """The numbers the sensitivity table follows (NaN where the environment lacks the
        cells); computed once."""
        if self._headline is None:
            self._headline = self._compute_headline()
        return dict(self._headline)

    def _compute_headline(self) -> dict[str, float]:
        d: dict[str, float] = {}
        for rate in FAIR_RATES:
            dev = self.fairness_dev(rate)
            d[f"fair_{rate / 1e6:g}_worst"] = max((abs(x - 1) for _, _, x, _ in dev), default=math.nan)
            js = [c.jain for k in self.cfg.ks if (c := self.fair(rate, k)) is not None]
            d[f"fair_{rate / 1e6:g}_jain"] = min((float(np.nanmean(j)) for j in js), default=math.nan)
        for a, b in (("tibet", "reno"), ("ideal", "tibet")):
            os_ = [self.order_loss(a, b, r) for r in SINGLE_RATES]
            d[f"loss_{a}_{b}_above"] = sum(len(o.above) for o in os_)
            d[f"loss_{a}_{b}_below"] = sum(len(o.below) for o in os_)
        for rate in SINGLE_RATES:
            d[f"loss_{rate / 1e6:g}_tibet_reno_1e-2"] = self.ratio(self.single("tibet", rate, 1e-2), self.single("reno", rate, 1e-2)).value
        o = self.order_rtt("tibet", "reno")
        d["rtt_tibet_reno_above"], d["rtt_tibet_reno_below"] = len(o.above), len(o.below)
        o = self.order_markov("tibet", "reno")
        d["markov_tibet_reno_above"], d["markov_tibet_reno_below"] = len(o.above), len(o.below)
        for rtt in MODEL_RTTS:
            errs = [self.model_error(rtt, p)[0] for p in self.cfg.model_ps if MODEL_RANGE[0] <= p <= MODEL_RANGE[1]]
            d[f"model_{rtt * 1e3:g}_worst"] = max((abs(e) for e in errs if math.isfinite(e)), default=math.nan)
            d[f"model_{rtt * 1e3:g}_at_max_p"] = self.model_error(rtt, max(self.cfg.model_ps))[0]
        return d


def closed_form(cc: str, p: float, rtt: float, mss: int) -> float:
    """Martignon & Capone's closed forms (b/s): eq. 3 for the Ideal TCP, eq. 4 (Mathis et
    al.'s 1.31) for Reno (:mod:`burstlab.analytic`)."""
    if cc == "ideal":
        return tibet_ideal(p, rtt, mss).bps
    if cc == "reno":
        return tibet_reno(p, rtt, mss).bps
    raise ParameterError(f"invalid parameter cc = {cc!r}: the paper's closed forms are for ideal and reno")


# --------------------------------------------------------------------------------------
# the whole study
# --------------------------------------------------------------------------------------
def environments(cfg: StudyConfig, runs: Sequence[dict[str, Any]]) -> tuple[Env, list[tuple[str, Any, Env]]]:
    """The baseline environment (every run) and every sensitivity point's. Every point of a
    sweep, its default included, uses the first ``sweep_seeds`` replicates, so a sweep's
    curve compares like with like (common random numbers)."""
    return common_environments(cfg, runs, cell_stats, Env, sweep_points(cfg), ("baseline",))
