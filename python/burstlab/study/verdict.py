"""Verdicts: a claim judged on replicate samples, with how many more replicates would
likely decide an inconclusive one; verdicts under each documented setting of an open
parameter; tallies; and adding replicates up to a budget.

- **reproduced**: the confidence interval lies inside the tolerance band (or wholly on the
  claimed side of an ordering);
- **contradicted**: it lies wholly outside (wholly on the other side);
- **inconclusive**: it straddles a band edge or the threshold — a tie is never a hold.

An inconclusive verdict says how many replicates would likely decide: an interval's
half-width shrinks as 1/√n, so an interval of half-width h from n replicates whose centre
lies a distance d from the nearest edge would clear it with about n·(h/d)² replicates
(none when the centre sits on the edge).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from burstlab.study.claims import Claim, Samples
from burstlab.study.estimate import Estimate, t_quantile

OUTCOMES = ("reproduced", "contradicted", "inconclusive")

#: The columns of a study's ``claims.csv`` and ``claims`` table (:meth:`Verdict.to_dict` without its parts).
COLUMNS = ["id", "where", "claim", "conditions", "setting", "quantity", "comparison", "paper", "tolerance_reason", "ours", "lo", "hi", "n", "method",
           "verdict", "more_replicates", "calibration", "preview"]  # fmt: skip

#: How a ``--quick`` run's verdicts are marked everywhere they are shown.
PREVIEW = "preview: not evidence"


@dataclass(frozen=True)
class Part:
    """One quantity of a claim, judged: its label, estimate, outcome and the replicates it
    would likely need to decide (its own n when decided; None when it never would)."""

    label: str
    estimate: Estimate
    outcome: str
    needed: int | None


@dataclass(frozen=True)
class Verdict:
    """A claim judged: the combined outcome, its parts, the setting it was judged under
    (an open parameter's documented choice; "" for the study's defaults), whether it comes
    from a preview (``--quick``) run."""

    claim: Claim
    outcome: str
    parts: tuple[Part, ...]
    setting: str = ""
    preview: bool = False

    @property
    def estimate(self) -> Estimate:
        """The estimate of a single-quantity claim (the deciding part of a compound one:
        the first contradicted, else the first inconclusive, else the first)."""
        for want in ("contradicted", "inconclusive"):
            for p in self.parts:
                if p.outcome == want:
                    return p.estimate
        return self.parts[0].estimate

    @property
    def n(self) -> int:
        return min((p.estimate.n for p in self.parts), default=0)

    @property
    def needed(self) -> int | None:
        """Replicates that would likely decide this claim: the most any undecided part needs
        (None: some part never would — its estimate sits on an edge, or has no interval)."""
        if self.outcome != "inconclusive":
            return self.n
        und = [p.needed for p in self.parts if p.outcome == "inconclusive"]
        return None if any(x is None for x in und) else max(und)  # type: ignore[type-var]

    @property
    def more(self) -> int | None:
        """How many more replicates would likely decide (0 when decided)."""
        nd = self.needed
        return None if nd is None else max(0, nd - self.n)

    @property
    def label(self) -> str:
        """The outcome as shown: "reproduced", …, marked "(preview: not evidence)" for a quick run."""
        return f"{self.outcome} ({PREVIEW})" if self.preview else self.outcome

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        e = self.estimate
        return {
            "id": c.id, "where": c.where, "claim": c.words, "conditions": c.conditions, "setting": self.setting,
            "quantity": "; ".join(p.label for p in self.parts) if c.parts else c.quantity.label(),  # type: ignore[union-attr]
            "comparison": c.describe_comparison(),
            "paper": getattr(c.comparison, "paper", None), "tolerance_reason": getattr(c.comparison, "reason", ""),
            "ours": e.value, "lo": e.lo, "hi": e.hi, "n": self.n, "method": e.method,
            "verdict": self.outcome, "more_replicates": self.more, "calibration": c.calibration, "preview": self.preview,
            "parts": [{"label": p.label, "value": p.estimate.value, "lo": p.estimate.lo, "hi": p.estimate.hi, "n": p.estimate.n, "verdict": p.outcome}
                      for p in self.parts] if c.parts else [],
        }  # fmt: skip


def replicates_needed(e: Estimate, edges: Iterable[float]) -> int | None:
    """Replicates after which ``e``'s interval would likely clear the edges around its
    centre (the nearest edge below and the nearest above). Each side's reach h towards an
    edge at distance d is t(n)·s/√n (intervals may be asymmetric, e.g. a bootstrap's): the
    spread s = h·√n/t(n) stays, and n' solves t(n')·s/√n' = d (three fixed-point steps from
    the normal quantile). None when the centre sits on an edge or there is no interval."""
    if not e.has_interval or e.n < 2 or not math.isfinite(e.value):
        return None
    if any(x == e.value for x in edges):
        return None
    below = [e.value - x for x in edges if x < e.value]
    above = [x - e.value for x in edges if x > e.value]
    tn = t_quantile(e.n, e.level)
    need = e.n
    for reach, dist in (((e.value - e.lo), below), ((e.hi - e.value), above)):
        if not dist:
            continue
        s_ = reach * math.sqrt(e.n) / tn  # the spread behind this side of the interval
        d = min(dist)
        n = max(2, math.ceil((NormalDist().inv_cdf(0.5 + e.level / 2) * s_ / d) ** 2))
        for _ in range(3):
            n = max(2, math.ceil((t_quantile(n, e.level) * s_ / d) ** 2))
        need = max(need, n)
    return need


def judge(claim: Claim, samples: Samples, *, setting: str = "", preview: bool = False) -> Verdict:
    """The verdict on ``claim`` from replicate ``samples`` (name → one value per replicate)."""
    parts = []
    for label, q in claim.measured():
        e = q.estimate(samples)
        cmp = claim.comparison_for(q)
        if not e.has_interval:
            parts.append(Part(label, e, "inconclusive", None))
            continue
        out = cmp.outcome(e)
        need = replicates_needed(e, cmp.edges()) if out == "inconclusive" else e.n
        parts.append(Part(label, e, out, None if need is None else max(need, e.n + 1) if out == "inconclusive" else need))
    outs = [p.outcome for p in parts]
    outcome = "contradicted" if "contradicted" in outs else ("inconclusive" if "inconclusive" in outs else "reproduced")
    return Verdict(claim, outcome, tuple(parts), setting, preview)


def judge_all(claims: Iterable[Claim], samples: Samples, *, setting: str = "", preview: bool = False) -> list[Verdict]:
    return [judge(c, samples, setting=setting, preview=preview) for c in claims]


# --------------------------------------------------------------------------------------
# open parameters: the verdict under each documented setting
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SettingVerdicts:
    """One claim judged under every documented setting of an open parameter."""

    claim: Claim
    verdicts: tuple[Verdict, ...]

    def under(self, outcome: str) -> list[str]:
        return [v.setting for v in self.verdicts if v.outcome == outcome]

    @property
    def outcome(self) -> str:
        """"reproduced" / "contradicted" / "inconclusive" when every setting agrees, else "depends"."""
        outs = {v.outcome for v in self.verdicts}
        return outs.pop() if len(outs) == 1 else "depends"

    def summary(self) -> str:
        """"reproduced under A, B; contradicted under C; inconclusive under D" (outcomes in that order)."""
        return "; ".join(f"{o} under {', '.join(s)}" for o in OUTCOMES if (s := self.under(o)))


def judge_settings(claim: Claim, by_setting: Mapping[str, Samples], *, preview: bool = False) -> SettingVerdicts:
    """``claim`` judged under each setting (label → that setting's samples)."""
    return SettingVerdicts(claim, tuple(judge(claim, s, setting=k, preview=preview) for k, s in by_setting.items()))


# --------------------------------------------------------------------------------------
# tallies
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tally:
    """Counts of the paper's findings by outcome; calibration checks counted apart."""

    reproduced: int = 0
    contradicted: int = 0
    inconclusive: int = 0
    calibration: dict[str, int] = field(default_factory=dict)
    preview: bool = False

    @property
    def findings(self) -> int:
        return self.reproduced + self.contradicted + self.inconclusive

    def sentence(self) -> str:
        s = (f"{self.findings} claims: {self.reproduced} reproduced, {self.contradicted} contradicted, "
             f"{self.inconclusive} inconclusive")  # fmt: skip
        cal = sum(self.calibration.values())
        if cal:
            s += f" (and {cal} calibration checks, not counted: " + ", ".join(f"{v} {k}" for k, v in sorted(self.calibration.items()) if v) + ")"
        return f"{s} — {PREVIEW}" if self.preview else s


def tally(verdicts: Iterable[Verdict]) -> Tally:
    counts = dict.fromkeys(OUTCOMES, 0)
    cal = dict.fromkeys(OUTCOMES, 0)
    preview = False
    for v in verdicts:
        (cal if v.claim.calibration else counts)[v.outcome] += 1
        preview |= v.preview
    return Tally(counts["reproduced"], counts["contradicted"], counts["inconclusive"], {k: x for k, x in cal.items() if x}, preview)


# --------------------------------------------------------------------------------------
# adding replicates up to a budget
# --------------------------------------------------------------------------------------
def replicates_to_add(verdicts: Sequence[Verdict], current: int, budget: int) -> int:
    """The replicate count (≤ ``budget``) the next round should reach so that the
    inconclusive claims would likely decide: the largest need among those that fit the
    budget, or — when every need exceeds it or is unknown — the budget itself; ``current``
    when nothing is undecided or the budget is spent."""
    if current >= budget:
        return current
    und = [v for v in verdicts if v.outcome == "inconclusive" and not v.claim.calibration]
    if not und:
        return current
    needs = [v.needed for v in und if v.needed is not None and v.needed <= budget]
    return max(current + 1, max(needs)) if needs else budget


def adaptive(claims: Sequence[Claim], samples_for: Callable[[int], Samples], start: int, budget: int, *,
             max_rounds: int = 4, log: Callable[[str], None] | None = None) -> tuple[list[Verdict], int]:  # fmt: skip
    """Judge ``claims`` on ``start`` replicates, then add replicates (``samples_for(n)``
    returns the samples of the first n replicates: the study runs only the missing ones)
    while some claim is inconclusive and would likely decide within ``budget``. Returns the
    final verdicts and the replicate count reached."""
    n = start
    verdicts = judge_all(claims, samples_for(n))
    for _ in range(max_rounds):
        nxt = replicates_to_add(verdicts, n, budget)
        if nxt <= n:
            break
        if log:
            und = sum(v.outcome == "inconclusive" for v in verdicts)
            log(f"{und} claims inconclusive on {n} replicates: running up to {nxt}")
        n = nxt
        verdicts = judge_all(claims, samples_for(n))
    return verdicts, n


def claim_rows(verdicts: Iterable[Verdict]) -> list[dict[str, Any]]:
    """One row per verdict (:data:`COLUMNS`): a study's ``claims.csv``, ``claims`` table and JSON."""
    return [{k: x for k, x in v.to_dict().items() if k != "parts"} for v in verdicts]


def mark_preview(verdicts: Iterable[Verdict]) -> list[Verdict]:
    return [replace(v, preview=True) for v in verdicts]
