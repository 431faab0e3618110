"""The claims of Martignon & Capone ("TCP with Bandwidth Estimation over Wireless
Networks"), declared as data (:mod:`burstlab.study.claims`), and the replicate samples they
are judged on.

An ordering ("TIBET's goodput above TCP Reno's at every loss rate") is one part per point,
each a paired difference of goodputs that must lie wholly above 0: a point where the
interval contains 0 is a tie, and a tie leaves the claim inconclusive — never a hold.
Figs. 4-5's claims are also judged under both readings of "the one-way RTT is 50 ms".
Two calibration checks (true by construction of the set-up, not findings of the paper)
are shown apart and never counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from burstlab.experiments.tibet import (
    FAIR_RATES,
    FIG6_P,
    FIG6_RATE,
    FIG8_RATE,
    LABEL,
    MODEL_RANGE,
    MODEL_RTTS,
    N_FLOWS,
    READING_LABEL,
    READINGS,
    SINGLE_RATES,
    Env,
    StudyConfig,
    closed_form,
)
from burstlab.study.claims import Claim, ClaimSet, Difference, Greater, Less, Mean, Near, Ratio, Statistic, every
from burstlab.study.verdict import SettingVerdicts, Verdict, judge_all, judge_settings

FAIR_REASON = "'very close to the fair share' (Figs. 2-3 print no numbers): within ±10 %, the reading fixed before any run (issue 11)"
MODEL_REASON = "'predicts quite well' (Figs. 11-12 print no numbers): within ±20 % of eq. 3, the reading fixed before any run (issue 11)"
#: §V "the throughput collapse at high error rates is nevertheless experienced by Ideal TCP".
COLLAPSE = 0.25


def payload_rate(rate: float, mss: int) -> float:
    return rate * mss / (mss + 40)


def samples(cfg: StudyConfig, env: Env, reading: str | None = None) -> dict[str, np.ndarray]:
    """Goodputs by replicate (Mb/s) of every cell of ``env`` (Figs. 4-5 under ``reading``; the
    fairness cells ÷ the fair share, Jain's index, aggregate ÷ the payload rate; Figs. 11-12
    ÷ the closed form)."""
    s = env.setup
    out: dict[str, np.ndarray] = {}
    for rate in FAIR_RATES:
        fs = env.share(rate)
        for k in cfg.ks:
            c = env.fair(rate, k)
            if c is None:
                continue
            out[f"fair {rate:g} {k} reno"] = c.reno / fs
            out[f"fair {rate:g} {k} tibet"] = c.tibet / fs
            out[f"fair {rate:g} {k} jain"] = c.jain
            out[f"fair {rate:g} {k} aggregate"] = c.goodput / payload_rate(rate, s.mss)
    for cc in LABEL:
        for rate in SINGLE_RATES:
            for p in cfg.loss_ps:
                if (c := env.single(cc, rate, p, reading)) is not None:
                    out[f"single {cc} {rate:g} {p:g}"] = c.goodput / 1e6
        for r in cfg.rtts:
            if (c := env.rtt(cc, r)) is not None:
                out[f"rtt {cc} {r:g}"] = c.goodput / 1e6
        for pb in cfg.p_bads:
            if (c := env.markov(cc, pb)) is not None:
                out[f"markov {cc} {pb:g}"] = c.goodput / 1e6
        for r in MODEL_RTTS if cc in ("ideal", "reno") else ():  # the paper's closed forms (eq. 3, eq. 4)
            for p in cfg.model_ps:
                if (c := env.model(cc, r, p)) is not None:
                    out[f"model {cc} {r:g} {p:g}"] = c.goodput / closed_form(cc, p, r, s.mss)
    return out


def _above(a: str, b: str, names: Sequence[tuple[str, str, str]]) -> dict[str, Difference]:
    """One part per point: a's goodput − b's (paired), labelled by the point."""
    return {lab: Difference(na, nb) for lab, na, nb in names}


def _abs_error_gap(hi: np.ndarray, lo: np.ndarray) -> float:
    """|mean(hi) − 1| − |mean(lo) − 1| (each sample: simulated ÷ closed form)."""
    return float(abs(np.mean(hi) - 1) - abs(np.mean(lo) - 1))


def loss_claims(cfg: StudyConfig) -> list[Claim]:
    """§IV.A Figs. 4-5 and §V: goodput against the loss rate (judged under either reading)."""
    out = []
    for fig, rate in zip(("Fig. 4", "Fig. 5"), SINGLE_RATES):
        cond = f"{rate / 1e6:g} Mb/s link, independent losses"
        pts = [(f"p = {p:g}", f"single tibet {rate:g} {p:g}", f"single reno {rate:g} {p:g}") for p in cfg.loss_ps]
        out.append(every(f"{fig.lower().replace('. ', '')}-tibet-above-reno", f"§IV.A {fig}", "TIBET sustains higher goodput than TCP Reno at all drop rates considered",
                         Greater(), _above("tibet", "reno", pts), conditions=cond))  # fmt: skip
        pts = [(f"p = {p:g}", f"single ideal {rate:g} {p:g}", f"single tibet {rate:g} {p:g}") for p in cfg.loss_ps]
        out.append(every(f"{fig.lower().replace('. ', '')}-ideal-above-tibet", f"§V {fig}", "the Ideal TCP's goodput is higher than TIBET's", Greater(),
                         _above("ideal", "tibet", pts), conditions=cond))  # fmt: skip
        lo, hi = min(cfg.loss_ps), max(cfg.loss_ps)
        out.append(Claim(f"{fig.lower().replace('. ', '')}-ideal-collapses", f"§V {fig}", "the throughput collapse at high error rates is experienced by the Ideal TCP too",
                         Less(COLLAPSE, reason=f"'collapse': at p = {hi:g} less than a quarter of its goodput at p = {lo:g} (the reading fixed before any run, issue 11)"),
                         Ratio(f"single ideal {rate:g} {hi:g}", f"single ideal {rate:g} {lo:g}"), conditions=cond))  # fmt: skip
    return out


def declare(cfg: StudyConfig) -> ClaimSet:
    """Every claim of the paper the study's configuration can check, and the calibration checks."""
    out: list[Claim] = []
    for fig, rate in zip(("Fig. 2", "Fig. 3"), FAIR_RATES):
        cond = f"{N_FLOWS} connections, {rate / 1e6:g} Mb/s bottleneck"
        parts = {f"{kind} at k = {k}": Mean(f"fair {rate:g} {k} {kind}") for k in cfg.ks for kind in ("reno", "tibet")
                 if (kind == "reno" and k > 0) or (kind == "tibet" and k < N_FLOWS)}  # fmt: skip
        tag = fig.lower().replace(". ", "")
        out.append(every(f"{tag}-fair-share", f"§III {fig}", "the throughput achieved by both algorithms is very close to the fair share",
                         Near(1.0, 0.9, 1.1, FAIR_REASON), parts, conditions=cond + ", k Reno and 10 − k TIBET"))  # fmt: skip
        if cfg.ks[0] == 0 and cfg.ks[-1] == N_FLOWS:
            out.append(Claim(f"{tag}-same-fairness", f"§III {fig}", "TIBET obtains the same level of fairness as TCP Reno (Jain's index, all TIBET against all Reno)",
                             Near(0.0, -0.02, 0.02, "'the same level': Jain's indices within ±0.02 of each other (the paper prints none; 0.02 is the smallest gap "
                                  "its fairness plots would show)"), Difference(f"fair {rate:g} 0 jain", f"fair {rate:g} {N_FLOWS} jain"), conditions=cond))  # fmt: skip
        out.append(Claim(f"{tag}-link-full", f"§III {fig}", "the connections together keep the bottleneck busy (set-up check)",
                         Greater(0.9, reason="a one-BDP buffer keeps a bottleneck shared by 10 Reno/TIBET connections busy: ≥ 90 % of its payload rate"),
                         Mean(f"fair {rate:g} {cfg.ks[-1]} aggregate"), conditions=cond + f", {cfg.ks[-1]} Reno", calibration=True))  # fmt: skip
    out += loss_claims(cfg)
    pts = [(f"RTT {1e3 * r:g} ms", f"rtt tibet {r:g}", f"rtt reno {r:g}") for r in cfg.rtts]
    c6 = f"{FIG6_RATE / 1e6:g} Mb/s, p = {100 * FIG6_P:g} %"
    out.append(every("fig6-tibet-above-reno", "§IV.A Fig. 6", "TIBET obtains higher goodput than TCP Reno with every RTT value", Greater(), _above("tibet", "reno", pts), conditions=c6))
    pts = [(f"RTT {1e3 * r:g} ms", f"rtt ideal {r:g}", f"rtt tibet {r:g}") for r in cfg.rtts]
    out.append(every("fig6-ideal-above-tibet", "§V (Fig. 6's set-up)", "the Ideal TCP is the upper bound: its goodput above TIBET's at every RTT", Greater(),
                     _above("ideal", "tibet", pts), conditions=c6))  # fmt: skip
    pts = [(f"bad-state loss {100 * pb:g} %", f"markov tibet {pb:g}", f"markov reno {pb:g}") for pb in cfg.p_bads]
    out.append(every("fig8-tibet-above-reno", "§IV.B Fig. 8", "even with correlated losses, TIBET obtains higher goodput than TCP Reno", Greater(),
                     _above("tibet", "reno", pts), conditions=f"{FIG8_RATE / 1e6:g} Mb/s, two-state Markov channel"))  # fmt: skip
    ps = [p for p in cfg.model_ps if MODEL_RANGE[0] <= p <= MODEL_RANGE[1]]
    for fig, r in zip(("Fig. 11", "Fig. 12"), MODEL_RTTS):
        if not ps:
            break
        tag = fig.lower().replace(". ", "")
        cond = f"RTT {1e3 * r:g} ms, Ideal TCP"
        out.append(every(f"{tag}-model-predicts", f"§V {fig}", "eq. 3, 3.4·MSS/(RTT·p·log2(1/p)), predicts the Ideal TCP's goodput quite well for p in [10⁻³, 10⁻¹]",
                         Near(1.0, 0.8, 1.2, MODEL_REASON), {f"p = {p:g}": Mean(f"model ideal {r:g} {p:g}") for p in ps}, conditions=cond))  # fmt: skip
        if len(ps) > 1:
            out.append(Claim(f"{tag}-model-best-at-high-p", f"§V {fig}", "the model is very accurate when the packet error rate is high (error at the highest p below that at the lowest)",
                             Less(), Statistic(_abs_error_gap, (f"model ideal {r:g} {max(ps):g}", f"model ideal {r:g} {min(ps):g}"),
                                               f"|error| at p = {max(ps):g} − |error| at p = {min(ps):g}", null=0.0), conditions=cond))  # fmt: skip
    return ClaimSet(tuple(out))


def verdicts(cfg: StudyConfig, env: Env) -> list[Verdict]:
    """Every claim judged on the study's defaults (marked preview under ``--quick``)."""
    return judge_all(declare(cfg), samples(cfg, env), preview=cfg.quick)


def setting_verdicts(cfg: StudyConfig, env: Env) -> list[SettingVerdicts]:
    """Figs. 4-5's claims under both readings of "the one-way RTT is 50 ms"."""
    by = {READING_LABEL[r]: samples(cfg, env, r) for r in READINGS}
    return [judge_settings(c, by, preview=cfg.quick) for c in loss_claims(cfg)]
