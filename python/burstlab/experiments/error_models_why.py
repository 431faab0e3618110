"""The mechanism paragraphs of the error-model study's report ("where ours differ from the
paper, and why"). Every sentence that compares two numbers is generated from those numbers
(:mod:`burstlab.study.prose`): when an interval straddles, the sentence says the two cannot
be told apart, and the explanation that depends on the direction is left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from burstlab.experiments.error_models import ACK_LABEL, ACK_MODES, PAPER_TABLE1, VARIANTS, CellStats, Env, StudyConfig, replicate_seed, stall_before_timeouts, sync_cell, t95
from burstlab.sim import TcpConfig
from burstlab.study import estimate as E
from burstlab.study import prose as P


NAME = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno"}


def _rep(c: CellStats | None, k: str) -> np.ndarray:
    return c.per_replicate[k] if c is not None and k in c.per_replicate else np.array([])


def _versus_paper(c: CellStats, paper: float) -> str:
    """"18 % longer than the paper's 69.8 s" / "shorter" / "matches … within its interval"."""
    e = E.mean(c.times)
    d = P.direction(e, paper)
    if d is None or d == 0:
        return f"cannot be told apart from the paper's {paper:.1f} s (ours {e:.1f} s)"
    return f"{abs(100 * (e.value - paper) / paper):.0f} % {'longer' if d > 0 else 'shorter'} than the paper's {paper:.1f} s (ours {e:.1f} s)"


def _slowest(env: Env, ack: str, delay: float) -> str | None:
    """The variant slower than each other one beyond noise (paired intervals), or None."""
    for v in VARIANTS:
        a = env.sync(v, ack, delay)
        if a is None:
            return None
        if all(P.direction(E.difference(a.times, env.sync(o, ack, delay).times), 0.0) == 1 for o in VARIANTS if o != v):  # type: ignore[union-attr]
            return v
    return None


def reno(cfg: StudyConfig, env: Env) -> str:
    """Reno on the LAN without ACK losses, against the paper and the other variants."""
    c = {v: env.sync(v, "none", 0.0) for v in VARIANTS}
    if any(x is None for x in c.values()):
        return ""
    rn = c["reno"]
    assert rn is not None
    s = f"**Reno** on the LAN without ACK losses: {_versus_paper(rn, PAPER_TABLE1[('reno', 'none')])}. "
    s += " ".join(P.compare_difference(f"Reno's timeouts per transfer ({rn.timeouts:.1f})", f"{NAME[v]}'s ({c[v].timeouts:.1f})",  # type: ignore[union-attr]
                                       E.difference(_rep(rn, "timeouts"), _rep(c[v], "timeouts")), unit="", more="more", less="fewer", verb="are")
                   for v in ("tahoe", "newreno"))  # fmt: skip
    if _slowest(env, "none", 0.0) == "reno":
        s += (" Reno is our slowest variant here (paired intervals). A bad period destroys several segments of one window; RFC 5681 Reno retransmits the "
              "first, leaves fast recovery on the first partial ACK with its window halved, and the other holes wait for the retransmission timer, whereas "
              "NewReno repairs them on partial ACKs and Tahoe resends the window (go-back-N). The paper does not describe its x-kernel Reno; its Table 1 has "
              "Reno the fastest without ACK losses.")  # fmt: skip
    if len(cfg.delays) >= 2:
        d = cfg.delays[1]
        last = [a for a in ACK_MODES if _slowest(env, a, d) == "reno"]
        s += f" At {1e3 * d:g} ms Reno is slower than both others beyond noise in {len(last)} of the 3 ACK modes" + (f" ({', '.join(ACK_LABEL[a] for a in last)})" if last else "") + "."
    return s


def sync_vs_none(cfg: StudyConfig, env: Env, pts: Sequence[tuple[str, Any, Env]]) -> str:
    """Synchronized vs lossless ACKs on the LAN (Tahoe), with the stall diagnostic."""
    tn, ts = env.sync("tahoe", "none", 0.0), env.sync("tahoe", "sync", 0.0)
    if tn is None or ts is None:
        return ""
    r = E.ratio(ts.times, tn.times)
    s = "**Synchronized vs no lost ACKs on the LAN** (Tahoe; the paper: 1.3 % slower): " + P.compare_ratio("synchronized", "lossless ACKs", r, "slower", "faster")
    if P.direction(r, 1.0) != -1:
        return s
    n = min(cfg.seeds, 20)
    seeds = [replicate_seed(cfg.seed, k) for k in range(n)]
    g_none, k_none = stall_before_timeouts(sync_cell(cfg.setup, "tahoe", "none", 0.0, cfg.sync_size), seeds)
    g_sync, k_sync = stall_before_timeouts(sync_cell(cfg.setup, "tahoe", "sync", 0.0, cfg.sync_size), seeds)
    s += (f" In {n} transfers the sender sat {g_none:.3f} s (lossless ACKs) and {g_sync:.3f} s (synchronized) on average between its last ACK and the "
          f"timeout that ended the silence, {k_none:.1f} and {k_sync:.1f} such stalls per transfer.")  # fmt: skip
    if g_none > g_sync:
        dl = [e for name, v, e in pts if name == "delayed_ack" and v is False]
        s += (" An ACK that arrives during a bad period restarts the retransmission timer (RFC 6298 §5.3), so the timeout comes later; a synchronized "
              f"channel loses that ACK. The late ACKs are delayed ACKs, sent up to {1e3 * TcpConfig().ack_timeout:g} ms after the last segment that got "
              "through before the bad period. The paper's x-kernel (2000) may not have re-armed its timer this way: a difference of timer rules, not of "
              "the error model.")  # fmt: skip
        if dl:
            s += " With delayed ACKs off: " + P.compare_ratio("synchronized", "lossless ACKs", dl[0].sync_ratio_estimate("sync", "none", 0.0), "slower", "faster")
    return s


def unsync(cfg: StudyConfig, env: Env, pts: Sequence[tuple[str, Any, Env]]) -> str:
    """Not synchronized vs synchronized on the LAN: spurious timeouts, and the minimum RTO."""
    ts, ti = env.sync("tahoe", "sync", 0.0), env.sync("tahoe", "independent", 0.0)
    if ts is None or ti is None:
        return ""
    r = env.sync_ratio_estimate("independent", "sync", 0.0)
    s = "**Not synchronized** on the LAN (three variants pooled; the paper 1.34×): " + P.compare_ratio("not synchronized", "synchronized", r, "slower", "faster") + " "
    dt = E.difference(_rep(ti, "timeouts"), _rep(ts, "timeouts"))
    s += P.compare_difference(f"Tahoe's timeouts per transfer not synchronized ({ti.timeouts:.1f}, {ti.spurious_timeouts:.1f} of them spurious: the data had arrived)",
                              f"synchronized ({ts.timeouts:.1f})", dt, unit="", more="more", less="fewer", verb="are")  # fmt: skip
    if P.direction(dt, 0.0) == 1 and ti.spurious_timeouts > 0:
        s += (" An independent bad period on the ACK path silences the sender although its segments get through; on a LAN every ACK of the window falls "
              f"in the same 0.2-s bad period, the timer (≥ {cfg.setup.rto_min:g} s) expires and go-back-N resends data the receiver holds.")  # fmt: skip
    rto = sorted(((v, e) for n, v, e in pts if n == "rto_min"), key=lambda t: t[0])
    if len(rto) >= 2:
        lo, hi = rto[0], rto[-1]
        a, b = lo[1].sync_ratio_estimate("independent", "sync", 0.0), hi[1].sync_ratio_estimate("independent", "sync", 0.0)
        if a.has_interval and b.has_interval:
            word = "smaller" if a.hi < b.lo else ("larger" if a.lo > b.hi else "not distinguishable (overlapping intervals)")
            s += f" With a minimum RTO of {lo[0]:g} s the ratio is {P.fmt(a)}, against {P.fmt(b)} at {hi[0]:g} s: {word}."
    return s


def fig2_at(cfg: StudyConfig, env: Env, drop: float) -> str:
    """Fig. 2 at one drop rate: times, losses and timeouts of the two models, compared."""
    m1 = cfg.sojourns[0]
    a, t = env.models("rate", m1, drop), env.models("temporal", m1, drop)
    if a is None or t is None:
        return ""
    r = E.ratio(a.times, t.times)
    s = f"**Fig. 2 at {100 * drop:g} %** ({m1:g}-s sojourns, sub-cycle {cfg.setup.cycle:g} s): " + P.compare_ratio("the rate-based model", "the temporal one", r, "slower", "faster") + " "
    dl = E.difference(_rep(t, "data_loss"), _rep(a, "data_loss"))
    s += P.compare_difference(f"The temporal model's segment loss ({100 * t.data_loss:.2f} %)", f"the rate-based one's ({100 * a.data_loss:.2f} %)",
                              E.Estimate(100 * dl.value, 100 * dl.lo, 100 * dl.hi, dl.n), unit="points", more="higher", less="lower")  # fmt: skip
    dt = E.difference(_rep(a, "timeouts"), _rep(t, "timeouts"))
    s += " " + P.compare_difference(f"The rate-based model's timeouts per transfer ({a.timeouts:.1f})", f"the temporal one's ({t.timeouts:.1f})", dt, unit="", more="more",
                                    less="fewer", verb="are")
    if P.direction(r, 1.0) == 1 and P.direction(dl, 0.0) == 1:
        s += (" The temporal model loses more yet finishes sooner: VDDP's OFF sub-periods let whole windows through, while the rate-based trials go on "
              "for all of B and keep the sender in backed-off timeouts.")  # fmt: skip
    if drop == min(cfg.drops):
        on = 1e3 * drop * cfg.setup.cycle
        ser = 1e3 * (cfg.setup.mss + 40) * 8 / cfg.setup.rate
        s += (f" A mean ON sub-period lasts {on:.3g} ms here, {on / ser:.2g}× a segment's {ser:.2g} ms on the channel, and it loses every segment it "
              "overlaps.")
    return s


def noise_note(cfg: StudyConfig, env: Env) -> str:
    """How wide a 10-transfer mean is (the paper's 10 batches), from our own spread, and
    whether the paper's 1-7 % differences between variants are within it."""
    hw = [100 * t95(10) * c.sd / math.sqrt(10) / c.mean for v in VARIANTS for a in ACK_MODES
          if (c := env.sync(v, a, 0.0)) is not None and c.n > 1 and math.isfinite(c.sd)]  # fmt: skip
    if not hw:
        return ""
    gaps = [abs(PAPER_TABLE1[(x, a)] - PAPER_TABLE1[(y, a)]) / PAPER_TABLE1[(y, a)] * 100 for a in ACK_MODES for x in VARIANTS for y in VARIANTS if x < y]
    within = sum(g < min(hw) for g in gaps)
    return (f"With 10 transfers per cell (the paper's 10 batches), our spread gives a 95 % interval of ±{min(hw):.0f} to ±{max(hw):.0f} % around each "
            f"Table 1 mean; {within} of the paper's {len(gaps)} differences between two variants under one ACK model ({min(gaps):.1f} to {max(gaps):.1f} %) "
            f"are smaller than the narrowest of these. Ours use {cfg.seeds} transfers per cell and paired differences (every cell sees the same channel "
            "trajectories).")  # fmt: skip


def why(cfg: StudyConfig, env: Env, pts: Sequence[tuple[str, Any, Env]]) -> list[str]:
    """The mechanism paragraphs, each generated from the numbers it states."""
    out = [reno(cfg, env), sync_vs_none(cfg, env, pts), unsync(cfg, env, pts), fig2_at(cfg, env, 0.5), fig2_at(cfg, env, min(cfg.drops))]
    return [s for s in out if s]
