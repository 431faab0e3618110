"""The claims of Subramanian, Ramakrishnan & Kalyanaraman ("Experimental Study of Link and
Transport Protocols in Interference-Prone WLAN Environments"), declared as data
(:mod:`burstlab.study.claims`), and the replicate samples they are judged on.

Replicate k uses the same seed — the same channel — in every cell, so a comparison of two
cells of one network is a paired difference; a share of the lossless goodput compares two
cells of different channels and is a ratio of means (delta method). Each claim measures the
slides' point, not a symptom of it:

- spurious timeouts: the *share* of timeouts that are spurious, and that the share falls
  when the link layer is removed (TCP-SACK over Bernoulli loss, no link-layer ARQ);
- Fig. 7: interference makes a frame's link latency large and variable (99th percentile
  at the example noise level against the quietest level);
- collapse: goodput ÷ lossless goodput of *every* ORBIT-hop cell whose residual loss
  exceeds 5 %;
- "zero residual loss": one threshold, :data:`ZERO_RESIDUAL`, with its reason;
- LT-TCP's linear fall-off to 50 %: the largest distance of its shares from the
  least-squares line through (0, 1) *and* its share at 50 % above the collapse level, so
  a goodput that reaches 0 at 50 % fails.

The slides' RTO trace (slide 9) and their segment sent three times (slide 10) are single
runs; burstlab shows its own example run beside them as an illustration and judges the
mechanism they illustrate through the share of spurious timeouts.
"""

from __future__ import annotations

import warnings

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from burstlab.experiments.link_transport import ARRAYS, HOPS, LABEL, LINKS, LTCP_RTT, NO_ARQ, PERSISTENCES, TCPS, Env, StudyConfig
from burstlab.study.claims import Claim, ClaimSet, Difference, Greater, Less, Mean, Near, Quantity, Ratio, Samples, Statistic, every
from burstlab.study.estimate import Estimate
from burstlab.study.verdict import SettingVerdicts, Verdict, judge_all, judge_settings

#: Fig. 4c: the residual loss beyond which TCP collapses (slide 7, slide 11: "TCP SACK is brittle beyond 5 % residual loss").
COLLAPSE_RESIDUAL = 0.05
#: "Collapse": below a quarter of the lossless goodput (the reading fixed before any run, issue 11).
COLLAPSE_SHARE = 0.25
COLLAPSE_REASON = "'collapse' / 'broken': below a quarter of the lossless goodput (the reading fixed before any run, issue 11)"
#: Slide 20: LT-TCP keeps at least 40 % of its lossless goodput at 30 % loss (read off the slide's plot).
LT_SHARE_30 = 0.40
#: "Linear": every share within this distance of the least-squares line through (0, 1).
LINEAR_TOL = 0.15
#: "Zero residual loss", one threshold for every claim: the slides print residual loss in per cent with two
#: decimals, so their "0.00 %" (Table 1) and "zero" (slide 17) mean below 0.005 %.
ZERO_RESIDUAL = 5e-5
ZERO_REASON = "the slides print residual loss in % with two decimals: '0.00 %' is below 0.005 % (one threshold for every 'zero' claim)"
#: Table 1's published values: error rate → (goodput Mb/s, throughput Mb/s, PFEC Mb/s, latency ms), imported by the report too.
TABLE1_REASON_G = "Table 1 gives one run per error rate and no spread: ±15 % (the reading fixed before any run, issue 11)"
TABLE1_REASON_L = "Table 1's latency depends on the buffer, which the slides do not give: ±25 % (the reading fixed before any run, issue 11)"
#: "Leads to spurious timeouts": at least this share of the timeouts spurious. A share cannot fall below 0, so "more
#: than none" could never be contradicted; one in twenty is the smallest share that is more than incidental.
SPURIOUS_SHARE = 0.05
SPURIOUS_REASON = "'leads to spurious timeouts': at least 1 in 20 timeouts spurious (a share above 0 alone could never be contradicted)"


def _name(kind: str, *coords: Any) -> str:
    return " ".join([kind, *(str(c) for c in coords)])


def orbit(ch: tuple[str, Any], r: int, k: str = "goodput_bps") -> str:
    return _name("orbit", ch[0], f"{ch[1]:g}", f"R{r}", k)


def lltx(ch: tuple[str, Any], link: str, tcp: str, h: int, k: str = "goodput_bps") -> str:
    return _name("lltx", ch[0], f"{ch[1]:g}", link, tcp, h, k)


def table1(p: float, k: str = "goodput_bps") -> str:
    return _name("table1", f"{p:g}", k)


def ltcp(v: str, p: float, rtt: float = LTCP_RTT, k: str = "goodput_bps") -> str:
    return _name("ltcp", v, f"{p:g}", f"{rtt:g}", k)


def samples(cfg: StudyConfig, env: Env) -> dict[str, np.ndarray]:
    """Every per-replicate column of every cell of ``env`` present, named by its coordinates
    (plus ``latency_total``: queueing + link service, Table 1's latency)."""
    out: dict[str, np.ndarray] = {}

    def put(prefix: str, c: Any) -> None:
        if c is None:
            return
        for k in ARRAYS:
            out[f"{prefix} {k}"] = c.a[k]
        out[f"{prefix} latency_total"] = c.a["latency_mean"] + c.a["queue_delay_mean"]

    for ch in env.channels:
        for r in (*PERSISTENCES, NO_ARQ):
            put(orbit(ch, r, "").rstrip(), env.orbit(ch, r))
        for link in LINKS:
            for tcp in TCPS:
                for h in HOPS:
                    put(lltx(ch, link, tcp, h, "").rstrip(), env.lltx(ch, link, tcp, h))
    for p in cfg.table1_ps:
        put(table1(p, "").rstrip(), env.table1(p))
    for v in ("sack", "sack-ecn", "lt-tcp"):
        for p in sorted(set(cfg.ltcp_ps) | {0.1}):
            for rtt in sorted(set(cfg.ltcp_rtts) | {LTCP_RTT}):
                put(ltcp(v, p, rtt, "").rstrip(), env.ltcp(v, p, rtt))
    return out


def _share(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
    """Spurious timeouts ÷ timeouts, pooled over replicates (NaN with no timeout); along
    ``axis`` (vectorized: the bootstrap computes every resample at once)."""
    t = np.sum(b, axis=axis)
    with np.errstate(all="ignore"):
        return np.where(t > 0, np.sum(a, axis=axis) / np.where(t > 0, t, 1.0), np.nan)


def _share_drop(sp: np.ndarray, to: np.ndarray, sp0: np.ndarray, to0: np.ndarray, axis: int = -1) -> Any:
    return _share(sp, to, axis) - _share(sp0, to0, axis)


def linear_dev(*goodputs: np.ndarray, ps: Sequence[float] = ()) -> float:
    """Largest distance of the shares (mean goodput ÷ the first's, at error rates ``ps``)
    from the least-squares straight line through (0, 1)."""
    m = np.array([float(np.mean(g)) for g in goodputs])
    if m[0] <= 0 or len(ps) < 3:
        return float("nan")
    x, y = np.asarray(ps, float), m / m[0] - 1.0
    slope = float(x @ y / (x @ x))
    return float(np.max(np.abs(y - slope * x)))


class _Linear:
    """:func:`linear_dev` at fixed error rates, as a statistic of the goodput samples."""

    def __init__(self, ps: Sequence[float]) -> None:
        self.ps = tuple(ps)

    def __call__(self, *g: np.ndarray) -> float:
        return linear_dev(*g, ps=self.ps)


def _ch(ch: tuple[str, Any]) -> str:
    return f"dbm{ch[1]}" if ch[0] == "orbit" else f"{100 * ch[1]:g} % loss"


def _lossy(env: Env) -> list[tuple[str, Any]]:
    """Noise levels whose raw loss (ARQ 15) exceeds 1 %: where persistence can matter."""
    return [ch for ch in env.channels if ch[0] == "orbit" and (c := env.orbit(ch, 15)) is not None and env.value(c, "raw_loss") > 0.01]


def orbit_claims(cfg: StudyConfig, env: Env) -> list[Claim]:
    """Figs. 1, 4, 7 and slides 6-10: the ORBIT hop."""
    s = cfg.setup
    ex = ("orbit", s.example_noise)
    out: list[Claim] = []
    lossy = _lossy(env)
    if lossy:
        out.append(every("fig1b-residual-falls", "Fig. 1b, slide 6", "the residual loss rate decreases with increasing ARQ persistence (7 → 25)", Greater(),
                         {_ch(ch): Difference(orbit(ch, 7, "residual_loss"), orbit(ch, 25, "residual_loss")) for ch in lossy},
                         conditions="noise levels with raw loss > 1 %"))  # fmt: skip
        out.append(every("fig1a-mac-rises", "Fig. 1a, slide 6", "MAC throughput improves with higher ARQ persistence (7 → 25)", Greater(),
                         {_ch(ch): Difference(orbit(ch, 25, "mac_bps"), orbit(ch, 7, "mac_bps")) for ch in lossy}, conditions="noise levels with raw loss > 1 %"))
    cond = f"dbm{s.example_noise}, persistence 7 against 25"
    out.append(Claim("slide6-latency-rises", "slide 6", "the penalty of higher persistence is more latency (99th percentile of a frame's link latency)", Greater(),
                     Difference(orbit(ex, 25, "latency_p99"), orbit(ex, 7, "latency_p99")), conditions=cond))  # fmt: skip
    out.append(Claim("slide6-goodput-falls", "slide 6", "… and lowered goodput (TCP goodput)", Greater(), Difference(orbit(ex, 7), orbit(ex, 25)), conditions=cond))
    top = max(env.levels)
    out.append(Claim("fig4a-raw-loss-high", "Fig. 4a, slide 7", "the raw loss rate can be quite high at strong interference (> 50 % beyond -34 dBm)",
                     Greater(0.5, reason="the slides' Fig. 4a: raw loss above 50 % at the strongest interference"), Mean(orbit(("orbit", top), 15, "raw_loss")),
                     conditions=f"the traces' strongest noise level, dbm{top}"))  # fmt: skip
    ref = orbit(("uniform", 0.0), 15)
    above = [(ch, r) for r in PERSISTENCES for ch in env.channels if (c := env.orbit(ch, r)) is not None and env.value(c, "residual_loss") > COLLAPSE_RESIDUAL]
    if above:
        out.append(every("fig4c-collapse", "Fig. 4c, slide 7", "TCP performance drops rapidly once the residual loss rate exceeds 5 %",
                         Less(COLLAPSE_SHARE, reason=COLLAPSE_REASON), {f"{_ch(ch)}, ARQ {r}": Ratio(orbit(ch, r), ref, paired=False) for ch, r in above},
                         conditions="every ORBIT-hop cell whose mean residual loss exceeds 5 %: goodput ÷ the lossless goodput"))  # fmt: skip
    quiet = ("orbit", min(env.levels))
    if quiet != ex:
        out.append(Claim("fig7-latency-large-variable", "Fig. 7b, slides 8 and 11", "persistent link-layer ARQ under strong interference leads to large and variable delays",
                         Greater(), Ratio(orbit(ex, 15, "latency_p99"), orbit(quiet, 15, "latency_p99")),
                         conditions=f"99th percentile of a frame's link latency, dbm{s.example_noise} ÷ dbm{quiet[1]} (the quietest level), ARQ 15"))  # fmt: skip
    sp, to = orbit(ex, 15, "spurious_timeouts"), orbit(ex, 15, "timeouts")
    out.append(Claim("slide9-spurious-share", "slides 9-10", "the link's variable latency (high ARQ persistence) leads to spurious timeouts: a share of the timeouts are spurious",
                     Greater(SPURIOUS_SHARE, reason=SPURIOUS_REASON), Statistic(_share, (sp, to), "spurious ÷ all timeouts", null=0.0, vectorized=True), conditions=f"dbm{s.example_noise}, ARQ 15"))  # fmt: skip
    sp0, to0 = orbit(ex, NO_ARQ, "spurious_timeouts"), orbit(ex, NO_ARQ, "timeouts")
    out.append(Claim("slide9-spurious-needs-ll", "slides 9-10", "the spurious timeouts come from the link layer: without link-layer ARQ their share falls",
                     Greater(), Statistic(_share_drop, (sp, to, sp0, to0), "spurious share with ARQ − without", null=0.0, vectorized=True),
                     conditions=f"dbm{s.example_noise}: ARQ 15 against the same hop with one attempt per frame (no link-layer retransmission)"))  # fmt: skip
    return out


def harq_claims(cfg: StudyConfig, env: Env) -> list[Claim]:
    """Slides 15-18: LL-HARQ against LL-ARQ; slide 18's collapse and linearity."""
    out: list[Claim] = []
    trace = [ch for ch in env.channels if ch[0] == "orbit"]
    for h in HOPS:
        tag = f"trace, {h} hop{'s' if h > 1 else ''}"
        sl = f"slide {16 if h == 1 else 17} ({tag})"
        out.append(every(f"slide{16 if h == 1 else 17}-harq-goodput-{h}hop", sl, "LL-HARQ gives better transport goodput than LL-ARQ (LT-TCP)", Greater(),
                         {_ch(ch): Difference(lltx(ch, "llharq", "lt-tcp", h), lltx(ch, "llarq", "lt-tcp", h)) for ch in trace}))  # fmt: skip
        out.append(every(f"slide{16 if h == 1 else 17}-harq-latency-{h}hop", sl, "… and lower link latency", Greater(),
                         {_ch(ch): Difference(lltx(ch, "llarq", "lt-tcp", h, "latency_mean"), lltx(ch, "llharq", "lt-tcp", h, "latency_mean")) for ch in trace}))  # fmt: skip
    out.append(every("slide17-harq-residual-zero-4hop", "slide 17 (trace, 4 hops)", "LL-HARQ exports a very low residual loss rate", Less(ZERO_RESIDUAL, reason=ZERO_REASON),
                     {_ch(ch): Mean(lltx(ch, "llharq", "lt-tcp", 4, "residual_loss")) for ch in trace}))  # fmt: skip
    uni = [ch for ch in env.channels if ch[0] == "uniform" and ch[1] > 0]
    if not uni:
        return out
    syn = "synthetic, per-unit error rate"
    out.append(every("slide17-harq-goodput-synthetic", "slide 17 (synthetic, 1 hop)", "LL-HARQ: transport goodput much better than LL-ARQ (LT-TCP)", Greater(),
                     {_ch(ch): Difference(lltx(ch, "llharq", "lt-tcp", 1), lltx(ch, "llarq", "lt-tcp", 1)) for ch in uni}, conditions=syn))  # fmt: skip
    out.append(every("slide17-harq-latency-synthetic", "slide 17 (synthetic, 1 hop)", "LL-HARQ: per-packet link latency much better than LL-ARQ (LT-TCP)", Greater(),
                     {_ch(ch): Difference(lltx(ch, "llarq", "lt-tcp", 1, "latency_mean"), lltx(ch, "llharq", "lt-tcp", 1, "latency_mean")) for ch in uni},
                     conditions=syn))  # fmt: skip
    out.append(every("slide17-residual-zero-synthetic", "slide 17 (synthetic, 1 hop)", "both link layers export zero residual loss to TCP", Less(ZERO_RESIDUAL, reason=ZERO_REASON),
                     {f"{LABEL[link]}, {_ch(ch)}": Mean(lltx(ch, link, "lt-tcp", 1, "residual_loss")) for ch in uni for link in LINKS}, conditions=syn))  # fmt: skip
    ref = ("uniform", 0.0)
    for link in LINKS:
        beyond = [ch for ch in uni if ch[1] > 0.3]
        if beyond:
            out.append(every(f"slide18-sack-collapses-{link}", "slide 18 (synthetic, 4 hops)", f"TCP-SACK over {LABEL[link]}: performance collapses beyond 30 %",
                             Less(COLLAPSE_SHARE, reason=COLLAPSE_REASON), {_ch(ch): Ratio(lltx(ch, link, "sack", 4), lltx(ref, link, "sack", 4), paired=False) for ch in beyond},
                             conditions=syn + ", goodput ÷ lossless goodput"))  # fmt: skip
    ps = [0.0] + [ch[1] for ch in uni]
    if len(ps) >= 3:
        out.append(Claim("slide18-lt-harq-linear", "slide 18 (synthetic, 4 hops)", "LT-TCP over LL-HARQ: the degradation is linear",
                         Less(LINEAR_TOL, reason=f"'linear': every share within {LINEAR_TOL:g} of the least-squares line through (0, 1) (the reading fixed before any run, issue 11)"),
                         Statistic(_Linear(ps), tuple(lltx(("uniform", p), "llharq", "lt-tcp", 4) for p in ps), "largest distance from the line", null=None),
                         conditions=syn))  # fmt: skip
    out.append(every("slide18-harq-latency-4hop", "slide 18 (synthetic, 4 hops)", "LL-HARQ also leads to lower link latencies than LL-ARQ", Greater(),
                     {_ch(ch): Difference(lltx(ch, "llarq", "lt-tcp", 4, "latency_mean"), lltx(ch, "llharq", "lt-tcp", 4, "latency_mean")) for ch in uni},
                     conditions=syn))  # fmt: skip
    hi = max(uni)
    best = lltx(hi, "llharq", "lt-tcp", 4)
    out.append(every("slide18-lt-harq-best", "slide 18", "with increasing loss rates LT-TCP + LL-HARQ performs best", Greater(),
                     {f"− {LABEL[t]} + {LABEL[l]}": Difference(best, lltx(hi, l, t, 4)) for l in LINKS for t in TCPS if (l, t) != ("llharq", "lt-tcp")},
                     conditions=f"4 hops, {_ch(hi)}"))  # fmt: skip
    return out


def table1_claims(cfg: StudyConfig, env: Env, paper: dict[float, tuple[float, ...]]) -> list[Claim]:
    """Table 1: LL-HARQ with 10 flows on one link."""
    ps = [p for p in cfg.table1_ps if p in paper]
    out = [every("table1-residual-zero", "Table 1", "LL-HARQ with 10 flows: zero residual loss at every error rate 0-50 %", Less(ZERO_RESIDUAL, reason=ZERO_REASON),
                 {f"{100 * p:g} %": Mean(table1(p, "residual_loss")) for p in cfg.table1_ps})]  # fmt: skip
    if ps:
        out.append(Claim("table1-goodput", "Table 1", "goodput falls with the error rate as the slides' Table 1 gives it", Near.relative(1.0, 0.15, TABLE1_REASON_G),
                         parts=tuple((f"{100 * p:g} % (slides {paper[p][0]:.2f} Mb/s)", Scaled(table1(p), 1e6 * paper[p][0])) for p in ps)))  # fmt: skip
        out.append(Claim("table1-latency", "Table 1", "average latency 11-15 ms, rising with the error rate (queueing + link service)", Near.relative(1.0, 0.25, TABLE1_REASON_L),
                         parts=tuple((f"{100 * p:g} % (slides {paper[p][3]:.2f} ms)", Scaled(table1(p, "latency_total"), 1e-3 * paper[p][3])) for p in ps)))  # fmt: skip
    return out


@dataclass(frozen=True)
class Scaled:
    """The mean of a sample ÷ a published value (ours ÷ the paper's: 1 is agreement)."""

    name: str
    by: float
    null: float | None = None

    def estimate(self, samples: Samples) -> Estimate:
        e = Mean(self.name).estimate(samples)
        return replace(e, value=e.value / self.by, lo=e.lo / self.by, hi=e.hi / self.by)

    def label(self) -> str:
        return f"mean {self.name} ÷ the slides'"


def ltcp_claims(cfg: StudyConfig, env: Env) -> list[Claim]:
    """Slides 19-20: TCP-SACK against LT-TCP over Bernoulli loss (no link layer)."""
    out: list[Claim] = []
    lp = [0.0] + [p for p in cfg.ltcp_ps if p > 0]
    ref = ltcp("sack", 0.0)
    s5 = [p for p in lp if p >= 0.05]
    if s5:
        out.append(every("slide19-sack-broken", "slide 19", "TCP-SACK: exponential fall-off with the erasure rate, broken at 5 % and beyond",
                         Less(COLLAPSE_SHARE, reason=COLLAPSE_REASON), {f"{100 * p:g} %": Ratio(ltcp("sack", p), ref, paired=False) for p in s5},
                         conditions="goodput ÷ lossless goodput"))  # fmt: skip
    lref = ltcp("lt-tcp", 0.0)
    if 0.3 in lp:
        out.append(Claim("slide20-lt-40pct-at-30", "slide 20", "LT-TCP keeps at least 40 % of its lossless goodput at 30 % loss",
                         Greater(LT_SHARE_30, reason="read off slide 20's plot: LT-TCP's goodput at 30 % is at least 40 % of its lossless goodput"),
                         Ratio(ltcp("lt-tcp", 0.3), lref, paired=False)))  # fmt: skip
    if len(lp) >= 3:
        out.append(Claim("slide20-lt-linear", "slide 20", "LT-TCP: linear fall-off with PER",
                         Less(LINEAR_TOL, reason=f"'linear': every share within {LINEAR_TOL:g} of the least-squares line through (0, 1) (the reading fixed before any run, issue 11)"),
                         Statistic(_Linear(lp), tuple(ltcp("lt-tcp", p) for p in lp), "largest distance from the line", null=None)))  # fmt: skip
    top = lp[-1]
    out.append(Claim("slide20-lt-scales-to-50", "slide 20", f"LT-TCP scales well up to 50 % PER: no collapse at {100 * top:g} %",
                     Greater(COLLAPSE_SHARE, reason=COLLAPSE_REASON), Ratio(ltcp("lt-tcp", top), lref, paired=False), conditions="goodput ÷ lossless goodput"))  # fmt: skip
    rt = sorted(cfg.ltcp_rtts)
    if len(rt) >= 2:
        out.append(every("slides19-20-lt-rtt", "slides 19-20", "at 10 % loss LT-TCP scales with RTT while TCP-SACK does not: LT-TCP above TCP-SACK at every RTT", Greater(),
                         {f"RTT {1e3 * r:g} ms": Difference(ltcp("lt-tcp", 0.1, r), ltcp("sack", 0.1, r)) for r in rt}))  # fmt: skip
    return out


def declare(cfg: StudyConfig, env: Env, table1_paper: dict[float, tuple[float, ...]]) -> ClaimSet:
    """Every claim of the slides the study's configuration can check."""
    return ClaimSet(tuple(orbit_claims(cfg, env) + harq_claims(cfg, env) + table1_claims(cfg, env, table1_paper) + ltcp_claims(cfg, env)))


def verdicts(cfg: StudyConfig, env: Env, table1_paper: dict[float, tuple[float, ...]]) -> list[Verdict]:
    """Every claim judged on the study's defaults (marked preview under ``--quick``). A claim
    whose cells this configuration did not run (e.g. ``--noise`` without the example noise
    level) is not judged, and a warning names it."""
    smp = samples(cfg, env)
    claims, skipped = [], []
    for c in declare(cfg, env, table1_paper):
        (claims if all(n in smp for _, q in c.measured() for n in names(q)) else skipped).append(c)
    if skipped:
        warnings.warn(f"{len(skipped)} claim(s) not judged: this configuration did not run their cells ({', '.join(c.id for c in skipped)})", stacklevel=2)
    return judge_all(claims, smp, preview=cfg.quick)


def names(q: Quantity) -> tuple[str, ...]:
    """The samples a quantity reads."""
    if isinstance(q, Statistic):
        return q.names
    if isinstance(q, (Difference, Ratio)):
        return (q.a, q.b)
    return (getattr(q, "name", ""),)


#: The open parameters whose documented settings the verdicts are shown under (the study sweeps each).
OPEN = ("error_unit", "trace_mode", "trace_slot", "harq_sizing", "attempt_max")


def _differ(by: dict[str, dict[str, np.ndarray]], names: Sequence[str]) -> bool:
    """Whether some sample among ``names`` differs between the settings (a claim the parameter
    does not touch is left out of its table)."""
    first, *rest = by.values()
    for n in names:
        for other in rest:
            a, b = first[n], other[n]
            k = min(len(a), len(b))
            if not np.array_equal(a[:k], b[:k], equal_nan=True):
                return True
    return False


def setting_verdicts(cfg: StudyConfig, env: Env, pts: Sequence[tuple[str, Any, Env]], table1_paper: dict[float, tuple[float, ...]],
                     show: Any = str) -> list[SettingVerdicts]:  # fmt: skip
    """Each claim that an open parameter's documented settings change, judged under every
    setting (the sweep's points, on the first ``sweep_seeds`` replicates; the defaults' run
    where the sweep leaves the default value out). A claim whose cells a point did not run
    is left out."""
    out: list[SettingVerdicts] = []
    claims = declare(cfg, env, table1_paper)
    for name in OPEN:
        mine = [(v, e) for n, v, e in pts if n == name]
        if not mine:
            continue
        default = getattr(cfg.setup, name)
        by: dict[str, dict[str, np.ndarray]] = {}
        if all(v != default for v, _ in mine):
            by[f"{name} = {show(name, default)} (default)"] = samples(cfg, env)
        for v, e in mine:
            by[f"{name} = {show(name, v)}" + (" (default)" if v == default else "")] = samples(cfg, e)
        for c in claims:
            used = [n for _, q in c.measured() for n in names(q)]
            if all(n in s for s in by.values() for n in used) and _differ(by, used):
                out.append(judge_settings(c, by, preview=cfg.quick))
    return out
