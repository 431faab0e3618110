"""Replicated runs: the mean of each figure over N independent runs (seeds) and its
Student-t confidence interval, mean ± t(1 − α/2, N − 1)·s/√N, s the sample standard
deviation (``burstlab sim --seeds N``).

Plain Python (no numpy or scipy): ``burstlab sim`` imports it, and a command pays only for
what it uses. The t quantile is exact for the small degrees of freedom replicated
simulations have (the closed form of Student's distribution function for whole degrees
of freedom, Abramowitz & Stegun 26.7.3-4, inverted by bisection) and the Cornish-Fisher
expansion (A&S 26.7.5) beyond 200 degrees of freedom, where it is exact to about 10^-10.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from burstlab._core import ParameterError

__all__ = ["Estimate", "estimate", "t_quantile"]

#: Above this many degrees of freedom the quantile comes from the Cornish-Fisher expansion.
_CORNISH_FISHER_DF = 200


def _t_central(t: float, df: int) -> float:
    """P(|T| ≤ t) for Student's t with ``df`` (whole) degrees of freedom (A&S 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:  # odd: (2/π)(θ + sinθ cosθ (1 + 2/3 c² + 2·4/(3·5) c⁴ + ... up to c^(ν−3)))
        total, term = 0.0, 1.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return (2 / math.pi) * (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0))
    total, term = 0.0, 1.0  # even: sinθ (1 + 1/2 c² + 1·3/(2·4) c⁴ + ... up to c^(ν−2))
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


def t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of Student's t distribution with ``df`` degrees of freedom
    (``q`` in (0, 1), ``df`` ≥ 1 whole): ``t_quantile(0.975, 9)`` = 2.2622."""
    if not (isinstance(df, int) and df >= 1):
        raise ParameterError(f"invalid parameter df = {df!r}: expected a whole number of degrees of freedom ≥ 1")
    if not 0.0 < q < 1.0:
        raise ParameterError(f"invalid parameter q = {q!r}: expected a probability in (0, 1)")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    if q == 0.5:
        return 0.0
    if df > _CORNISH_FISHER_DF:
        from statistics import NormalDist  # 2 ms (fractions, decimal) that a plain `burstlab sim` does not pay

        z = NormalDist().inv_cdf(q)
        g = (
            (z**3 + z) / 4,
            (5 * z**5 + 16 * z**3 + 3 * z) / 96,
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
            (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
        )
        return z + sum(gk / df ** (k + 1) for k, gk in enumerate(g))
    target = 2.0 * q - 1.0  # P(|T| ≤ t)
    lo, hi = 0.0, 1.0
    while _t_central(hi, df) < target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _t_central(mid, df) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Estimate:
    """A figure over ``n`` runs: ``mean``, sample standard deviation ``sd`` and the
    ``half_width`` of its ``confidence`` interval (None with one run: no interval)."""

    mean: float
    half_width: float | None
    sd: float | None
    n: int
    confidence: float = 0.95

    @property
    def low(self) -> float | None:
        return None if self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> float | None:
        return None if self.half_width is None else self.mean + self.half_width

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci_half_width": self.half_width, "sd": self.sd, "n": self.n, "confidence": self.confidence}


def estimate(values: Iterable[float], confidence: float = 0.95) -> Estimate:
    """Mean ± Student-t ``confidence`` interval of independent ``values`` (at least one)."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ParameterError("invalid parameter values: expected at least one value")
    if not 0.0 < confidence < 1.0:
        raise ParameterError(f"invalid parameter confidence = {confidence!r}: expected a probability in (0, 1)")
    mean = math.fsum(xs) / n
    if n == 1:
        return Estimate(mean, None, None, 1, confidence)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return Estimate(mean, t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n), sd, n, confidence)
