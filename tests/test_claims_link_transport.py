"""Every claim of Subramanian, Ramakrishnan & Kalyanaraman as declared for the link- and
transport-protocol study (burstlab.experiments.link_transport_claims): reproduced in a
synthetic world where the slides' statements hold, contradicted once that claim's data are
flipped; the mechanism checks the issue names (spurious share, collapse over every cell,
LT-TCP reaching 0 at 50 %, one "zero" threshold) fail where the old ones passed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from burstlab.experiments import link_transport_claims as LC
from burstlab.experiments.link_transport import ARRAYS, HOPS, LINKS, LTCP_RTT, PERSISTENCES, TCPS, StudyConfig
from burstlab.experiments.link_transport_report import TABLE1
from burstlab.study.claims import Difference, Greater, Less, Mean, Near, Ratio, Statistic
from burstlab.study.verdict import judge, judge_all, tally

CFG = StudyConfig.quick_config()
N = 30
RAW = {-10: 0.005, -5: 0.2, 0: 0.6}
G = 8e6


def _row(rng: np.random.Generator, **v: float) -> dict[str, np.ndarray]:
    """Every column of a cell, each value × (1 ± 1 %) per replicate."""
    d = {k: 0.0 for k in ARRAYS}
    d.update(v)
    return {k: x * (1 + 0.01 * rng.standard_normal(N)) for k, x in d.items()}


class World:
    """An Env stand-in over synthetic samples where every slide statement holds."""

    def __init__(self) -> None:
        rng = np.random.default_rng(5)
        self.levels = tuple(RAW)
        self.channels = [("orbit", lv) for lv in RAW] + [("uniform", p) for p in CFG.uniform_ps]
        self.cells: dict[str, dict[str, np.ndarray]] = {}
        for ch in self.channels:
            raw = RAW[ch[1]] if ch[0] == "orbit" else ch[1]
            for r in PERSISTENCES:
                res = raw ** (r / 3) if raw > 0 else 1e-9
                share = 0.1 if res > LC.COLLAPSE_RESIDUAL else (1 - 3 * res) * (1 - 0.01 * r)
                self.cells[LC.orbit(ch, r, "").rstrip()] = _row(rng, goodput_bps=G * share, raw_loss=max(raw, 1e-9), residual_loss=res, mac_bps=1e6 * (1 + 0.01 * r),
                                                                latency_p99=1e-3 * (1 + raw * r), timeouts=5.0, spurious_timeouts=2.0)  # fmt: skip
            if ch == ("orbit", CFG.setup.example_noise):  # one attempt per frame: no ARQ, no spurious timeout
                self.cells[LC.orbit(ch, LC.NO_ARQ, "").rstrip()] = _row(rng, goodput_bps=G * 0.2, raw_loss=raw, residual_loss=raw, timeouts=8.0)
            p = raw if ch[0] == "uniform" else 0.3
            for h in HOPS:
                for tcp in TCPS:
                    base = G * ((0.1 if p > 0.3 else 1 - p) if tcp == "sack" else 1 - p)
                    for link in LINKS:
                        self.cells[LC.lltx(ch, link, tcp, h, "").rstrip()] = _row(rng, goodput_bps=base * (1.0 if link == "llharq" else 0.8),
                                                                                  latency_mean=1e-3 if link == "llharq" else 2e-3, residual_loss=1e-7)  # fmt: skip
        for p in CFG.table1_ps:
            self.cells[LC.table1(p, "").rstrip()] = _row(rng, goodput_bps=1e6 * TABLE1[p][0], latency_mean=0.5e-3 * TABLE1[p][3],
                                                         queue_delay_mean=0.5e-3 * TABLE1[p][3], residual_loss=1e-7)  # fmt: skip
        for p in sorted(set(CFG.ltcp_ps) | {0.1}):
            for rtt in sorted(set(CFG.ltcp_rtts) | {LTCP_RTT}):
                self.cells[LC.ltcp("sack", p, rtt, "").rstrip()] = _row(rng, goodput_bps=G * (1.0 if p < 0.05 else 0.1), timeouts=5.0)
                self.cells[LC.ltcp("lt-tcp", p, rtt, "").rstrip()] = _row(rng, goodput_bps=G * (1 - p), timeouts=1.0)

    def _c(self, name: str) -> Any:
        return name if name in self.cells else None

    def orbit(self, ch: tuple[str, Any], r: int) -> Any:
        return self._c(LC.orbit(ch, r, "").rstrip())

    def lltx(self, ch: tuple[str, Any], link: str, tcp: str, h: int) -> Any:
        return self._c(LC.lltx(ch, link, tcp, h, "").rstrip())

    def table1(self, p: float) -> Any:
        return self._c(LC.table1(p, "").rstrip())

    def ltcp(self, v: str, p: float, rtt: float = LTCP_RTT) -> Any:
        return self._c(LC.ltcp(v, p, rtt, "").rstrip())

    def value(self, c: Any, k: str = "goodput_bps") -> float:
        return float(np.mean(self.cells[c][k])) if c is not None else float("nan")

    def samples(self) -> dict[str, np.ndarray]:
        return {f"{c} {k}": v for c, d in self.cells.items() for k, v in d.items()} | {
            f"{c} latency_total": d["latency_mean"] + d["queue_delay_mean"] for c, d in self.cells.items()}


WORLD = World()
CLAIMS = list(LC.declare(CFG, WORLD, TABLE1))  # type: ignore[arg-type]


def flip(q: Any, cmp: Any, s: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    s = dict(s)
    if isinstance(cmp, Greater):
        t = cmp.bind(q)._t()
    if isinstance(q, LC.Scaled):
        s[q.name] = s[q.name] * 2.0
    elif isinstance(q, Mean):
        s[q.name] = np.full(N, t / 10) if cmp.sign > 0 else s[q.name] * 0 + 10 * t
    elif isinstance(q, Difference):
        s[q.a] = s[q.b] - 0.1 * cmp.sign * np.abs(np.mean(s[q.b]))
    elif isinstance(q, Ratio):
        s[q.a] = s[q.b] * (0.9 if cmp.sign < 0 else 0.1)
    elif isinstance(q, Statistic) and q.fn is LC._share:
        s[q.names[0]] = s[q.names[0]] * 0
    elif isinstance(q, Statistic) and q.fn is LC._share_drop:
        s[q.names[2]] = s[q.names[3]]  # every timeout spurious without a link layer
    elif isinstance(q, Statistic):  # the straight line: goodput 0 at the largest error rate
        s[q.names[-1]] = s[q.names[-1]] * 0
    else:
        raise AssertionError(q)
    return s


def test_declared() -> None:
    ids = {c.id for c in CLAIMS}
    assert len(CLAIMS) >= 25 and not any(c.calibration for c in CLAIMS)
    assert ids >= {"slide9-spurious-share", "slide9-spurious-needs-ll", "fig4c-collapse", "fig7-latency-large-variable", "slide20-lt-scales-to-50",
                   "slide20-lt-linear", "table1-residual-zero", "slide17-residual-zero-synthetic"}  # fmt: skip


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_reproduced_then_contradicted_flipped(claim: Any) -> None:
    s = WORLD.samples()
    v = judge(claim, s)
    assert v.outcome == "reproduced", (claim.id, [(p.label, p.estimate, p.outcome) for p in v.parts])
    _, q = claim.measured()[0]
    f = judge(claim, flip(q, claim.comparison, s))
    assert f.outcome == "contradicted", (claim.id, [(p.label, p.estimate, p.outcome) for p in f.parts])


def test_lt_tcp_reaching_zero_at_50_percent_fails() -> None:
    """The old check called LT-TCP "linear to 50 %" while its goodput reached 0 there."""
    s = WORLD.samples()
    s[LC.ltcp("lt-tcp", 0.5)] = s[LC.ltcp("lt-tcp", 0.5)] * 0
    assert judge(next(c for c in CLAIMS if c.id == "slide20-lt-scales-to-50"), s).outcome == "contradicted"
    assert judge(next(c for c in CLAIMS if c.id == "slide20-lt-linear"), s).outcome == "contradicted"


def test_one_spurious_timeout_is_not_the_mechanism() -> None:
    """One spurious timeout in a hundred was a hold before; now the share is judged, and it
    must fall without the link layer."""
    s = WORLD.samples()
    c = next(c for c in CLAIMS if c.id == "slide9-spurious-share")
    name = LC.orbit(("orbit", CFG.setup.example_noise), 15, "spurious_timeouts")
    s[name] = s[LC.orbit(("orbit", CFG.setup.example_noise), 15, "timeouts")] * 0.01
    assert judge(c, s).outcome == "contradicted"


def test_one_zero_threshold() -> None:
    """Every "zero residual loss" claim uses the same threshold: 0.009 % is not zero anywhere."""
    zero = [c for c in CLAIMS if "zero" in c.id]
    assert len(zero) >= 3 and all(isinstance(c.comparison, Less) and c.comparison.than == LC.ZERO_RESIDUAL for c in zero)
    s = WORLD.samples()
    for c in zero:
        t = dict(s)
        for _, q in c.measured():
            t[q.name] = t[q.name] * 0 + 9e-5
        assert judge(c, t).outcome == "contradicted", c.id


def test_collapse_is_judged_on_every_cell_above_5_percent() -> None:
    c = next(c for c in CLAIMS if c.id == "fig4c-collapse")
    above = [(ch, r) for r in PERSISTENCES for ch in WORLD.channels if WORLD.value(WORLD.orbit(ch, r), "residual_loss") > LC.COLLAPSE_RESIDUAL]
    assert len(c.parts) == len(above) >= 4


def test_table1_bands_carry_their_reason() -> None:
    for c in CLAIMS:
        cmp = c.comparison
        if isinstance(cmp, Near) or (isinstance(cmp, Greater) and cmp.than is not None):
            assert cmp.reason.strip(), c.id


def test_tally_has_no_calibration_and_counts_every_claim() -> None:
    t = tally(judge_all(CLAIMS, WORLD.samples()))
    assert t.findings == len(CLAIMS) and not t.calibration
