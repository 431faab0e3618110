"""The claims of Pentikousis & Badr ("Error Modeling for TCP Simulations"), declared as
data (:mod:`burstlab.study.claims`), and the replicate samples they are judged on.

Each claim gives the paper's words and place, the quantity (a ratio or difference of mean
completion times, paired by replicate: replicate k sees the same channel trajectory in
every cell), the comparison and the tolerance with its reason. The tolerances follow one
rule: a number the paper prints is allowed the precision of its own words — a factor
named in words ("seven-fold", "about double") ± half its unit; "about the same" within
the ±7 % the paper itself calls "no significant difference" (Table 1's synchronized ÷
no-lost-ACK ratios, 1.014-1.066 per variant).

Fig. 2's claims are also judged under every swept VDDP sub-cycle (the paper does not
publish it): "reproduced under …; contradicted under …".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from burstlab.experiments.error_models import ACK_LABEL, ACK_MODES, MODELS, PAPER_TABLE1, VARIANTS, Env, StudyConfig
from burstlab.study.claims import Claim, ClaimSet, Difference, Greater, Less, Near, Ratio, Statistic, every, ordering
from burstlab.study.verdict import SettingVerdicts, Verdict, judge_all, judge_settings

#: "About the same" in Pentikousis & Badr's own usage: Table 1's synchronized ÷ no-lost-ACK
#: ratios (1.014-1.066 per variant) are what §3 calls "no significant difference".
SAME = 0.07
SAME_REASON = "'about the same': within ±7 %, the spread Table 1's synchronized ÷ no-lost-ACK ratios (1.014-1.066) have where §3 calls it 'no significant difference'"


def sync_name(variant: str, ack: str, delay: float) -> str:
    """Sample name of a Table 1 / Fig. 3 cell (``variant`` "pooled": the sum of the three)."""
    return f"sync {variant} {ack} {delay:g}"


def model_name(model: str, sojourn: float, drop: float) -> str:
    """Sample name of a Fig. 2 cell."""
    return f"{model} {sojourn:g} {drop:g}"


def samples(cfg: StudyConfig, env: Env) -> dict[str, np.ndarray]:
    """Completion times by replicate (NaN: did not finish) of every cell of ``env``."""
    out: dict[str, np.ndarray] = {}
    for d in cfg.delays:
        for a in ACK_MODES:
            for v in VARIANTS:
                c = env.sync(v, a, d)
                if c is not None:
                    out[sync_name(v, a, d)] = c.times
            pooled = env.pooled_sync(a, d)
            if pooled is not None:
                out[sync_name("pooled", a, d)] = pooled
    for m in cfg.sojourns:
        for model in MODELS:
            for r in sorted(set(cfg.drops) | set(cfg.equivalence_drops)):
                c = env.models(model, m, r)
                if c is not None:
                    out[model_name(model, m, r)] = c.times
    return out


def _equivalent_drop(grid: Sequence[float]) -> Any:
    """The statistic "temporal drop rate whose mean time equals the rate-based 10 % mean"
    over (rate-based times, temporal times at each drop rate of ``grid``): linear
    interpolation at the first crossing; when the temporal curve never crosses it, the
    grid edge beyond which the crossing lies (so that a curve that never reaches it is far
    from 44 %, not missing). Vectorized (``axis``: the bootstrap computes every resample at
    once, the same arithmetic as one resample at a time)."""

    def fn(ref: np.ndarray, *temporal: np.ndarray, axis: int = -1) -> Any:
        r = np.mean(ref, axis=axis)
        t = [np.mean(x, axis=axis) for x in temporal]
        out = np.where(t[-1] < r, grid[-1], grid[0]).astype(float)
        found = np.zeros(np.shape(r), dtype=bool)
        with np.errstate(all="ignore"):
            for r0, r1, t0, t1 in zip(grid, grid[1:], t, t[1:]):
                first = ~found & ((t0 - r) * (t1 - r) <= 0) & (t1 != t0)
                out = np.where(first, r0 + (r - t0) * (r1 - r0) / (t1 - t0), out)
                found |= first
        return out

    return fn


def _ratio_gap(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, axis: int = -1) -> Any:
    """mean(a)/mean(b) − mean(c)/mean(d) along ``axis`` (vectorized: the bootstrap computes
    every resample at once)."""
    with np.errstate(all="ignore"):
        return np.mean(a, axis=axis) / np.mean(b, axis=axis) - np.mean(c, axis=axis) / np.mean(d, axis=axis)


def fig2_claims(cfg: StudyConfig) -> list[Claim]:
    """§2 Fig. 2: rate-based vs temporal (TCP Tahoe, 5 MB)."""
    m1 = cfg.sojourns[0]
    cond = f"TCP Tahoe, {cfg.models_size / 1e6:g} MB, {m1:g}-s mean sojourns"

    def ratio(r: float, rt: float | None = None, m: float = m1) -> Ratio:
        return Ratio(model_name("rate", m, r), model_name("temporal", m, r if rt is None else rt), interval="bootstrap")

    out = [
        Claim("fig2-1pct-same", "§2 Fig. 2", "at a 1 % drop rate the two models give about the same connection time", Near(1.0, 1 - SAME, 1 + SAME, SAME_REASON),
              ratio(0.01), conditions=cond),
    ] if 0.01 in cfg.drops else []  # fmt: skip
    out += [
        Claim("fig2-10pct-double", "§2 Fig. 2", "at 10 % the rate-based model needs more than double the temporal model's time",
              Greater(2.0, reason="the text: 'more than double'"), ratio(0.1), conditions=cond),
        Claim("fig2-50pct-sevenfold", "§2 Fig. 2", "at 50 % a seven-fold difference", Near(7.0, 6.5, 7.5, "'seven-fold', a whole factor in words: ±0.5"),
              ratio(0.5), conditions=cond),
        every("fig2-temporal-faster", "§2 Fig. 2", "TCP Tahoe finishes faster under the temporal model in every configuration", Greater(),
              {f"{m:g} s, {100 * r:g} %": ratio(r, m=m) for m in cfg.sojourns for r in cfg.drops}, conditions=f"TCP Tahoe, {cfg.models_size / 1e6:g} MB"),
    ]  # fmt: skip
    for m in cfg.sojourns:
        out.append(Claim(f"fig2-{m:g}s-rate10-temp50", "§2 Fig. 2", f"{m:g}-s sojourns: rate-based 10 % takes about as long as temporal 50 %",
                         Near(1.0, 1 - SAME, 1 + SAME, SAME_REASON), ratio(0.1, 0.5, m), conditions=f"TCP Tahoe, {cfg.models_size / 1e6:g} MB"))  # fmt: skip
    grid = tuple(sorted(set(cfg.drops) | set(cfg.equivalence_drops)))
    eq = Statistic(_equivalent_drop(grid), (model_name("rate", m1, 0.1), *(model_name("temporal", m1, r) for r in grid)),
                   "temporal drop rate with the rate-based 10 % time", vectorized=True)  # fmt: skip
    out.append(Claim("fig2-equivalent-44pct", "§2 Fig. 2", "rate-based 10 % ≈ temporal 44 % (a 5 % overall drop rate ≈ a channel corrupting 22 % of the time)",
                     Near(0.44, 0.39, 0.49, "44 % is read off the paper's own sweep of temporal drop rates: ±5 points, half the spacing of its 40 % and 50 % neighbours"),
                     eq, conditions=cond))  # fmt: skip
    if len(cfg.sojourns) > 1:
        m2 = cfg.sojourns[-1]
        out.append(every("fig2-longer-sojourns-shorter", "§2 Fig. 2", f"longer sojourns ({m2:g} s against {m1:g} s) give shorter transfers, for both models and every drop rate",
                         Less(), {f"{mod} {100 * r:g} %": Difference(model_name(mod, m2, r), model_name(mod, m1, r)) for mod in MODELS for r in cfg.drops},
                         conditions=f"TCP Tahoe, {cfg.models_size / 1e6:g} MB"))  # fmt: skip
    return out


def _pooled_paper(num: str, den: str) -> float:
    """Table 1's pooled ratio, to the precision of its three-digit entries."""
    return round(sum(PAPER_TABLE1[(v, num)] for v in VARIANTS) / sum(PAPER_TABLE1[(v, den)] for v in VARIANTS), 3)


WITH = {"none": "without ACK losses", "sync": "with synchronized ACK losses", "independent": "with not synchronized ACK losses"}


def sync_claims(cfg: StudyConfig) -> list[Claim]:
    """§3 Table 1, Fig. 3 and §4: synchronized and not synchronized ACK losses."""
    lan = f"ON/OFF {1.8:g} s / {0.2:g} s, {cfg.sync_size / 1e6:g} MB, LAN"
    s = sync_name
    p_is, p_sn = _pooled_paper("independent", "sync"), _pooled_paper("sync", "none")
    t1 = PAPER_TABLE1
    out = [
        Claim("table1-unsync-vs-sync", "§3 Table 1", "not synchronized ACK losses cost about 30 % more time than synchronized ones",
              Near(p_is, p_is - 0.05, p_is + 0.05, f"Table 1 gives {p_is:.3f} (three variants pooled); the text rounds it to 'about 30 %', to the nearest 10 points: ±5 points"),
              Ratio(s("pooled", "independent", 0), s("pooled", "sync", 0)), conditions=lan + ", Tahoe/Reno/NewReno pooled"),
        Claim("table1-sync-vs-none", "§3 Table 1", "synchronized ACK losses cost slightly more than none, a difference the text calls not significant",
              Near(p_sn, 1.0, 1 + SAME, f"Table 1: +1.4 to +6.6 % per variant ({p_sn:.3f} pooled), all in one direction; 'not significant' bounds it at +7 %"),
              Ratio(s("pooled", "sync", 0), s("pooled", "none", 0)), conditions=lan + ", pooled"),
        Claim("table1-newreno-beats-tahoe-no-ack-loss", "§3 Table 1", "without ACK losses NewReno is faster than Tahoe",
              Less(paper=t1[("newreno", "none")] - t1[("tahoe", "none")]), Difference(s("newreno", "none", 0), s("tahoe", "none", 0)), conditions=lan, unit="s"),
        Claim("table1-newreno-loses-to-tahoe-sync", "§3 Table 1", "with synchronized ACK losses NewReno is slower than Tahoe",
              Greater(paper=t1[("newreno", "sync")] - t1[("tahoe", "sync")]), Difference(s("newreno", "sync", 0), s("tahoe", "sync", 0)), conditions=lan, unit="s"),
    ]  # fmt: skip
    for ack in ("sync", "independent"):
        order = sorted(VARIANTS, key=lambda v: t1[(v, ack)])
        out.append(ordering(f"table1-order-{ack}", "§3 Table 1", f"{WITH[ack]}: {' < '.join(order)} (connection time)",
                            [s(v, ack, 0) for v in order], conditions=lan))  # fmt: skip
    if len(cfg.delays) >= 3:
        d50, d300 = cfg.delays[1], cfg.delays[2]
        c50, c300 = f"{lan.replace('LAN', '')}+ {1e3 * d50:g} ms each way", f"{lan.replace('LAN', '')}+ {1e3 * d300:g} ms each way"
        r50 = Ratio(s("pooled", "independent", d50), s("pooled", "sync", d50))
        r300 = Ratio(s("pooled", "independent", d300), s("pooled", "sync", d300))
        out.append(Claim("fig3a-unsync-doubles", "§3 Fig. 3a", "not synchronized ACK losses about double the synchronized time",
                         Near(2.0, 1.5, 2.5, "the text: 'about double' (Fig. 3 prints no numbers), a whole factor in words: ±0.5"), r50, conditions=c50))  # fmt: skip
        for ack, want in (("none", "newreno"), ("sync", "reno"), ("independent", "reno")):
            out.append(every(f"fig3a-fastest-{ack}", "§3 Fig. 3a", f"{WITH[ack]}: {want} is the fastest variant", Less(),
                             {f"{want} − {o}": Difference(s(want, ack, d50), s(o, ack, d50)) for o in VARIANTS if o != want}, conditions=c50))  # fmt: skip
        out.append(Claim("fig3b-unsync-still-costs", "§3 Fig. 3b", "not synchronized ACK losses still cost more than synchronized ones", Greater(), r300, conditions=c300))
        out.append(Claim("fig3b-unsync-at-most-double", "§3 Fig. 3b", "… but no more than double", Less(2.0, reason="the text: 'no more than double'"), r300, conditions=c300))
        out.append(Claim("fig3b-unsync-less-than-at-50ms", "§3 Fig. 3b", f"the cost of not synchronized losses is smaller than at {1e3 * d50:g} ms", Less(),
                         Statistic(_ratio_gap, (r300.a, r300.b, r50.a, r50.b), f"(not sync ÷ sync) at {1e3 * d300:g} ms − at {1e3 * d50:g} ms", null=0.0, vectorized=True),
                         conditions=c300))  # fmt: skip
        out.append(every("fig3b-every-variant-faster-without-ack-loss", "§3 Fig. 3b", "every variant is faster when ACKs are not lost than under synchronized losses",
                         Greater(), {v: Difference(s(v, "sync", d300), s(v, "none", d300)) for v in VARIANTS}, conditions=c300))  # fmt: skip
        out.append(every("fig3b-tahoe-no-ack-loss-fastest", "§3 Fig. 3b", "Tahoe without ACK losses is the fastest of all nine", Less(),
                         {f"Tahoe none − {v} {ACK_LABEL[a]}": Difference(s("tahoe", "none", d300), s(v, a, d300))
                          for v in VARIANTS for a in ACK_MODES if (v, a) != ("tahoe", "none")}, conditions=c300))  # fmt: skip
        rs = [(s("pooled", "sync", d), s("pooled", "none", d)) for d in cfg.delays[:3]]
        out.append(every("s4-sync-gap-grows-with-rtt", "§4", "the gap between synchronized and lossless-ACK models grows with the round-trip time", Greater(),
                         {f"{lab_b} − {lab_a}": Statistic(_ratio_gap, (*rb, *ra), f"(sync ÷ none) {lab_b} − {lab_a}", null=0.0, vectorized=True)
                          for (ra, lab_a), (rb, lab_b) in zip(zip(rs, ("LAN", f"{1e3 * d50:g} ms")), zip(rs[1:], (f"{1e3 * d50:g} ms", f"{1e3 * d300:g} ms")))},
                         conditions=lan.replace("LAN", "LAN, 50 and 300 ms")))  # fmt: skip
    return out


def declare(cfg: StudyConfig) -> ClaimSet:
    """Every claim of the paper the study's configuration can check."""
    return ClaimSet(tuple(fig2_claims(cfg) + sync_claims(cfg)))


def verdicts(cfg: StudyConfig, env: Env) -> list[Verdict]:
    """Every claim judged on the study's defaults (marked preview under ``--quick``)."""
    return judge_all(declare(cfg), samples(cfg, env), preview=cfg.quick)


def setting_verdicts(cfg: StudyConfig, pts: Sequence[tuple[str, Any, Env]], name: str = "cycle") -> list[SettingVerdicts]:
    """Fig. 2's claims under every swept value of the open parameter ``name`` (the VDDP
    sub-cycle by default)."""
    by = {setting_label(name, v): samples(cfg, e) for n, v, e in pts if n == name}
    if not by:
        return []
    return [judge_settings(c, by, preview=cfg.quick) for c in fig2_claims(cfg)]


def setting_label(name: str, v: Any) -> str:
    """An open parameter's setting as verdicts name it ("sub-cycle 0.1 s")."""
    if name == "cycle":
        return f"sub-cycle {v:g} s"
    if name == "fig2_ack_loss":
        return f"Fig. 2 ACKs {ACK_LABEL[v]}"
    return f"{name.replace('_', ' ')} {v:g}" if isinstance(v, float) else f"{name.replace('_', ' ')} {v}"
