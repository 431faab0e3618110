"""The link- and transport-protocol study of Subramanian, Ramakrishnan and Kalyanaraman
("Experimental Study of Link and Transport Protocols in Interference-Prone WLAN
Environments").

Every result of the slides that comes from an experiment or a simulation, with one command
(``burstlab study link-transport``); ``docs/study-link-transport.md`` argues each choice.

- **Raw channels.** The paper injected noise at an ORBIT receiver (-40 to -25 dBm); we have
  the Rutgers ORBIT noise traces (CRAWDAD rutgers/noise: links of an ORBIT grid at three
  injected-noise settings, dbm-10 < dbm-5 < dbm0 in noise). A noise level's raw channel is
  the traces of one fixed set of links — those with a packet reception ratio of at least
  ``alive_prr`` at the quietest level, as the paper's one sender-receiver pair under rising
  noise — concatenated in a seeded random order (the same order at every level: common
  random numbers) and replayed in time (an ARQ attempt, an LL-HARQ
  fragment), wrapping at the end: each entry lasts ``trace_slot`` (1 ms, about one frame
  attempt) and an attempt or fragment is lost when its air time meets a lost entry (time
  mode: interference goes on while TCP waits), or each unit takes the next entry. Beside them, synthetic uniform (Bernoulli)
  loss 0-50 % per unit (``error_unit="frame"``: the rate is per 1040-byte frame and a
  fragment's is 1 − (1 − p)^(its bytes ÷ the frame's), independent bit errors).
- **Figs. 1, 4** (slides 6-7): one TCP-SACK flow over one 802.11-like hop whose ARQ makes at
  most 7, 15 or 25 attempts of a time uniform in [``attempt_min``, ``attempt_max``] with no
  backoff (slide 8): MAC throughput, raw and residual loss, TCP goodput against the noise
  level (and against uniform raw loss, the axis the paper's stronger noise reaches).
- **Fig. 7, slides 9-10**: the same hop at the example noise level (``example_noise``):
  per-attempt time, per-frame latency and attempts per frame; RTO/SRTT/cwnd over time, the
  spurious timeouts (counted in every run) and a segment sent three times.
- **Slides 15-18**: LL-ARQ (``persistence`` attempts, no FEC) against LL-HARQ (2 attempts,
  proactive and reactive FEC: :class:`burstlab.linklayer.Harq`) under TCP-SACK and LT-TCP,
  over a chain of 1 or 4 hops of ``link_rate``, trace-driven and synthetic: transport
  goodput, per-hop link delay, timeouts, residual loss.
- **Table 1**: 10 flows on one LL-HARQ link, uniform error rate 0-50 %: goodput,
  throughput, residual loss, average latency, PFEC/RFEC sent and wasted.
- **Slides 19-20**: TCP-SACK against LT-TCP, 10 Mb/s, one flow, uniform loss 0-50 %, RTTs
  up to 200 ms; the network of ``benchmarks/lt_tcp/subramanian.py`` (:func:`slides19_scenario`,
  which the benchmark calls).

Every (cell, replicate) simulation is one row of the results store keyed by the hash of its
parameters, replicate and seed (:mod:`burstlab.experiments.common`): a killed study resumes
and the rows never depend on the worker count. Replicate k uses the same seed — the same
channel — in every cell (common random numbers), so differences between cells are paired.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from burstlab.datasets.rutgers_noise import rutgers, rutgers_root
from burstlab.linklayer import Arq, Harq
from burstlab.sim import Link, Scenario, TcpConfig, Workload, presets, run, run_network, run_network_seeds
from burstlab._core import EmptyInputError, LossModel, ParameterError
from burstlab.experiments.common import (
    by_cell,
    cell_groups,
    Item,
    Task,
    cell_hash,
    environments as common_environments,
    keyed_items,
    mean_ci,
    sweep_points,
)
from burstlab.experiments.link_transport_settings import (  # noqa: F401  (re-exported: the report, claims and benchmarks read them here)
    ERROR_UNITS,
    SNR_MODE,
    HOPS,
    LABEL,
    LINKS,
    LTCP_PS,
    LTCP_RTT,
    LTCP_RTTS,
    LTCP_VARIANTS,
    NO_ARQ,
    PERSISTENCES,
    QUICK_DURATION,
    QUICK_GRID,
    QUICK_SENSITIVITY,
    SENSITIVITY,
    STUDY,
    TABLE1_FLOWS,
    TABLE1_PS,
    TCPS,
    UNIFORM_PS,
    Setup,
    StudyConfig,
)
from burstlab.sweep import task_seed
from burstlab.traces import Trace
from burstlab import phy

# --------------------------------------------------------------------------------------
# raw channels from the Rutgers ORBIT traces
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TraceChannels:
    """The raw channels of the noise levels: per level, the traces (1 = received) of the
    links alive at the quietest level (PRR ≥ ``alive_prr``), in (tx, rx) order; ``digest``
    identifies their content (it enters the cells' keys, the folder's path does not)."""

    root: str
    alive_prr: float
    links: tuple[tuple[str, str], ...]
    bits: dict[int, tuple[np.ndarray, ...]]
    digest: str

    @property
    def levels(self) -> tuple[int, ...]:
        """Noise levels, quietest first (dbm-10, dbm-5, dbm0)."""
        return tuple(sorted(self.bits))

    def raw_loss(self, level: int) -> float:
        """The channel's loss rate: lost entries ÷ entries over the selected links."""
        return 1.0 - float(np.mean(np.concatenate(self.bits[level])))

    def sequence(self, level: int, seed: int, hop: int = 0) -> np.ndarray:
        """Replicate ``seed``'s channel of hop ``hop`` at ``level``: the links' traces in a
        seeded random order (the same order at every level)."""
        order = np.random.default_rng([seed & 0xFFFF_FFFF, seed >> 32, hop, 0x6C74]).permutation(len(self.links))
        return np.concatenate([self.bits[level][i] for i in order])


@functools.lru_cache(maxsize=8)
def trace_channels(root: str | None, alive_prr: float) -> TraceChannels:
    """Read the Rutgers ORBIT traces under ``root`` (None: the shared data) and select the
    links (see :class:`TraceChannels`). A folder without the layout, without a noise level or
    without a link alive at the quietest level is a ParameterError naming it."""
    base = rutgers_root(root)
    if not (base / "data").is_dir():
        raise ParameterError(f"invalid --traces {base}: no data/ folder of Rutgers ORBIT traces (data/dbm<noise>/Results_node<TX>_*/sdec<RX>)")
    by: dict[int, dict[tuple[str, str], np.ndarray]] = {}
    try:
        for t in rutgers(base):
            by.setdefault(int(t.meta["noise_dbm"]), {})[(t.meta["tx"], t.meta["rx"])] = t.to_numpy().astype(np.uint8)
    except EmptyInputError as e:
        raise ParameterError(f"invalid --traces {base}: {e}") from None
    if not by:
        raise ParameterError(f"invalid --traces {base}: no dbm<noise> folder with link traces under {base / 'data'}")
    quiet = min(by)
    links = sorted(k for k, a in by[quiet].items() if len(a) and float(np.mean(a)) >= alive_prr and all(k in by[lv] for lv in by))
    if not links:
        raise ParameterError(f"invalid --traces {base}: no link has PRR ≥ {alive_prr:g} at the quietest level dbm{quiet} and a trace at every level")
    bits = {lv: tuple(by[lv][k] for k in links) for lv in by}
    h = hashlib.sha256()
    for lv in sorted(bits):
        h.update(str(lv).encode())
        for a in bits[lv]:
            h.update(np.packbits(a).tobytes() + len(a).to_bytes(4, "little"))
    return TraceChannels(str(base), alive_prr, tuple(links), bits, h.hexdigest()[:16])


# --------------------------------------------------------------------------------------
# cells: one simulated configuration (without its replicate)
# --------------------------------------------------------------------------------------
#: Every cell has every key; those an experiment does not use are None, so a sensitivity
#: point that does not change an experiment gives the same cells (run once).
_UNUSED: dict[str, Any] = {
    "noise_dbm": None, "p": None, "trace_digest": None, "alive_prr": None, "traces": None, "persistence": None, "link": None, "tcp": None,
    "hops": None, "flows": 1, "rtt": None, "attempt_min": None, "attempt_max": None, "delay": None, "link_rate": None, "overhead": None,
    "harq_attempts": None, "harq_sizing": None, "harq_target": None, "fragment_bytes": None, "error_unit": None, "recovery": None,
    "trace_mode": None, "trace_slot": None,
}  # fmt: skip


def _channel(s: Setup, ch: tuple[str, Any], tc: TraceChannels | None) -> dict[str, Any]:
    """A channel's fields: ("orbit", level) or ("uniform", p)."""
    kind, x = ch
    if kind == "orbit":
        assert tc is not None
        return {"channel": "orbit", "noise_dbm": int(x), "trace_digest": tc.digest, "alive_prr": float(s.alive_prr), "traces": tc.root,
                "trace_mode": s.trace_mode, "trace_slot": float(s.trace_slot) if s.trace_mode == "time" else None}
    return {"channel": "uniform", "p": float(x)}


def _run_fields(s: Setup, buffer: int | None = None) -> dict[str, Any]:
    return {"buffer": int(buffer if buffer is not None else s.buffer), "rto_min": float(s.rto_min), "mss": s.mss, "duration": float(s.duration)}


def orbit_cell(s: Setup, ch: tuple[str, Any], persistence: int, tc: TraceChannels | None = None) -> dict[str, Any]:
    """Figs. 1, 4, 7, slides 9-10: one TCP flow over the ORBIT hop with ARQ persistence R."""
    return {**_UNUSED, "experiment": "orbit", **_channel(s, ch, tc), "persistence": int(persistence), "link": "arq", "tcp": "sack", "hops": 1,
            "attempt_min": float(s.attempt_min), "attempt_max": float(s.attempt_max), "delay": float(s.orbit_delay), "recovery": s.recovery,
            **_run_fields(s)}  # fmt: skip


def _sim_link(s: Setup, link: str, ch: tuple[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {"link": link, "link_rate": float(s.link_rate), "overhead": float(s.overhead), "delay": float(s.hop_delay)}
    if link == "llarq":
        d["persistence"] = s.persistence
    else:
        d.update(harq_attempts=s.harq_attempts, harq_sizing=s.harq_sizing, harq_target=float(s.harq_target), fragment_bytes=s.fragment_bytes)
    if ch[0] == "uniform":
        d["error_unit"] = s.error_unit
    return d


def lltx_cell(s: Setup, ch: tuple[str, Any], link: str, tcp: str, hops: int, tc: TraceChannels | None = None) -> dict[str, Any]:
    """Slides 15-18: one flow of ``tcp`` over ``hops`` hops of ``link`` (LL-ARQ or LL-HARQ)."""
    return {**_UNUSED, "experiment": "lltx", **_channel(s, ch, tc), **_sim_link(s, link, ch), "tcp": tcp, "hops": int(hops), **_run_fields(s)}


def table1_cell(s: Setup, p: float) -> dict[str, Any]:
    """Table 1: ``TABLE1_FLOWS`` flows over one LL-HARQ link, uniform error rate ``p``."""
    ch = ("uniform", p)
    return {**_UNUSED, "experiment": "table1", **_channel(s, ch, None), **_sim_link(s, "llharq", ch), "tcp": s.table1_tcp, "hops": 1,
            "flows": TABLE1_FLOWS, **_run_fields(s)}  # fmt: skip


def ltcp_cell(s: Setup, variant: str, p: float, rtt: float) -> dict[str, Any]:
    """Slides 19-20: one flow of ``variant`` over benchmarks/lt_tcp/subramanian.py's link."""
    return {**_UNUSED, "experiment": "ltcp", "channel": "uniform", "p": float(p), "tcp": variant, "hops": 1, "rtt": float(rtt), "link_rate": 10e6,
            "buffer": s.ltcp_buffer, "rto_min": 1.0, "mss": 1000, "duration": float(s.duration)}  # fmt: skip


def cell_id(p: dict[str, Any]) -> str:
    return cell_hash(STUDY, p)


def channels(cfg: StudyConfig, tc: TraceChannels) -> list[tuple[str, Any]]:
    """The raw channels of Figs. 1, 4 and slides 15-18: the noise levels, then uniform loss."""
    return [("orbit", lv) for lv in noise_levels(cfg, tc)] + [("uniform", p) for p in cfg.uniform_ps]


def noise_levels(cfg: StudyConfig, tc: TraceChannels) -> tuple[int, ...]:
    if cfg.noise_levels is None:
        return tc.levels
    bad = [lv for lv in cfg.noise_levels if lv not in tc.bits]
    if bad:
        raise ParameterError(f"invalid parameter noise = {bad[0]}: the traces have levels {', '.join(f'dbm{x}' for x in tc.levels)}")
    return tuple(cfg.noise_levels)


def headline_uniform(cfg: StudyConfig) -> float:
    """The synthetic error rate the sensitivity table follows: 30 %, or the grid's largest."""
    return 0.3 if 0.3 in cfg.uniform_ps else max(cfg.uniform_ps)


def cells(cfg: StudyConfig, s: Setup, tc: TraceChannels, full: bool = True) -> list[dict[str, Any]]:
    """Every cell of environment ``s``; ``full=False`` (a sensitivity point): only those its
    headline numbers use — the ORBIT hop at the example noise level and on the uniform grid,
    slides 15-18 at the example noise level and the headline error rate, Table 1, and slides
    19-20 at their RTT."""
    if s.example_noise not in tc.bits:
        raise ParameterError(f"invalid parameter example_noise = {s.example_noise}: the traces have levels {', '.join(f'dbm{x}' for x in tc.levels)}")
    chs = channels(cfg, tc)
    sub = chs if full else [("orbit", s.example_noise), ("uniform", headline_uniform(cfg))]
    out = [orbit_cell(s, ch, r, tc) for r in PERSISTENCES for ch in (chs if full else [("orbit", s.example_noise)])]
    out.append(orbit_cell(s, ("orbit", s.example_noise), NO_ARQ, tc))
    if not full:
        out += [orbit_cell(s, ("uniform", p), 15, tc) for p in cfg.uniform_ps]
    out += [lltx_cell(s, ch, link, tcp, h, tc) for link in LINKS for tcp in TCPS for h in HOPS for ch in sub]
    out += [table1_cell(s, p) for p in cfg.table1_ps]
    out += [ltcp_cell(s, v, p, LTCP_RTT) for v in LTCP_VARIANTS for p in cfg.ltcp_ps]
    if full:
        out += [ltcp_cell(s, v, p, rtt) for v in LTCP_VARIANTS for p in (0.0, 0.1) for rtt in cfg.ltcp_rtts]
    return out


# --------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def replicate_seed(study_seed: int, k: int) -> int:
    """Replicate k's seed: the same in every cell (common random numbers)."""
    return task_seed(study_seed, STUDY, "replicate", k)


def items(cfg: StudyConfig, p: dict[str, Any], n: int) -> list[Item]:
    return keyed_items(STUDY, cell_id(p), p, [replicate_seed(cfg.seed, k) for k in range(n)])


def plan(cfg: StudyConfig) -> list[Task]:
    """Every simulation the study needs, deduplicated by key, grouped into tasks (one per
    experiment, channel kind and environment)."""
    tc = trace_channels(cfg.traces, cfg.setup.alive_prr)
    want: dict[str, tuple[dict[str, Any], int]] = {}
    for name, _, s in sweep_points(cfg):
        n = cfg.seeds if name == "baseline" else cfg.sweep_seeds
        tcs = tc if s.alive_prr == cfg.setup.alive_prr else trace_channels(cfg.traces, s.alive_prr)
        for p in cells(cfg, s, tcs, full=name == "baseline"):
            cid = cell_id(p)
            have = want.get(cid)
            want[cid] = (p, max(n, have[1] if have else 0))
    groups: dict[str, list[Item]] = {}
    for p, n in want.values():
        env = cell_id({k: v for k, v in p.items() if k not in ("p", "noise_dbm", "persistence", "tcp", "link", "hops")})
        groups.setdefault(f"{p['experiment']}/{p['channel']}/{env}", []).extend(items(cfg, p, n))
    return [Task(name, tuple(its)) for name, its in sorted(groups.items())]


# --------------------------------------------------------------------------------------
# one simulation
# --------------------------------------------------------------------------------------
def frame_bytes(p: dict[str, Any]) -> int:
    """A data frame's network-layer bytes: MSS + 40 header bytes."""
    return int(p["mss"]) + 40


def link_layer(p: dict[str, Any]) -> Any:
    """The cell's link layer: the ORBIT hop's ARQ (attempts uniform in [min, max], no
    backoff), LL-ARQ or LL-HARQ at ``link_rate`` plus ``overhead`` per attempt."""
    if p["experiment"] == "orbit":
        timing = p["attempt_min"] if p["attempt_min"] == p["attempt_max"] else (p["attempt_min"], p["attempt_max"])
        return Arq(retry_limit=p["persistence"], counts="attempts", timing=timing)
    if p["link"] == "llarq":
        return Arq(retry_limit=p["persistence"], counts="attempts", timing=p["overhead"], rate=p["link_rate"])
    return Harq(attempts=p["harq_attempts"], sizing=p["harq_sizing"], target=p["harq_target"], fragment_bytes=p["fragment_bytes"],
                timing=p["overhead"], rate=p["link_rate"])  # fmt: skip


def unit_loss(p: dict[str, Any]) -> float:
    """A synthetic channel's loss probability per unit: ``p`` itself, or with
    ``error_unit = "frame"`` for a LL-HARQ fragment 1 − (1 − p)^(fragment bytes on the air ÷
    frame bytes) (independent bit errors)."""
    q = p["p"]
    if p["error_unit"] != "frame" or p["link"] != "llharq" or q == 0:
        return float(q)

    h = Harq()
    fb = frame_bytes(p) + 8  # + LLC/SNAP, as Harq cuts it
    k = math.ceil(fb / p["fragment_bytes"])
    frag = math.ceil(fb / k) + h.fragment_header_bytes
    return 1.0 - (1.0 - q) ** (frag / fb)


def channel_loss(p: dict[str, Any], seed: int, hop: int) -> Any:
    """Hop ``hop``'s raw channel for replicate ``seed`` (None: lossless)."""
    if p["channel"] == "orbit":
        tc = trace_channels(p["traces"], p["alive_prr"])
        if tc.digest != p["trace_digest"]:
            raise ParameterError(f"invalid --traces {p['traces']}: its traces changed since the study was planned (digest {tc.digest}, planned {p['trace_digest']})")
        return LossModel.replay(Trace(tc.sequence(p["noise_dbm"], seed, hop)).bits, end="wrap", slot=p["trace_slot"])
    q = unit_loss(p)
    if q <= 0:
        return None
    if p["error_unit"] in ("ber", "snr"):
        return size_aware_loss(p["error_unit"], q, frame_bytes(p) + 8)  # + LLC/SNAP, as the link layers count it
    return LossModel.bernoulli(q)


def size_aware_loss(unit: str, q: float, psdu: int) -> Any:
    """A channel that loses a ``psdu``-byte frame with probability ``q`` and every other
    unit (a LL-HARQ fragment) at its own size: bit errors at the BER that gives ``q``
    ("ber"), or the constant SNR at which :data:`SNR_MODE`'s curve gives ``q`` ("snr")."""

    if unit == "ber":
        return LossModel.bit_errors(1.0 - (1.0 - q) ** (1.0 / (8 * psdu)), psdu)

    snr = phy.snr_for_error(SNR_MODE, q, psdu)
    if not math.isfinite(snr):
        raise ParameterError(f"invalid error rate p = {q}: {SNR_MODE}'s curve loses a {psdu}-byte frame with it at no SNR in [-20, 60] dB")
    return phy.loss_model(SNR_MODE, psdu, {"kind": "process", "mean_db": snr})


def slides19_scenario(variant: str, p: float, seed: int, *, duration: float = 100.0, rtt: float = LTCP_RTT, buffer: int = 250, abc: bool = False) -> Any:
    """Slides 19-20 (after Tickoo et al.'s LT-TCP Figs. 1 and 4): one flow of ``variant``
    (:data:`LTCP_VARIANTS`) over 10 Mb/s, ``rtt`` / 2 each way, a RED queue with ns-2's and
    ns-3's defaults marking ECN-capable packets, a ``buffer``-packet buffer, Bernoulli loss
    ``p`` of every data packet (ACKs not lost), 1000-byte segments, RFC defaults otherwise
    (``benchmarks/lt_tcp/subramanian.py`` runs the same scenario)."""
    tcp = TcpConfig(**LTCP_VARIANTS[variant], abc=abc)
    link = Link(rate=10e6, delay=rtt / 2, buffer=buffer, queue="red", loss=f"bernoulli:p={p}" if p > 0 else None)
    return Scenario(tcp=tcp, forward=link, workload=Workload(duration=duration), seed=seed)


def network(p: dict[str, Any], seed: int) -> Any:
    """The :class:`burstlab.sim.Network` of one simulation (orbit, lltx, table1)."""
    tcp = TcpConfig(variant=p["tcp"] if p["experiment"] != "orbit" else p["recovery"], mss=p["mss"], rto_min=p["rto_min"])
    layer = link_layer(p)
    common = {"duration": p["duration"], "seed": seed}
    mode: Literal["packet", "time"] = "time" if p["trace_mode"] == "time" else "packet"
    links = [Link(delay=p["delay"], buffer=p["buffer"], loss=channel_loss(p, seed, h), loss_mode=mode, link_layer=layer) for h in range(p["hops"])]
    return presets.chain(links, tcp=tcp, flows=p["flows"], **common)


#: Columns of the ``runs`` table: the cell's parameters, then the run's numbers.
RUN_SCHEMA: dict[str, str] = {
    "study": "VARCHAR", "cell": "VARCHAR", "experiment": "VARCHAR", "channel": "VARCHAR", "noise_dbm": "INTEGER", "p": "DOUBLE",
    "trace_digest": "VARCHAR", "alive_prr": "DOUBLE", "traces": "VARCHAR", "persistence": "INTEGER", "link": "VARCHAR", "tcp": "VARCHAR",
    "hops": "INTEGER", "flows": "INTEGER", "rtt": "DOUBLE", "attempt_min": "DOUBLE", "attempt_max": "DOUBLE", "delay": "DOUBLE",
    "link_rate": "DOUBLE", "overhead": "DOUBLE", "harq_attempts": "INTEGER", "harq_sizing": "VARCHAR", "harq_target": "DOUBLE",
    "fragment_bytes": "INTEGER", "error_unit": "VARCHAR", "recovery": "VARCHAR", "trace_mode": "VARCHAR", "trace_slot": "DOUBLE", "buffer": "INTEGER", "rto_min": "DOUBLE", "mss": "INTEGER",
    "duration": "DOUBLE",
    "replicate": "INTEGER", "seed": "BIGINT",
    "goodput_bps": "DOUBLE", "timeouts": "BIGINT", "spurious_timeouts": "BIGINT", "retransmissions": "BIGINT", "fast_retransmits": "BIGINT",
    "packets_sent": "BIGINT", "tcp_losses": "BIGINT",
    "frames": "BIGINT", "dropped": "BIGINT", "attempts": "BIGINT", "units_sent": "BIGINT", "units_lost": "BIGINT",
    "raw_loss": "DOUBLE", "residual_loss": "DOUBLE", "mac_bps": "DOUBLE", "link_bps": "DOUBLE",
    "latency_mean": "DOUBLE", "latency_p99": "DOUBLE", "latency_max": "DOUBLE", "attempt_time_mean": "DOUBLE", "queue_delay_mean": "DOUBLE",
    "data_sent_bps": "DOUBLE", "pfec_sent_bps": "DOUBLE", "rfec_sent_bps": "DOUBLE", "pfec_wasted_bps": "DOUBLE", "rfec_wasted_bps": "DOUBLE",
    "lt_pfec": "BIGINT", "lt_rfec": "BIGINT", "ecn_reductions": "BIGINT", "attempts_hist": "VARCHAR",
    "events": "BIGINT", "sim_config_hash": "VARCHAR", "config": "VARCHAR",
}  # fmt: skip
_RESULT_COLUMNS = set(list(RUN_SCHEMA)[list(RUN_SCHEMA).index("replicate"):]) | {"study", "cell"}
_NO_LINK = {k: None for k in ("frames", "dropped", "attempts", "units_sent", "units_lost", "raw_loss", "residual_loss", "mac_bps", "link_bps",
                              "latency_mean", "latency_p99", "latency_max", "attempt_time_mean", "queue_delay_mean", "data_sent_bps",
                              "pfec_sent_bps", "rfec_sent_bps", "pfec_wasted_bps", "rfec_wasted_bps", "attempts_hist")}  # fmt: skip


def link_numbers(p: dict[str, Any], r: Any) -> dict[str, Any]:
    """The link-layer numbers of a network run over the data hops h0..h{hops-1}: counters
    summed, raw loss = units lost ÷ sent, residual loss end to end = 1 − Π(1 − dropped ÷
    frames) over the hops, mean latency (service time of a frame, all hops' frames), the
    worst hop's p99 and maximum, MAC throughput of the first hop (bits/s of frames
    delivered), its link throughput (bits/s on the air: frames sent, or HARQ's data + FEC)
    and FEC rates, its queueing delay and attempts per frame."""
    hops = [r.links[f"h{k}"] for k in range(p["hops"])]
    st = [h.link_layer for h in hops]
    first, s0 = hops[0], st[0]
    secs = p["duration"]
    frames = sum(s.frames for s in st)
    surv = math.prod(1 - s.dropped / s.frames for s in st if s.frames)
    lat_n = sum(s.latency.count for s in st)
    fec = {k: b * 8 / secs for k, (_, b) in s0.fec.items()}
    fb = first.bytes_sent / first.sent if first.sent else frame_bytes(p)
    hist = [int(x) for x in s0.attempts_per_frame]
    while hist and hist[-1] == 0:
        hist.pop()
    return {
        "frames": frames, "dropped": sum(s.dropped for s in st), "attempts": sum(s.attempts for s in st),
        "units_sent": sum(s.units_sent for s in st), "units_lost": sum(s.units_lost for s in st),
        "raw_loss": sum(s.units_lost for s in st) / max(1, sum(s.units_sent for s in st)), "residual_loss": 1 - surv if frames else None,
        "mac_bps": s0.delivered * fb * 8 / secs,
        "link_bps": (fec["data_sent"] + fec["pfec_sent"] + fec["rfec_sent"]) if p["link"] == "llharq" else first.bytes_sent * 8 / secs,
        "latency_mean": sum((s.latency.mean or 0.0) * s.latency.count for s in st) / lat_n if lat_n else None,
        "latency_p99": max((s.latency.quantiles.get(0.99) or 0.0) for s in st) if lat_n else None,
        "latency_max": max((s.latency.max or 0.0) for s in st) if lat_n else None,
        "attempt_time_mean": s0.attempt_time.mean, "queue_delay_mean": first.queue_delay_mean,
        "data_sent_bps": fec["data_sent"], "pfec_sent_bps": fec["pfec_sent"], "rfec_sent_bps": fec["rfec_sent"],
        "pfec_wasted_bps": fec["pfec_wasted"], "rfec_wasted_bps": fec["rfec_wasted"], "attempts_hist": json.dumps(hist),
    }  # fmt: skip


def run_item(it: Item, r: Any = None) -> dict[str, Any]:
    """Simulate one item (or take its network result ``r``); its row."""
    p = it.params
    head = {"key": it.key, "study": STUDY, "cell": it.cell, **p, "replicate": it.replicate, "seed": it.seed}
    if p["experiment"] == "ltcp":
        sr = run(slides19_scenario(p["tcp"], p["p"], it.seed, duration=p["duration"], rtt=p["rtt"], buffer=p["buffer"]))
        return {**head, **_NO_LINK, "goodput_bps": sr.goodput_bps, "timeouts": sr.timeouts, "spurious_timeouts": None, "retransmissions": sr.retransmissions,
                "fast_retransmits": sr.fast_retransmits, "packets_sent": sr.packets_sent, "tcp_losses": sr.channel_losses + sr.queue_drops,
                "lt_pfec": sr.pfec_sent, "lt_rfec": sr.rfec_sent, "ecn_reductions": sr.ecn_reductions, "events": sr.events,
                "sim_config_hash": sr.config_hash, "config": it.config}  # fmt: skip

    r = run_network(network(p, it.seed)) if r is None else r
    fl = [f for f in r.flows.values() if f.kind == "tcp"]

    def total(attr: str) -> int:
        return int(sum(getattr(f, attr) for f in fl))

    return {**head, "goodput_bps": float(sum(f.goodput_bps for f in fl)), "timeouts": total("timeouts"), "spurious_timeouts": total("spurious_timeouts"),
            "retransmissions": total("retransmissions"), "fast_retransmits": total("fast_retransmits"), "packets_sent": total("packets_sent"),
            "tcp_losses": total("channel_losses") + total("queue_drops"), **link_numbers(p, r), "lt_pfec": total("pfec_sent"),
            "lt_rfec": total("rfec_sent"), "ecn_reductions": total("ecn_reductions"), "events": r.events, "sim_config_hash": r.config_hash,
            "config": it.config}  # fmt: skip


def run_task(task: Task) -> list[dict[str, Any]]:
    """Run every item of a task; one row per item (the worker function). The replicates of
    a cell are simulated together (:func:`burstlab.sim.run_network_seeds`), except on a
    single link (slides 19-21) and on the ORBIT traces, whose channel depends on the seed."""
    rows = []
    for its in cell_groups(task.items):
        p = its[0].params
        if p["experiment"] == "ltcp" or p["channel"] == "orbit":
            rows += [run_item(it) for it in its]
        else:
            rows += [run_item(it, r) for it, r in zip(its, run_network_seeds(network(p, its[0].seed), [it.seed for it in its]), strict=True)]
    return rows


@dataclass(frozen=True)
class Example:
    """Fig. 7 and slides 9-10: one run of the ORBIT hop re-simulated with its series and
    per-packet log: the link layer's distributions, the flow's RTO/SRTT/cwnd, its timeouts
    (spurious among them) and a segment sent three times (None if none was) with the number
    of its copies that reached the receiver (two: the third was redundant)."""

    params: dict[str, Any]
    seed: int
    stats: Any  # LinkLayerStats
    series: dict[str, np.ndarray]
    timeouts: int
    spurious: int
    log: dict[str, np.ndarray]
    thrice: int | None
    copies: int


def example_run(p: dict[str, Any], seed: int) -> Example:
    """Re-run cell ``p`` (an ORBIT-hop cell) with replicate ``seed``, its series and log."""
    r = run_network(replace(network(p, seed), series=True, log=True))
    f = r.flows["f0"]
    log = r.log or {}
    sent = (log["event"] == 0) & (log["kind"] == 0) & (log["link"] == 0)
    segs, counts = np.unique(log["seg"][sent], return_counts=True)
    thrice, copies = None, 0
    if (counts >= 3).any():
        # slide 10: the first segment sent three times of which two copies reached the receiver
        # (the second got through, the third was redundant); else the first sent three times
        arrived = (log["event"] == 3) & (log["kind"] == 0)
        twice = [int(seg) for seg in segs[counts >= 3] if np.count_nonzero(arrived & (log["seg"] == seg)) >= 2]
        thrice = twice[0] if twice else int(segs[counts >= 3][0])
        copies = int(np.count_nonzero(arrived & (log["seg"] == thrice)))
    return Example(p, seed, r.links["h0"].link_layer, dict(f.series), f.timeouts, f.spurious_timeouts, log, thrice, copies)


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
#: Per-replicate columns a cell keeps as arrays.
ARRAYS = ("goodput_bps", "timeouts", "spurious_timeouts", "raw_loss", "residual_loss", "mac_bps", "link_bps", "latency_mean", "latency_p99",
          "attempt_time_mean", "queue_delay_mean", "data_sent_bps", "pfec_sent_bps", "rfec_sent_bps", "pfec_wasted_bps", "rfec_wasted_bps")  # fmt: skip


@dataclass(frozen=True)
class CellStats:
    """One cell over its replicates: every column of :data:`ARRAYS` by replicate, and the
    attempts-per-frame histogram summed over them."""

    params: dict[str, Any]
    n: int
    a: dict[str, np.ndarray]
    attempts_hist: np.ndarray

    def mean(self, k: str = "goodput_bps") -> float:
        return mean_ci(self.a[k])[0]

    def ci(self, k: str = "goodput_bps") -> tuple[float, float]:
        return mean_ci(self.a[k])


def cell_stats(rows: Sequence[dict[str, Any]]) -> dict[str, CellStats]:
    """Group rows by cell; the statistics of each."""
    out = {}
    for cid, rs in by_cell(rows).items():
        p = {k: rs[0][k] for k in RUN_SCHEMA if k in rs[0] and k not in _RESULT_COLUMNS}
        arr = {k: np.array([np.nan if r[k] is None else r[k] for r in rs], dtype=float) for k in ARRAYS}
        hs = [json.loads(r["attempts_hist"]) for r in rs if r["attempts_hist"]]
        h = np.zeros(max((len(x) for x in hs), default=0))
        for x in hs:
            h[: len(x)] += x
        out[cid] = CellStats(p, len(rs), arr, h)
    return out


class Env:
    """The cells of one environment, by their figure coordinates."""

    def __init__(self, cfg: StudyConfig, setup: Setup, stats: dict[str, CellStats]) -> None:
        self.cfg, self.setup, self._stats = cfg, setup, stats
        self.tc = trace_channels(cfg.traces, setup.alive_prr)
        self.levels = noise_levels(cfg, self.tc)
        self.channels = channels(cfg, self.tc)
        self._headline: dict[str, float] | None = None

    def _get(self, p: dict[str, Any]) -> CellStats | None:
        return self._stats.get(cell_id(p))

    def orbit(self, ch: tuple[str, Any], r: int) -> CellStats | None:
        return self._get(orbit_cell(self.setup, ch, r, self.tc))

    def lltx(self, ch: tuple[str, Any], link: str, tcp: str, hops: int) -> CellStats | None:
        return self._get(lltx_cell(self.setup, ch, link, tcp, hops, self.tc))

    def table1(self, p: float) -> CellStats | None:
        return self._get(table1_cell(self.setup, p))

    def ltcp(self, v: str, p: float, rtt: float = LTCP_RTT) -> CellStats | None:
        return self._get(ltcp_cell(self.setup, v, p, rtt))

    def value(self, c: CellStats | None, k: str = "goodput_bps") -> float:
        return c.mean(k) if c is not None else math.nan

    def share(self, cs: Sequence[CellStats | None], k: str = "goodput_bps") -> list[float]:
        """Each cell's mean ``k`` ÷ the first's (the lossless reference)."""
        ref = self.value(cs[0], k)
        return [self.value(c, k) / ref if ref > 0 else math.nan for c in cs]

    def headline(self) -> dict[str, float]:
        """The numbers the sensitivity table follows; computed once."""
        if self._headline is None:
            self._headline = self._compute_headline()
        return dict(self._headline)

    def _compute_headline(self) -> dict[str, float]:
        s, d = self.setup, {}
        ex = ("orbit", s.example_noise)
        for r in PERSISTENCES:
            d[f"residual_R{r}"] = self.value(self.orbit(ex, r), "residual_loss")
        d["goodput_R15"] = self.value(self.orbit(ex, 15)) / 1e6
        d["latency_p99_R15"] = 1e3 * self.value(self.orbit(ex, 15), "latency_p99")
        d["spurious_R15"] = self.value(self.orbit(ex, 15), "spurious_timeouts")
        u = ("uniform", headline_uniform(self.cfg))
        for h in HOPS:
            a, b = self.lltx(u, "llharq", "lt-tcp", h), self.lltx(u, "llarq", "lt-tcp", h)
            d[f"harq_arq_{h}hop"] = self.value(a) / self.value(b) if b is not None and self.value(b) > 0 else math.nan
        d["sack_4hop"] = self.value(self.lltx(u, "llharq", "sack", 4)) / 1e6
        d["lt_4hop"] = self.value(self.lltx(u, "llharq", "lt-tcp", 4)) / 1e6
        t = self.table1(0.3) or self.table1(max(self.cfg.table1_ps))
        d["table1_goodput"] = self.value(t) / 1e6
        d["table1_latency"] = 1e3 * (self.value(t, "latency_mean") + self.value(t, "queue_delay_mean"))
        lt = [self.ltcp("lt-tcp", p) for p in (0.0, 0.3)]
        d["lt_share_30"] = self.share(lt)[1] if lt[1] is not None else math.nan
        return d


# --------------------------------------------------------------------------------------
# the whole study
# --------------------------------------------------------------------------------------
def environments(cfg: StudyConfig, runs: Sequence[dict[str, Any]]) -> tuple[Env, list[tuple[str, Any, Env]]]:
    """The baseline environment (every run) and every sensitivity point's (the first
    ``sweep_seeds`` replicates, so a sweep compares like with like)."""
    return common_environments(cfg, runs, cell_stats, Env, sweep_points(cfg), ("baseline",))
