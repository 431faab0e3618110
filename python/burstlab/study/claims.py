"""A published claim, declared as data: the paper's words and where they are, the quantity
that measures it, the comparison that decides it, the conditions it was made under.

Declaring a claim::

    from burstlab.study.claims import Claim, Ratio, Near, Greater

    Claim(
        id="table1-unsync-vs-sync",
        where="Table 1", words="not synchronized ACK losses cost about 30 % more time",
        conditions="LAN, 8 MB, Tahoe/Reno/NewReno pooled",
        quantity=Ratio("independent", "sync"),
        comparison=Near(1.34, 1.27, 1.41, reason="Table 1's times are means of 10 batches: ±5 %"),
    )

``quantity`` says how ours is computed from replicate samples (a dict of named 1-D arrays,
one number per replicate); ``comparison`` says what the paper asserts about it. The
verdict (:func:`burstlab.study.verdict.judge`) is **reproduced** when the confidence
interval lies inside the tolerance band (or wholly on the claimed side of an ordering),
**contradicted** when it lies wholly outside, and **inconclusive** when it straddles. A
*calibration* claim (true by construction: it checks the set-up, not the paper's finding)
is judged the same way but shown apart and never counted.

See ``docs/claims.md`` for the whole API with examples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from burstlab.study import estimate as E
from burstlab.study.estimate import Estimate

Samples = Mapping[str, "np.ndarray | Sequence[float]"]


# --------------------------------------------------------------------------------------
# quantities: how ours is computed from the replicate samples
# --------------------------------------------------------------------------------------
class Quantity(Protocol):
    """What a claim measures. ``null`` is the value of "no effect" (0 for a difference, 1
    for a ratio, None when the quantity has none): a claim's direction is judged against it."""

    null: float | None

    def estimate(self, samples: Samples) -> Estimate: ...

    def label(self) -> str: ...


def _get(samples: Samples, name: str) -> np.ndarray:
    try:
        return np.asarray(samples[name], float)
    except KeyError:
        raise KeyError(f"the study gave no sample {name!r} (has: {', '.join(sorted(samples)) or 'none'})") from None


@dataclass(frozen=True)
class Mean:
    """The mean of one sample (Student's t interval)."""

    name: str
    null: float | None = None

    def estimate(self, samples: Samples) -> Estimate:
        return E.mean(_get(samples, self.name))

    def label(self) -> str:
        return f"mean {self.name}"


@dataclass(frozen=True)
class Difference:
    """mean(a) − mean(b); paired by replicate unless ``paired=False`` (Welch)."""

    a: str
    b: str
    paired: bool = True
    null: float | None = 0.0

    def estimate(self, samples: Samples) -> Estimate:
        return E.difference(_get(samples, self.a), _get(samples, self.b), self.paired)

    def label(self) -> str:
        return f"{self.a} − {self.b}"


def _ratio_of_means(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
    """mean(a) ÷ mean(b) along ``axis`` (NaN where mean(b) ≤ 0): vectorized, so the
    bootstrap computes every resample in one call instead of one Python call each."""
    ma, mb = np.mean(a, axis=axis), np.mean(b, axis=axis)
    with np.errstate(all="ignore"):
        return np.where(mb > 0, ma / np.where(mb > 0, mb, 1.0), np.nan)


@dataclass(frozen=True)
class Ratio:
    """mean(a) ÷ mean(b), paired by replicate unless ``paired=False``. ``interval``:
    "delta" (the delta method, fast) or "bootstrap" (BCa over replicates, paired only:
    better coverage when the samples are skewed, e.g. completion times with long
    retransmission-timeout tails)."""

    a: str
    b: str
    paired: bool = True
    null: float | None = 1.0
    interval: str = "delta"

    def __post_init__(self) -> None:
        if self.interval not in ("delta", "bootstrap") or (self.interval == "bootstrap" and not self.paired):
            raise ValueError(f"interval = {self.interval!r}: expected 'delta', or 'bootstrap' for paired samples")

    def estimate(self, samples: Samples) -> Estimate:
        if self.interval == "bootstrap":
            return E.bootstrap(_ratio_of_means, [_get(samples, self.a), _get(samples, self.b)], vectorized=True)
        return E.ratio(_get(samples, self.a), _get(samples, self.b), self.paired)

    def label(self) -> str:
        return f"{self.a} ÷ {self.b}"


@dataclass(frozen=True)
class Statistic:
    """Any number computed from several samples (``fn(*arrays)``), with a bootstrap
    interval over replicates (resampled jointly). ``text`` names it in tables.
    ``vectorized``: ``fn`` takes ``axis`` and computes every resample in one call
    (:func:`burstlab.study.estimate.bootstrap`)."""

    fn: Callable[..., Any]
    names: tuple[str, ...]
    text: str
    null: float | None = None
    vectorized: bool = False

    def estimate(self, samples: Samples) -> Estimate:
        return E.bootstrap(self.fn, [_get(samples, n) for n in self.names], vectorized=self.vectorized)

    def label(self) -> str:
        return self.text


@dataclass(frozen=True)
class Given:
    """A number the study computed itself with its interval (``samples[name]`` is an
    :class:`~burstlab.study.estimate.Estimate`), for quantities whose interval needs the
    study's own method (e.g. a fit)."""

    name: str
    text: str = ""
    null: float | None = None

    def estimate(self, samples: Samples) -> Estimate:
        v = samples[self.name]
        if not isinstance(v, Estimate):
            raise TypeError(f"sample {self.name!r}: expected an Estimate, got {type(v).__name__}")
        return v

    def label(self) -> str:
        return self.text or self.name


# --------------------------------------------------------------------------------------
# comparisons: what the paper asserts about the quantity
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Near:
    """"≈ paper": the paper's value ``paper`` and the band [lo, hi] its precision allows,
    with the ``reason`` (how the paper's number was obtained, how precisely it is printed).
    Reproduced when the whole interval lies inside the band. When the paper's value lies on
    one side of the quantity's null (a ratio above 1, a difference below 0), the band must
    lie on that side too: the claim includes its direction."""

    paper: float
    lo: float
    hi: float
    reason: str

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo <= self.paper <= self.hi):
            raise ValueError(f"tolerance band [{self.lo}, {self.hi}] must be finite and contain the paper's value {self.paper}")
        if not self.reason.strip():
            raise ValueError("a tolerance band needs its reason written down")

    @classmethod
    def relative(cls, paper: float, rel: float, reason: str) -> Near:
        """The band paper × (1 ± rel)."""
        a, b = paper * (1 - rel), paper * (1 + rel)
        return cls(paper, min(a, b), max(a, b), reason)

    def edges(self) -> tuple[float, ...]:
        return (self.lo, self.hi)

    def check(self, q: Quantity) -> None:
        null = q.null
        if null is None or self.paper == null:
            return
        if (self.paper > null and self.lo < null) or (self.paper < null and self.hi > null):
            raise ValueError(f"the band [{self.lo:g}, {self.hi:g}] crosses {null:g} ({q.label()}'s 'no effect') while the paper's "
                             f"{self.paper:g} lies on one side: the claim's direction would not count")  # fmt: skip

    def outcome(self, e: Estimate) -> str:
        if e.lo >= self.lo and e.hi <= self.hi:
            return "reproduced"
        if e.hi < self.lo or e.lo > self.hi:
            return "contradicted"
        return "inconclusive"

    def describe(self) -> str:
        return f"≈ {self.paper:.4g}, band [{self.lo:.4g}, {self.hi:.4g}]"


@dataclass(frozen=True)
class Greater:
    """"The quantity exceeds ``than``" (default: the quantity's null — a ratio above 1, a
    difference above 0). Reproduced when the whole interval lies above it, contradicted
    when the whole interval lies below it; an interval that contains it (a tie) is never
    a hold. ``paper``: the paper's own value, if it printed one; ``reason``: why this
    threshold (for a threshold other than the null)."""

    than: float | None = None
    paper: float | None = None
    reason: str = ""

    sign = 1

    def _t(self, q: Quantity | None = None, null: float | None = None) -> float:
        t = self.than if self.than is not None else (q.null if q is not None else null)
        if t is None:
            raise ValueError("an ordering against a quantity without a null needs an explicit threshold ('than')")
        return t

    def check(self, q: Quantity) -> None:
        t = self._t(q)
        if self.than is not None and self.than != q.null and not self.reason.strip():
            raise ValueError(f"threshold {self.than:g} is not {q.label()}'s 'no effect': write down why (reason=...)")
        if self.paper is not None and (self.paper - t) * self.sign <= 0:
            raise ValueError(f"the paper's {self.paper:g} is not on the claimed side of {t:g}")

    def bind(self, q: Quantity) -> Greater:
        """This comparison with its threshold made explicit."""
        return type(self)(self._t(q), self.paper, self.reason)

    def edges(self) -> tuple[float, ...]:
        return (self._t(),)

    def outcome(self, e: Estimate) -> str:
        t = self._t()
        lo, hi = (e.lo - t, e.hi - t) if self.sign > 0 else (t - e.hi, t - e.lo)
        if lo > 0:
            return "reproduced"
        if hi < 0:
            return "contradicted"
        return "inconclusive"

    def describe(self) -> str:
        return f"{'>' if self.sign > 0 else '<'} {self._t():.4g}" + (f" (paper {self.paper:.4g})" if self.paper is not None else "")


@dataclass(frozen=True)
class Less(Greater):
    """"The quantity is below ``than``" (default: the null): the mirror of :class:`Greater`."""

    sign = -1


Comparison = Near | Greater


# --------------------------------------------------------------------------------------
# the claim
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """One published claim, declared once.

    ``id``: stable key (tables, JSON, tests); ``where``: figure/table/section of the paper;
    ``words``: the paper's assertion in its own terms; ``quantity`` and ``comparison``:
    how ours is measured and judged. For an assertion over several quantities ("in every
    configuration", an ordering A < B < C), give ``parts``: (label, quantity) pairs, each
    judged with the same comparison; the claim is reproduced when every part is,
    contradicted when any part is, inconclusive otherwise. ``conditions``: the setting the
    paper made it in; ``calibration``: true by construction (checks the set-up, not the
    paper's finding): shown apart, never counted; ``mechanism``: what the study found
    behind a contradiction (for the docs)."""

    id: str
    where: str
    words: str
    comparison: Comparison
    quantity: Quantity | None = None
    parts: tuple[tuple[str, Quantity], ...] = ()
    conditions: str = ""
    calibration: bool = False
    mechanism: str = ""
    unit: str = ""

    def __post_init__(self) -> None:
        if (self.quantity is None) == (not self.parts):
            raise ValueError(f"claim {self.id!r}: give exactly one of quantity or parts")
        for _, q in self.measured():
            self.comparison.check(q)

    def measured(self) -> list[tuple[str, Quantity]]:
        """(label, quantity) of every part (one, unlabelled, for a single quantity)."""
        return [("", self.quantity)] if self.quantity is not None else list(self.parts)

    def comparison_for(self, q: Quantity) -> Comparison:
        c = self.comparison
        return c.bind(q) if isinstance(c, Greater) else c

    def describe_comparison(self) -> str:
        """The comparison as tables print it ("≈ 1.34, band [1.27, 1.41]", "> 1")."""
        return self.comparison_for(self.measured()[0][1]).describe()


def ordering(id: str, where: str, words: str, names: Sequence[str], *, paired: bool = True, **kw: Any) -> Claim:
    """"names[0] < names[1] < …" (e.g. completion times): each consecutive paired
    difference must be positive (a tie is not an ordering)."""
    parts = tuple((f"{b} − {a}", Difference(b, a, paired)) for a, b in zip(names, names[1:]))
    return Claim(id, where, words, Greater(), parts=parts, **kw)


def every(id: str, where: str, words: str, comparison: Comparison, parts: Mapping[str, Quantity], **kw: Any) -> Claim:
    """A claim over several configurations ("in every configuration …")."""
    return Claim(id, where, words, comparison, parts=tuple(parts.items()), **kw)


@dataclass(frozen=True)
class ClaimSet:
    """A study's claims, in report order; ids are unique."""

    claims: tuple[Claim, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for c in self.claims:
            if c.id in seen:
                raise ValueError(f"duplicate claim id {c.id!r}")
            seen.add(c.id)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.claims)

    def __len__(self) -> int:
        return len(self.claims)

    def __getitem__(self, id: str) -> Claim:
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(id)
