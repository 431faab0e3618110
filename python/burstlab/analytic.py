"""Closed-form TCP throughput models the seeds judge simulations against.

- :func:`mathis`: Mathis et al. 1997, ``C·MSS / (RTT·√p)`` with the constant the seeds use
  (√(3/2) from the derivation, 1.3 in Srinivasan et al. §4, 1.31 in Martignon & Capone §V).
- :func:`padhye`: Padhye, Firoiu, Towsley, Kurose 1998 ("PFTK"), the full model with
  triple-duplicate and timeout loss indications, ``b`` packets per ACK, the initial timeout
  ``T0`` and the window limit ``Wmax`` (SIGCOMM '98 eq. 31 / ToN 2000 eq. 32), and
  :func:`padhye_approx`, its approximation (eq. 33 / eq. 33).
- :func:`tibet_ideal`: the semi-empirical model of a TCP with an ideal bandwidth estimate,
  ``3.4·MSS / (RTT·p·log2(1/p))`` (Martignon & Capone §V eq. 3, Fig. 9), valid for 10⁻³ ≤ p ≤ 10⁻¹;
  Martignon & Capone puts it beside Reno's ``1.31·MSS/(RTT·√p)`` (:func:`mathis` with ``c=1.31``).
- :func:`ge_two_successes`: Srinivasan et al. §6.2's figure for a Gilbert-Elliott link given PRR and μ,
  the probability of two consecutive successes ``G·(1 − b)`` against ``PRR²`` for an
  independent link. It is the only closed form here that uses μ; Mathis, Padhye and TIBET
  take the loss probability p only.

Behaviour on bad input, one rule for every function:

- an input that makes the formula meaningless (p outside (0, 1), RTT ≤ 0, MSS ≤ 0,
  T0 ≤ 0, b < 1, Wmax < 1, NaN) raises :class:`burstlab.ParameterError` naming the parameter;
- an input the formula accepts but that lies outside the regime the model was derived or
  validated for returns an :class:`Estimate` whose ``outside`` lists, in words, each regime
  the query is outside of (``in_regime`` is then False). With ``strict=True`` the function
  raises :class:`OutOfRegimeError` instead. No function warns or silently clips.

Throughputs are in packets (segments) per second (``Estimate.pps``) and bits per second of
payload (``Estimate.bps = pps·MSS·8``). Padhye's B(p) is the *send rate* (retransmissions
included); Mathis and TIBET's figures are goodputs. At the p where these models apply the
difference, a factor (1 − p), is small; :mod:`burstlab.experiments.padhye` compares like
with like.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from burstlab._core import ParameterError

#: The constants C of Mathis' formula the seeds use: √(3/2) ≈ 1.22 from the periodic-loss
#: derivation with one ACK per packet (Mathis et al. 1997), 1.3 (Srinivasan et al. §4) and 1.31
#: (Martignon & Capone §V, citing Mathis et al.).
MATHIS_C: dict[str, float] = {"sqrt(3/2)": math.sqrt(1.5), "1.3": 1.3, "1.31": 1.31}

#: Srinivasan et al. §4 (citing Padhye et al.): the square-root formula "does not work well for
#: channels with more than 2% losses" (timeouts dominate there).
MATHIS_P_MAX = 0.02

#: The highest loss rate the seeds compare Padhye's model with a simulation at (Barsocchi et al. §V,
#: Fig. 3: frame error rates 2 % to 30 %); above it the query is flagged as unvalidated.
PADHYE_P_VALIDATED = 0.3

#: Martignon & Capone §V: the ideal-estimate model is valid for p from 10⁻³ to 10⁻¹.
TIBET_P_RANGE = (1e-3, 1e-1)

#: Martignon & Capone §V: "the correct coefficient of proportionality, i.e. 1.31 and 3.4 for TCP Reno
#: and for TCP performing an ideal estimate".
TIBET_C = 3.4
TIBET_RENO_C = 1.31


class OutOfRegimeError(ParameterError):
    """A query the formula accepts but that lies outside the regime its model holds in
    (raised only with ``strict=True``; otherwise the regime is named in ``Estimate.outside``)."""


@dataclass(frozen=True)
class Estimate:
    """One closed-form throughput estimate.

    ``pps`` is in segments per second, ``bps`` in payload bits per second; ``regime`` names
    the branch the model used (e.g. Padhye's ``"window-limited"``); ``outside`` lists, in
    words, each validity regime the query lies outside of (empty when it is inside).
    """

    model: str
    pps: float
    mss: int
    regime: str = ""
    outside: tuple[str, ...] = ()
    params: dict[str, float | None] = field(default_factory=dict)

    @property
    def bps(self) -> float:
        return self.pps * self.mss * 8.0

    @property
    def in_regime(self) -> bool:
        return not self.outside

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pps": self.pps,
            "bps": self.bps,
            "mss": self.mss,
            "regime": self.regime,
            "in_regime": self.in_regime,
            "outside": list(self.outside),
            "params": dict(self.params),
        }


# --------------------------------------------------------------------------- validation


def _finite(name: str, x: float) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ParameterError(f"invalid {name} = {x!r}: expected a number") from None
    if not math.isfinite(v):
        raise ParameterError(f"invalid {name} = {x!r}: expected a finite number")
    return v


def _prob_open(name: str, p: float) -> float:
    v = _finite(name, p)
    if not 0.0 < v < 1.0:
        raise ParameterError(f"invalid {name} = {p!r}: expected a probability in (0, 1)")
    return v


#: The shortest time the closed forms take (burstlab's clock resolution): a round trip or a
#: timeout below 1 ns is not a physical one, and 1/(RTT·√p) would underflow to a division by 0.
MIN_SECONDS = 1e-9


def _positive(name: str, x: float, unit: str = "") -> float:
    v = _finite(name, x)
    if v <= 0.0:
        raise ParameterError(f"invalid {name} = {x!r}: expected a positive number{unit}")
    if unit == " of seconds" and v < MIN_SECONDS:
        raise ParameterError(f"invalid {name} = {x!r}: expected at least 1 ns (1e-9 s)")
    return v


def _mss(mss: int) -> int:
    v = _finite("mss", mss)
    if v <= 0 or v != int(v):
        raise ParameterError(f"invalid mss = {mss!r}: expected a positive whole number of bytes")
    return int(v)


def _at_least_one(name: str, x: float | None) -> float | None:
    if x is None:
        return None
    v = _finite(name, x)
    if v < 1.0:
        raise ParameterError(f"invalid {name} = {x!r}: expected at least 1 (packets)")
    return v


def _finish(est: Estimate, strict: bool) -> Estimate:
    if strict and est.outside:
        raise OutOfRegimeError(f"{est.model}: outside its regime: " + "; ".join(est.outside))
    return est


# --------------------------------------------------------------------------- Mathis


def mathis_constant(c: float | str) -> float:
    """Resolve Mathis' C: a number, or one of the names in :data:`MATHIS_C`."""
    if isinstance(c, str):
        key = c.strip().replace(" ", "")
        if key in MATHIS_C:
            return MATHIS_C[key]
        try:
            c = float(key)
        except ValueError:
            raise ParameterError(f"invalid c = {c!r}: expected a number or one of {sorted(MATHIS_C)}") from None
    return _positive("c", c)


def mathis(
    p: float,
    rtt: float,
    mss: int = 1000,
    c: float | str = 1.31,
    wmax: float | None = None,
    *,
    strict: bool = False,
) -> Estimate:
    """Mathis et al. 1997: throughput = C·MSS / (RTT·√p) (Srinivasan et al. §4 with C = 1.3;
    Martignon & Capone §V with C = 1.31; C = √(3/2) from the periodic-loss derivation).

    ``p`` is the packet loss probability, ``rtt`` seconds, ``mss`` bytes. The model ignores
    timeouts (outside its regime above p = 2 %, Srinivasan et al. §4) and the window limit (with
    ``wmax`` packets given, a prediction above Wmax/RTT is flagged window-limited).
    """
    p = _prob_open("p", p)
    rtt = _positive("rtt", rtt, " of seconds")
    m = _mss(mss)
    cc = mathis_constant(c)
    w = _at_least_one("wmax", wmax)
    pps = cc / (rtt * math.sqrt(p))
    outside: list[str] = []
    if p > MATHIS_P_MAX:
        outside.append(
            f"p = {p:g} > {MATHIS_P_MAX:g}: timeouts dominate and the square-root law overestimates "
            "(Srinivasan et al. §4, Padhye et al. 1998); use padhye()"
        )
    if w is not None and pps * rtt > w:
        outside.append(
            f"window-limited: the implied mean window {pps * rtt:.3g} > wmax = {w:g} packets, "
            f"throughput is capped near wmax/RTT = {w / rtt:.4g} packets/s"
        )
    est = Estimate(
        model=f"mathis(C={cc:.4g})",
        pps=pps,
        mss=m,
        regime="loss-limited",
        outside=tuple(outside),
        params={"p": p, "rtt": rtt, "c": cc, "wmax": w},
    )
    return _finish(est, strict)


# --------------------------------------------------------------------------- Padhye


def padhye_q(p: float, w: float) -> float:
    """Q̂(w): the probability that a loss in a window of ``w`` packets is a timeout rather
    than a triple-duplicate indication (PFTK 1998 eq. 25/27 approximation):
    Q̂(w) = min(1, (1 − (1−p)³)(1 + (1−p)³(1 − (1−p)^(w−3))) / (1 − (1−p)^w)), and 1 for
    w ≤ 3 (fewer than three packets can follow the loss, so no triple duplicate)."""
    if w <= 3.0:
        return 1.0
    # 1 − (1−p)^k as −expm1(k·log1p(−p)): exact to rounding even where 1 − p rounds to 1
    # (p = 1e-300 would otherwise give 0/0)
    lq = math.log1p(-p)

    def one_minus_qk(k: float) -> float:
        return -math.expm1(k * lq)

    num = one_minus_qk(3.0) * (1.0 + math.exp(3.0 * lq) * one_minus_qk(w - 3.0))
    den = one_minus_qk(w)
    return min(1.0, num / den)


def padhye_f(p: float) -> float:
    """f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶: the mean duration of a timeout sequence
    in units of T0, with exponential backoff capped at 64·T0 (PFTK 1998 eq. 28)."""
    return 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def padhye_ew(p: float, b: float = 2.0) -> float:
    """E[W_u], the unconstrained mean window at a loss indication (PFTK 1998 eq. 13):
    (2 + b)/(3b) + √(8(1 − p)/(3bp) + ((2 + b)/(3b))²)."""
    a = (2.0 + b) / (3.0 * b)
    return a + math.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + a * a)


def _padhye_args(
    p: float, rtt: float, t0: float | None, b: float, wmax: float | None, mss: int
) -> tuple[float, float, float, float, float | None, int, list[str]]:
    p = _prob_open("p", p)
    rtt = _positive("rtt", rtt, " of seconds")
    t0v = max(1.0, 4.0 * rtt) if t0 is None else _positive("t0", t0, " of seconds")
    bv = _finite("b", b)
    if bv < 1.0:
        raise ParameterError(f"invalid b = {b!r}: expected at least 1 (packets acknowledged per ACK)")
    w = _at_least_one("wmax", wmax)
    m = _mss(mss)
    outside: list[str] = []
    if t0v < rtt:
        outside.append(f"T0 = {t0v:g} s < RTT = {rtt:g} s: the model assumes a retransmission timeout longer than a round")
    if p > PADHYE_P_VALIDATED:
        outside.append(
            f"p = {p:g} > {PADHYE_P_VALIDATED:g}: beyond the loss rates the model has been checked against "
            "a simulation at (Barsocchi et al. Fig. 3 goes to 30 %)"
        )
    return p, rtt, t0v, bv, w, m, outside


def padhye(
    p: float,
    rtt: float,
    t0: float | None = None,
    b: float = 2.0,
    wmax: float | None = None,
    mss: int = 1000,
    *,
    strict: bool = False,
) -> Estimate:
    """Padhye et al. 1998, the full model (SIGCOMM '98 eq. 31), the send rate B(p) in
    packets/s of a bulk Reno transfer:

    with E[W] = E[W_u] (:func:`padhye_ew`), Q̂ (:func:`padhye_q`) and f (:func:`padhye_f`),
    if E[W_u] < Wmax (loss-limited):
        B = ((1−p)/p + E[W] + Q̂(E[W])/(1−p)) / (RTT·(b·E[W]/2 + 1) + Q̂(E[W])·T0·f(p)/(1−p))
    else (window-limited):
        B = ((1−p)/p + Wmax + Q̂(Wmax)/(1−p))
            / (RTT·(b·Wmax/8 + (1−p)/(p·Wmax) + 2) + Q̂(Wmax)·T0·f(p)/(1−p))

    ``p`` is the loss-indication probability, ``rtt`` and ``t0`` seconds (``t0`` defaults to
    max(1 s, 4·RTT), RFC 6298's floor), ``b`` packets acknowledged per ACK (2 with delayed
    ACKs), ``wmax`` packets (None: unbounded).
    """
    p, rtt, t0v, bv, w, m, outside = _padhye_args(p, rtt, t0, b, wmax, mss)
    ew = padhye_ew(p, bv)
    ff = padhye_f(p)
    if w is None or ew < w:
        q = padhye_q(p, ew)
        num = (1.0 - p) / p + ew + q / (1.0 - p)
        den = rtt * (bv * ew / 2.0 + 1.0) + q * t0v * ff / (1.0 - p)
        regime = "loss-limited"
    else:
        q = padhye_q(p, w)
        num = (1.0 - p) / p + w + q / (1.0 - p)
        den = rtt * (bv * w / 8.0 + (1.0 - p) / (p * w) + 2.0) + q * t0v * ff / (1.0 - p)
        regime = "window-limited"
    est = Estimate(
        model="padhye",
        pps=num / den,
        mss=m,
        regime=regime,
        outside=tuple(outside),
        params={"p": p, "rtt": rtt, "t0": t0v, "b": bv, "wmax": w, "E[W]": ew, "Q": q},
    )
    return _finish(est, strict)


def padhye_approx(
    p: float,
    rtt: float,
    t0: float | None = None,
    b: float = 2.0,
    wmax: float | None = None,
    mss: int = 1000,
    *,
    strict: bool = False,
) -> Estimate:
    """Padhye et al. 1998, the approximate model (SIGCOMM '98 eq. 33):

        B ≈ min(Wmax/RTT, 1 / (RTT·√(2bp/3) + T0·min(1, 3·√(3bp/8))·p·(1 + 32p²)))

    Same parameters as :func:`padhye`. Its regime: the min() makes it follow the full
    model's window-limited branch only roughly; the full model is the reference.
    """
    p, rtt, t0v, bv, w, m, outside = _padhye_args(p, rtt, t0, b, wmax, mss)
    loss = 1.0 / (rtt * math.sqrt(2.0 * bv * p / 3.0) + t0v * min(1.0, 3.0 * math.sqrt(3.0 * bv * p / 8.0)) * p * (1.0 + 32.0 * p * p))
    if w is not None and w / rtt < loss:
        pps, regime = w / rtt, "window-limited"
    else:
        pps, regime = loss, "loss-limited"
    est = Estimate(
        model="padhye-approx",
        pps=pps,
        mss=m,
        regime=regime,
        outside=tuple(outside),
        params={"p": p, "rtt": rtt, "t0": t0v, "b": bv, "wmax": w},
    )
    return _finish(est, strict)


# --------------------------------------------------------------------------- TIBET


def tibet_ideal(p: float, rtt: float, mss: int = 1000, *, strict: bool = False) -> Estimate:
    """Martignon & Capone §V eq. 3 with its coefficient: the goodput of a TCP that always knows the
    available bandwidth, 3.4·MSS / (RTT·p·log2(1/p)). Valid for 10⁻³ ≤ p ≤ 10⁻¹ (Martignon & Capone §V,
    citing Xylomenos et al.); outside that range the query is flagged. Martignon & Capone Fig. 9 puts it
    beside Reno's 1.31·MSS/(RTT·√p): ``mathis(p, rtt, mss, c=1.31)``."""
    p = _prob_open("p", p)
    rtt = _positive("rtt", rtt, " of seconds")
    m = _mss(mss)
    lo, hi = TIBET_P_RANGE
    outside: list[str] = []
    if not lo <= p <= hi:
        outside.append(f"p = {p:g} outside [{lo:g}, {hi:g}], the range Martignon & Capone §V states the ideal-estimate model for")
    pps = TIBET_C / (rtt * p * math.log2(1.0 / p))
    est = Estimate(
        model="tibet-ideal",
        pps=pps,
        mss=m,
        regime="loss-limited",
        outside=tuple(outside),
        params={"p": p, "rtt": rtt, "c": TIBET_C},
    )
    return _finish(est, strict)


def tibet_reno(p: float, rtt: float, mss: int = 1000, *, strict: bool = False) -> Estimate:
    """Reno as Martignon & Capone §V / Fig. 9 draws it: 1.31·MSS/(RTT·√p), flagged outside the same
    10⁻³..10⁻¹ range as the ideal-estimate model it is compared with (and above 2 % as any
    Mathis figure is, see :func:`mathis`)."""
    pv = _prob_open("p", p)
    est = mathis(pv, rtt, mss, c=TIBET_RENO_C)
    lo, hi = TIBET_P_RANGE
    extra = () if lo <= pv <= hi else (f"p = {pv:g} outside [{lo:g}, {hi:g}], the range of Martignon & Capone Fig. 9",)
    est = Estimate("tibet-reno(C=1.31)", est.pps, est.mss, est.regime, est.outside + extra, est.params)
    return _finish(est, strict)


# --------------------------------------------------------------------------- Gilbert-Elliott


@dataclass(frozen=True)
class TwoSuccesses:
    """Srinivasan et al. §6.2: the probability of two consecutive successes on a Gilbert-Elliott link
    (h = 100 %) with the given PRR and μ, against the independent link with the same PRR."""

    prr: float
    mu: float
    b: float
    g: float
    bursty: float
    independent: float

    @property
    def ratio(self) -> float:
        return self.bursty / self.independent

    def to_dict(self) -> dict[str, float]:
        return {
            "prr": self.prr,
            "mu": self.mu,
            "b": self.b,
            "g": self.g,
            "p_two_successes": self.bursty,
            "p_two_successes_independent": self.independent,
            "ratio": self.ratio,
        }


def ge_two_successes(prr: float, mu: float) -> TwoSuccesses:
    """Srinivasan et al. §6.2: in steady state G = PRR, B = 1 − PRR and G·b = B·g with μ = 1 − g − b,
    so b = (1 − PRR)(1 − μ), g = PRR(1 − μ), and P(two consecutive successes) = G·(1 − b);
    an independent link gives PRR². Raises ParameterError when no Gilbert-Elliott chain has
    this (PRR, μ) (b or g outside [0, 1])."""
    r = _prob_open("prr", prr)
    m = _finite("mu", mu)
    if not -1.0 <= m < 1.0:
        raise ParameterError(f"invalid mu = {mu!r}: expected μ in [-1, 1)")
    b = (1.0 - r) * (1.0 - m)
    g = r * (1.0 - m)
    if b > 1.0 or g > 1.0:
        lo = 1.0 - 1.0 / max(r, 1.0 - r)
        raise ParameterError(
            f"invalid mu = {mu!r} for prr = {prr!r}: b = {b:.4g}, g = {g:.4g} must be ≤ 1, which needs μ ≥ {lo:.4g}"
        )
    return TwoSuccesses(prr=r, mu=m, b=b, g=g, bursty=r * (1.0 - b), independent=r * r)


__all__ = [
    "MATHIS_C",
    "MATHIS_P_MAX",
    "PADHYE_P_VALIDATED",
    "TIBET_C",
    "TIBET_P_RANGE",
    "TIBET_RENO_C",
    "Estimate",
    "OutOfRegimeError",
    "TwoSuccesses",
    "ge_two_successes",
    "mathis",
    "mathis_constant",
    "padhye",
    "padhye_approx",
    "padhye_ew",
    "padhye_f",
    "padhye_q",
    "tibet_ideal",
    "tibet_reno",
]
