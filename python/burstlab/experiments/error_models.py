"""The error-model study of Pentikousis & Badr ("Error Modeling for TCP Simulations").

Two questions, each asked by a fixed-size TCP transfer timed from its first segment to
the receiver holding the last byte (:attr:`burstlab.sim.FlowResult.completion_time`):

- **Rate-based vs temporal** (§2, Fig. 2): TCP Tahoe moves 5 MB over a channel whose two
  main states A and B have the same exponential sojourns (mean 1 s or 10 s); A drops
  nothing; B drops 1, 10 or 50 %. *Rate-based*: every segment that starts on the channel
  while it is in B is dropped with that probability (a Bernoulli trial; the continuous-time
  Markov chain of Fig. 1a, ``LossModel.markov_ct``). *Temporal*: VDDP (Fig. 1b,
  ``LossModel.vddp``): B alternates exponential ON and OFF sub-periods whose mean ON+OFF
  sub-cycle is ``cycle`` and whose ON share is the drop rate; a segment is lost iff an ON
  sub-period overlaps its time on the channel. The paper does not give the sub-cycle: the
  study sweeps it.
- **Synchronized ACK losses** (§3, Table 1, Fig. 3): an ON/OFF channel (mean 1.8 s good,
  0.2 s bad, every segment on the channel during a bad period lost), 8 MB, Tahoe, Reno and
  NewReno, ACKs never lost (``ack_loss="none"``), lost by the same channel process
  (``"sync"``) or by an independent copy of it (``"independent"``); on a LAN (Table 1) and
  with a fixed 50 ms (Fig. 3a) or 300 ms (Fig. 3b) added delay per segment in each
  direction — a lossless hop in series with the channel, so the loss process sees only
  the channel.

What the paper leaves open (the "low bandwidth environment", buffer, LAN round trip,
segment size, delayed ACKs, timers, the VDDP sub-cycle, ...) is a field of :class:`Setup`
with a documented default (``docs/study-error-models.md``), and the study re-runs every
experiment with each of them varied one at a time (``sensitivity``).

Every (cell, replicate) simulation is one row of the results store
(:class:`burstlab.store.ResultStore`), keyed by the hash of its parameters, replicate and
seed; a task (one environment × one experiment group) runs only the rows still missing,
so a killed study resumes where it stopped, and rows never depend on the worker count.
Replicate k uses the same seed in every cell (common random numbers): the channel's
forward trajectory is the same for the three ACK modes and the three TCP variants, so
their differences are paired.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from burstlab._core import LossModel, ParameterError
from burstlab.experiments.common import environments as common_environments
from burstlab.experiments.common import (  # noqa: F401  (t95, Ratio, write_json, StudyResult: used by the report, the tests and callers)
    by_cell,
    cell_groups,
    Adaptive,
    Item,
    Outputs,
    Ratio,
    StudyResult,
    Task,
    cell_hash,
    keyed_items,
    paired_difference,
    paired_ratio,
    run_keyed_study,
    sweep_points,
    t95,
    write_json,
)
from burstlab.sim import Flow, Hop, Link, Network, TcpConfig, run_network, run_network_seeds
from burstlab.sim.network import LOG_EVENTS, LOG_KINDS
from burstlab.experiments.error_models_settings import (  # noqa: F401  (the study's settings and constants, re-exported)
    ACK_LABEL,
    ACK_MODES,
    DELAY_HOP,
    EQUIVALENCE_DROPS,
    FULL_SEEDS,
    MODELS,
    ON_OFF,
    PAPER_TABLE1,
    QUICK_EQUIVALENCE_DROPS,
    QUICK_SENSITIVITY,
    SCOPE,
    SENSITIVITY,
    STUDY,
    Setup,
    StudyConfig,
    VARIANTS,
)
from burstlab.study.estimate import NAN, ratio
from burstlab.sweep import task_seed

# --------------------------------------------------------------------------------------
# cells: one simulated configuration (without its replicate)
# --------------------------------------------------------------------------------------
def setup_params(s: Setup) -> dict[str, Any]:
    """The environment's fields every cell records (cycle and fig2_ack_loss enter only
    the cells they change)."""
    return {"rate": float(s.rate), "buffer": s.buffer, "lan_delay": float(s.lan_delay), "mss": s.mss, "delayed_ack": s.delayed_ack,
            "rto_min": float(s.rto_min), "rwnd": s.rwnd, "init_cwnd": s.init_cwnd}  # fmt: skip


def sync_cell(s: Setup, variant: str, ack_loss: str, delay: float, size: int) -> dict[str, Any]:
    """§3: the ON/OFF channel (1.8 s / 0.2 s), ``variant``, ``ack_loss``, ``delay`` added one way."""
    return {"experiment": "sync", "variant": variant, "ack_loss": ack_loss, "added_delay": float(delay), "model": "onoff",
            "mean_good": ON_OFF[0], "mean_bad": ON_OFF[1], "drop": 1.0, "cycle": None, "size": size, **setup_params(s)}  # fmt: skip


def models_cell(s: Setup, model: str, sojourn: float, drop: float, size: int) -> dict[str, Any]:
    """§2: TCP Tahoe, rate-based or temporal (VDDP) channel, equal main sojourns, B drop rate ``drop``."""
    return {"experiment": "models", "variant": "tahoe", "ack_loss": s.fig2_ack_loss, "added_delay": 0.0, "model": model,
            "mean_good": float(sojourn), "mean_bad": float(sojourn), "drop": float(drop),
            "cycle": float(s.cycle) if model == "temporal" else None, "size": size, **setup_params(s)}  # fmt: skip


def cell_id(p: dict[str, Any]) -> str:
    """A short identity of a cell (:func:`burstlab.experiments.common.cell_hash`)."""
    return cell_hash(STUDY, p)


def cells(cfg: StudyConfig, s: Setup, scope: str = "all") -> list[dict[str, Any]]:
    """Every cell of environment ``s`` (``scope``: "all", only Fig. 2's "models", or only
    the "temporal" ones)."""
    out: list[dict[str, Any]] = []
    if scope == "all":
        for d in cfg.delays:
            out += [sync_cell(s, v, a, d, cfg.sync_size) for v in VARIANTS for a in ACK_MODES]
    for m in cfg.sojourns:
        for model in MODELS:
            if scope == "temporal" and model != "temporal":
                continue
            drops = sorted(set(cfg.drops) | (set(cfg.equivalence_drops) if model == "temporal" else set()))
            out += [models_cell(s, model, m, r, cfg.models_size) for r in drops]
    return out


# --------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def replicate_seed(study_seed: int, k: int) -> int:
    """Replicate k's seed: the same in every cell (common random numbers)."""
    return task_seed(study_seed, STUDY, "replicate", k)


def items(cfg: StudyConfig, p: dict[str, Any], n: int) -> list[Item]:
    """Replicates 0..n−1 of cell ``p``, keyed by {study, params, replicate, seed, delay hop,
    burstlab version} (:func:`burstlab.experiments.common.keyed_items`)."""
    return keyed_items(STUDY, cell_id(p), p, [replicate_seed(cfg.seed, k) for k in range(n)], {"delay_hop": DELAY_HOP})


_SETUP_KEYS = tuple(setup_params(Setup()))


def _env_key(p: dict[str, Any]) -> str:
    """The environment a cell belongs to (its setup fields, sub-cycle and Fig. 2 ACK mode)."""
    env = {k: p[k] for k in _SETUP_KEYS} | {"cycle": p["cycle"], "ack": p["ack_loss"] if p["experiment"] == "models" else None}
    return cell_id(env)


def _group(p: dict[str, Any]) -> str:
    if p["experiment"] == "sync":
        return f"sync-{p['added_delay']:g}s"
    return f"models-{p['mean_good']:g}s"


def plan(cfg: StudyConfig) -> list[Task]:
    """Every simulation the study needs, deduplicated by key, grouped into tasks."""
    want: dict[str, tuple[dict[str, Any], int]] = {}  # cell id -> (params, replicates)
    for name, _, s in sweep_points(cfg):
        n = cfg.seeds if name in FULL_SEEDS else cfg.sweep_seeds
        for p in cells(cfg, s, "all" if name == "baseline" else SCOPE.get(name, "all")):
            cid = cell_id(p)
            have = want.get(cid)
            want[cid] = (p, max(n, have[1] if have else 0))
    groups: dict[str, list[Item]] = {}
    for cid, (p, n) in want.items():
        groups.setdefault(f"{_env_key(p)}/{_group(p)}", []).extend(items(cfg, p, n))
    return [Task(name, tuple(its)) for name, its in sorted(groups.items())]


# --------------------------------------------------------------------------------------
# one simulation
# --------------------------------------------------------------------------------------
def loss_model(p: dict[str, Any]) -> Any:
    """The channel's loss process of a cell (time mode: decided on the channel)."""
    if p["model"] == "onoff":
        return LossModel.on_off(p["mean_good"], p["mean_bad"])
    if p["model"] == "rate":  # Fig. 1a, rate-based: a Bernoulli trial per segment in B
        return LossModel.markov_ct(p["mean_good"], p["mean_bad"], 0.0, p["drop"])
    if p["model"] == "temporal":  # Fig. 1b, VDDP: A never ON, B ON for a share `drop` of its time
        return LossModel.vddp(p["mean_good"], p["mean_bad"], 0.0, p["drop"], p["cycle"], p["cycle"])
    raise ParameterError(f"invalid parameter model = {p['model']!r}: expected onoff, rate or temporal")


def network(p: dict[str, Any], seed: int) -> Any:
    """The :class:`burstlab.sim.Network` of one simulation: [a lossless ``delay`` hop of the
    added delay, then] the ``channel`` hop (capacity, LAN delay, DropTail buffer, the loss
    process in time mode, ACK losses as ``ack_loss``), one TCP transfer of ``size`` bytes."""
    tcp = TcpConfig(variant=p["variant"], mss=p["mss"], init_cwnd=p["init_cwnd"], rwnd=p["rwnd"], delayed_ack=p["delayed_ack"], rto_min=p["rto_min"])
    hops = []
    if p["added_delay"] > 0:
        hops.append(Hop("delay", Link(rate=DELAY_HOP["rate"], delay=p["added_delay"], buffer=DELAY_HOP["buffer"])))
    channel = Link(rate=p["rate"], delay=p["lan_delay"], buffer=p["buffer"], loss=loss_model(p), loss_mode="time")
    hops.append(Hop("channel", channel, ack_loss=p["ack_loss"]))
    return Network(hops, [Flow("transfer", [h.name for h in hops], tcp=tcp, size=p["size"])], seed=seed)


#: Columns of the ``runs`` table: the cell's parameters, then the transfer's numbers.
RUN_SCHEMA: dict[str, str] = {
    "study": "VARCHAR",
    "cell": "VARCHAR",
    "experiment": "VARCHAR",
    "variant": "VARCHAR",
    "ack_loss": "VARCHAR",
    "added_delay": "DOUBLE",
    "model": "VARCHAR",
    "mean_good": "DOUBLE",
    "mean_bad": "DOUBLE",
    "drop": "DOUBLE",
    "cycle": "DOUBLE",
    "size": "BIGINT",
    "rate": "DOUBLE",
    "buffer": "INTEGER",
    "lan_delay": "DOUBLE",
    "mss": "INTEGER",
    "delayed_ack": "BOOLEAN",
    "rto_min": "DOUBLE",
    "rwnd": "INTEGER",
    "init_cwnd": "INTEGER",
    "replicate": "INTEGER",
    "seed": "BIGINT",
    "completion_time": "DOUBLE",
    "timeouts": "BIGINT",
    "spurious_timeouts": "BIGINT",
    "fast_retransmits": "BIGINT",
    "retransmissions": "BIGINT",
    "packets_sent": "BIGINT",
    "channel_losses": "BIGINT",
    "queue_drops": "BIGINT",
    "acks_sent": "BIGINT",
    "acks_lost": "BIGINT",
    "events": "BIGINT",
    "sim_config_hash": "VARCHAR",
    "config": "VARCHAR",
}


def simulate(p: dict[str, Any], seed: int) -> Any:
    """Run one cell with one seed; its :class:`burstlab.sim.FlowResult`."""
    return run_network(network(p, seed)).flows["transfer"]


def run_task(task: Task) -> list[dict[str, Any]]:
    """Run every item of a task; one row per item (the worker function). The replicates of
    a cell are simulated together (:func:`burstlab.sim.run_network_seeds`: the same results
    as :func:`simulate` for each, the cell's set-up done once)."""
    rows = []
    for its in cell_groups(task.items):
        results = run_network_seeds(network(its[0].params, its[0].seed), [it.seed for it in its])
        for it, r in zip(its, results, strict=True):
            f = r.flows["transfer"]
            rows.append({
                "key": it.key, "study": STUDY, "cell": it.cell, **it.params, "replicate": it.replicate, "seed": it.seed,
                "completion_time": f.completion_time, "timeouts": f.timeouts, "spurious_timeouts": f.spurious_timeouts,
                "fast_retransmits": f.fast_retransmits, "retransmissions": f.retransmissions, "packets_sent": f.packets_sent,
                "channel_losses": f.channel_losses, "queue_drops": f.queue_drops, "acks_sent": f.acks_sent, "acks_lost": f.acks_lost,
                "events": f.events, "sim_config_hash": f.config_hash, "config": it.config,
            })  # fmt: skip
    return rows


def stall_before_timeouts(p: dict[str, Any], seeds: Sequence[int]) -> tuple[float, float]:
    """Mechanism evidence for the report: over transfers of cell ``p`` with ``seeds``, the
    mean idle time from the last ACK the sender received to the retransmission timeout that
    ended that silence (the first timeout of each stall), and the number of such stalls per
    transfer. An ACK that arrives during a bad period restarts the retransmission timer
    (RFC 6298 §5.3) and so delays the timeout; losing it lets the timer expire sooner."""
    gaps: list[float] = []
    for seed in seeds:
        r = run_network(dataclasses.replace(network(p, seed), log=True, series=True))
        lg = r.log
        assert lg is not None
        acks = np.unique(lg["time"][(lg["event"] == LOG_EVENTS.index("arrived")) & (lg["kind"] == LOG_KINDS.index("ack"))])
        t = r.flows["transfer"].series["time"][1:]  # one row after every ACK and every timeout
        is_ack = np.isin(t, acks)
        for k in np.flatnonzero(~is_ack):
            if k > 0 and is_ack[k - 1]:
                gaps.append(float(t[k] - t[k - 1]))
    return (float(np.mean(gaps)) if gaps else math.nan), len(gaps) / max(1, len(seeds))


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellStats:
    """One cell over its replicates: completion time (mean, sd, 95 % CI half-width) and
    the mechanism counters (means per transfer)."""

    params: dict[str, Any]
    n: int
    incomplete: int
    times: np.ndarray  # by replicate (NaN: did not complete)
    mean: float
    sd: float
    ci: float
    timeouts: float
    spurious_timeouts: float
    fast_retransmits: float
    data_loss: float  # channel losses / segments sent
    ack_loss: float  # ACKs lost / ACKs sent
    queue_drops: float
    per_replicate: dict[str, np.ndarray] = field(default_factory=dict)  # timeouts, spurious_timeouts, data_loss by replicate


def cell_stats(rows: Sequence[dict[str, Any]]) -> dict[str, CellStats]:
    """Group rows by cell; the statistics of each."""
    out = {}
    for cid, rs in by_cell(rows).items():
        t = np.array([np.nan if r["completion_time"] is None else r["completion_time"] for r in rs], dtype=float)
        ok = t[np.isfinite(t)]
        n = len(ok)
        sd = float(np.std(ok, ddof=1)) if n > 1 else math.nan
        params = {k: rs[0][k] for k in RUN_SCHEMA if k in rs[0] and k not in _RESULT_COLUMNS}

        def mean(k: str) -> float:
            return float(np.mean([r[k] for r in rs]))

        sent = sum(r["packets_sent"] for r in rs)
        acks = sum(r["acks_sent"] for r in rs)
        out[cid] = CellStats(
            params=params, n=n, incomplete=len(rs) - n, times=t,
            mean=float(np.mean(ok)) if n else math.nan, sd=sd, ci=t95(n) * sd / math.sqrt(n) if n > 1 else math.nan,
            timeouts=mean("timeouts"), spurious_timeouts=mean("spurious_timeouts"), fast_retransmits=mean("fast_retransmits"),
            data_loss=sum(r["channel_losses"] for r in rs) / sent if sent else math.nan,
            ack_loss=sum(r["acks_lost"] for r in rs) / acks if acks else math.nan, queue_drops=mean("queue_drops"),
            per_replicate={"timeouts": np.array([r["timeouts"] for r in rs], float), "spurious_timeouts": np.array([r["spurious_timeouts"] for r in rs], float),
                           "data_loss": np.array([r["channel_losses"] / r["packets_sent"] if r["packets_sent"] else np.nan for r in rs], float)},
        )  # fmt: skip
    return out


_RESULT_COLUMNS = {"study", "cell", "replicate", "seed", "completion_time", "timeouts", "spurious_timeouts", "fast_retransmits", "retransmissions",
                   "packets_sent", "channel_losses", "queue_drops", "acks_sent", "acks_lost", "events", "sim_config_hash", "config"}  # fmt: skip


class Env:
    """The cells of one environment, by their experiment coordinates."""

    def __init__(self, cfg: StudyConfig, setup: Setup, stats: dict[str, CellStats]) -> None:
        self.cfg, self.setup, self._stats = cfg, setup, stats
        self._ids: dict[tuple[Any, ...], str] = {}  # coordinates → cell id (a hash of JSON: looked up thousands of times)
        self._headline: dict[str, Any] | None = None

    def sync(self, variant: str, ack: str, delay: float) -> CellStats | None:
        k = ("sync", variant, ack, delay)
        cid = self._ids.get(k)
        if cid is None:
            cid = self._ids[k] = cell_id(sync_cell(self.setup, variant, ack, delay, self.cfg.sync_size))
        return self._stats.get(cid)

    def models(self, model: str, sojourn: float, drop: float) -> CellStats | None:
        k = ("models", model, sojourn, drop)
        cid = self._ids.get(k)
        if cid is None:
            cid = self._ids[k] = cell_id(models_cell(self.setup, model, sojourn, drop, self.cfg.models_size))
        return self._stats.get(cid)

    def pooled_sync(self, ack: str, delay: float) -> np.ndarray | None:
        """Per replicate, the sum over the three variants (for pooled ratios)."""
        cs = [self.sync(v, ack, delay) for v in VARIANTS]
        if any(c is None for c in cs):
            return None
        n = min(len(c.times) for c in cs)  # type: ignore[union-attr]
        return np.sum([c.times[:n] for c in cs], axis=0)  # type: ignore[union-attr]

    def sync_ratio(self, num: str, den: str, delay: float, variant: str | None = None) -> Ratio:
        """Completion-time ratio of two ACK modes (one variant, or pooled over the three)."""
        if variant is None:
            x, y = self.pooled_sync(num, delay), self.pooled_sync(den, delay)
        else:
            cx, cy = self.sync(variant, num, delay), self.sync(variant, den, delay)
            x, y = (cx.times if cx else None), (cy.times if cy else None)
        if x is None or y is None:
            return Ratio(math.nan, math.nan, math.nan, 0)
        return paired_ratio(x, y)

    def sync_ratio_estimate(self, num: str, den: str, delay: float) -> Any:
        """As :meth:`sync_ratio` pooled over the three variants, as a
        :class:`burstlab.study.estimate.Estimate`."""
        x, y = self.pooled_sync(num, delay), self.pooled_sync(den, delay)
        return NAN if x is None or y is None else ratio(x, y)

    def model_ratio(self, sojourn: float, drop: float, drop_temporal: float | None = None) -> Ratio:
        """Rate-based time ÷ temporal time (same drop rate unless ``drop_temporal``)."""
        a, b = self.models("rate", sojourn, drop), self.models("temporal", sojourn, drop if drop_temporal is None else drop_temporal)
        if a is None or b is None:
            return Ratio(math.nan, math.nan, math.nan, 0)
        return paired_ratio(a.times, b.times)

    def equivalent_drop(self, sojourn: float, rate_drop: float = 0.1) -> float:
        """The temporal B drop rate whose mean time equals the rate-based model's at
        ``rate_drop`` (linear interpolation between the swept temporal drop rates; the first
        crossing; NaN if never crossed)."""
        ref = self.models("rate", sojourn, rate_drop)
        if ref is None or not math.isfinite(ref.mean):
            return math.nan
        pts = []
        for r in sorted(set(self.cfg.drops) | set(self.cfg.equivalence_drops)):
            c = self.models("temporal", sojourn, r)
            if c is not None and math.isfinite(c.mean):
                pts.append((r, c.mean))
        for (r0, t0), (r1, t1) in zip(pts, pts[1:]):
            if (t0 - ref.mean) * (t1 - ref.mean) <= 0 and t1 != t0:
                return r0 + (ref.mean - t0) * (r1 - r0) / (t1 - t0)
        return math.nan

    def headline(self) -> dict[str, Any]:
        """The numbers the sensitivity tables follow (NaN where the environment lacks the cells);
        computed once (the tables, the summary and the report's prose all read them)."""
        if self._headline is None:
            self._headline = self._compute_headline()
        return dict(self._headline)

    def _compute_headline(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        lan = self.sync("tahoe", "none", 0.0)
        d["t1_tahoe_none"] = lan.mean if lan else math.nan
        for delay, tag in zip(self.cfg.delays, ("t1", "f3a", "f3b")):
            d[f"{tag}_indep_sync"] = self.sync_ratio("independent", "sync", delay)
            d[f"{tag}_sync_none"] = self.sync_ratio("sync", "none", delay)
        for m in self.cfg.sojourns:
            for r in self.cfg.drops:
                d[f"f2_{m:g}s_{r:g}"] = self.model_ratio(m, r)
            d[f"f2_{m:g}s_rate10_temp50"] = self.model_ratio(m, 0.1, 0.5)
            d[f"f2_{m:g}s_equiv"] = self.equivalent_drop(m)
        return d


# --------------------------------------------------------------------------------------
# the whole study
# --------------------------------------------------------------------------------------
def environments(cfg: StudyConfig, runs: Sequence[dict[str, Any]]) -> tuple[Env, list[tuple[str, Any, Env]]]:
    """The baseline environment (every transfer) and every sensitivity point's. Along one
    parameter every point, its default included, uses the same replicates (``seeds`` for
    the sub-cycle, the first ``sweep_seeds`` for the others), so a sweep's curve compares
    like with like (common random numbers) instead of setting a 100-transfer default
    beside 20-transfer neighbours."""
    return common_environments(cfg, runs, cell_stats, Env, sweep_points(cfg), FULL_SEEDS)
