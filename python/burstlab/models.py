"""Loss models, scikit-learn style: settings in ``__init__``, fitted parameters end in
``_``, ``fit(trace)`` returns self, ``sample(n, random_state)`` returns a
:class:`~burstlab.traces.Trace`, ``score(trace)`` is a log-likelihood where one is
defined, and ``to_dict``/``from_dict`` make a fitted model a JSON file the CLI passes around.

Sampling and every per-packet / in-time decision run in Rust: ``to_core()`` returns the
:class:`burstlab._core.LossModel` the simulator takes. Fitting is here (numpy, scipy,
hmmlearn). See ``docs/loss-models.md`` for every model, its parameters and the seeds.

A model constructed with explicit parameters is usable without ``fit``; ``fit`` sets the
``_`` attributes, which then take precedence.
"""

from __future__ import annotations

import base64
import inspect
import json
import math
import os
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.traces import Trace

__all__ = [
    "ALL_MODELS",
    "BernoulliModel",
    "DeterministicListModel",
    "GilbertElliottModel",
    "HMMModel",
    "LossModelBase",
    "MarkovCTModel",
    "NotFittedError",
    "ReplayModel",
    "RunLengthModel",
    "SemiMarkovModel",
    "VDDPModel",
    "load_model",
    "make_model",
]

#: Packet interval (seconds) for time models fitted to a trace without timing.
DEFAULT_INTERVAL = 0.001


class NotFittedError(_core.ParameterError):
    """A model without parameters was asked to sample (give them, or call ``fit``)."""


# --------------------------------------------------------------------------- helpers
def _bits(trace: Trace) -> npt.NDArray[np.uint8]:
    return trace.to_numpy()


def _check_trace(trace: Trace, need_loss: bool = False, need_success: bool = False) -> None:
    if not isinstance(trace, Trace):
        raise _core.ParameterError(f"invalid parameter trace = {type(trace).__name__}: expected a burstlab.traces.Trace")
    if len(trace) == 0:
        raise _core.EmptyInputError("invalid parameter trace: an empty trace cannot be fitted")
    ones = trace.bits.count_ones()
    if need_loss and ones == len(trace):
        raise _core.ParameterError(f"invalid parameter trace ({trace.name or 'unnamed'}): it has no loss, so this fit is undefined")
    if need_success and ones == 0:
        raise _core.ParameterError(f"invalid parameter trace ({trace.name or 'unnamed'}): it has no delivered packet, so this fit is undefined")


def _prob(name: str, p: float) -> float:
    if not (isinstance(p, (int, float)) and math.isfinite(p) and 0.0 <= p <= 1.0):
        raise _core.ParameterError(f"invalid parameter {name} = {p}: expected a probability in [0, 1]")
    return float(p)


def _pos(name: str, x: float | None) -> float | None:
    if x is None:
        return None
    if not (isinstance(x, (int, float)) and math.isfinite(x) and x > 0):
        raise _core.ParameterError(f"invalid parameter {name} = {x}: expected a positive finite number")
    return float(x)


def _posf(name: str, x: float) -> float:
    v = _pos(name, x)
    if v is None:
        raise _core.ParameterError(f"invalid parameter {name} = None: expected a positive finite number")
    return v


def _seed(random_state: int | np.random.Generator | None) -> int:
    if random_state is None:
        return int(np.random.default_rng().integers(2**63))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, (int, np.integer)) and 0 <= random_state < 2**64:
        return int(random_state)
    raise _core.ParameterError(f"invalid parameter random_state = {random_state!r}: expected an int from 0 to 2^64 - 1, a numpy Generator or None")


def _run_lengths(trace: Trace, value: bool) -> npt.NDArray[np.int64]:
    return trace.bits.run_lengths(value).astype(np.int64)


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def _trace_interval(trace: Trace) -> float | None:
    if trace.interval is not None:
        return trace.interval
    if trace.timestamps is not None and len(trace) > 1:
        d = np.diff(trace.timestamps)
        med = float(np.median(d))
        return med if med > 0 else None
    return None


def _categorical_score(trans: npt.ArrayLike, start: npt.ArrayLike, loss: npt.ArrayLike, lost: npt.NDArray[np.int64]) -> float:
    """Log-likelihood of a 0/1 loss sequence (1 = lost) under a discrete HMM, via hmmlearn."""
    from hmmlearn.hmm import CategoricalHMM

    lp = np.clip(np.asarray(loss, dtype=float), 1e-300, 1 - 1e-16)
    k = int(lp.size)
    m = CategoricalHMM(n_components=k, n_features=2, init_params="", params="")
    m.startprob_ = np.asarray(start, dtype=float)
    m.transmat_ = np.asarray(trans, dtype=float)
    m.emissionprob_ = np.column_stack([1 - lp, lp])
    return float(m.score(lost.reshape(-1, 1)))


# --------------------------------------------------------------------------- base
class LossModelBase:
    """Common machinery: settings/fitted attributes, JSON, sampling through Rust."""

    #: Registry key written in ``to_dict``.
    kind: ClassVar[str] = ""
    #: Names of the fitted (``_``) attributes, in order.
    _fitted_names: ClassVar[tuple[str, ...]] = ()
    _registry: ClassVar[dict[str, type[LossModelBase]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.kind:
            LossModelBase._registry[cls.kind] = cls

    # -- parameters ----------------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        """The ``__init__`` settings (scikit-learn's ``get_params``)."""
        sig = inspect.signature(type(self).__init__)
        return {n: getattr(self, n) for n in sig.parameters if n != "self"}

    def fitted_params(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self._fitted_names if hasattr(self, n)}

    @property
    def is_fitted(self) -> bool:
        return all(hasattr(self, n) for n in self._fitted_names)

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v is not None)
        return f"{type(self).__name__}({p})"

    # -- the scikit-learn surface --------------------------------------------------
    def fit(self, trace: Trace) -> LossModelBase:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def to_core(self) -> _core.LossModel:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def score(self, trace: Trace) -> float:
        """Log-likelihood of ``trace`` under the model (natural log)."""
        raise NotImplementedError(f"{type(self).__name__} defines no likelihood for a packet trace")

    def sample_interval(self) -> float | None:
        """Seconds between sampled entries (time models, or the fitted trace's interval)."""
        return getattr(self, "interval_", None)

    def sample(self, n: int, random_state: int | np.random.Generator | None = None) -> Trace:
        """``n`` packets from a fresh copy of the model (Rust sampler), as a Trace."""
        if not (isinstance(n, (int, np.integer)) and n >= 0):
            raise _core.ParameterError(f"invalid parameter n = {n!r}: expected a non-negative integer")
        bits = self.to_core().sample(int(n), _seed(random_state))
        return Trace(bits, interval=self.sample_interval(), name=f"{self.kind}-sample")

    def mean_loss(self) -> float | None:
        """Analytic long-run packet loss probability, where the model has one."""
        return self.to_core().mean_loss()

    # -- JSON ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.kind,
            "settings": _jsonable(self.get_params()),
            "fitted": _jsonable(self.fitted_params()),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LossModelBase:
        """The model ``to_dict`` wrote. A missing key, a key of the wrong type or a value
        out of its domain is a :class:`burstlab.ParameterError` naming it."""
        if not isinstance(d, dict) or "model" not in d:
            raise _core.ParameterError("invalid parameter model: expected a dict with a 'model' entry (from to_dict)")
        kind = d["model"]
        klass = LossModelBase._registry.get(kind) if isinstance(kind, str) else None
        if klass is None:
            raise _core.ParameterError(f"invalid parameter model = {kind!r}: expected one of {sorted(LossModelBase._registry)}")
        if cls is not LossModelBase and not issubclass(klass, cls):
            raise _core.ParameterError(f"invalid parameter model = {kind!r}: not a {cls.__name__}")
        settings, fitted = d.get("settings", {}), d.get("fitted", {})
        for key, val in (("settings", settings), ("fitted", fitted)):
            if not isinstance(val, dict):
                raise _core.ParameterError(f"invalid parameter {key} = {val!r} for {kind}: expected a JSON object of name: value")
        try:
            obj = klass(**settings)
        except TypeError as e:
            raise _core.ParameterError(f"invalid parameter settings for {kind}: {e}") from None
        try:
            for k, v in fitted.items():
                if k not in klass._fitted_names:
                    raise _core.ParameterError(f"invalid parameter fitted.{k} for {kind}: expected one of {list(klass._fitted_names)}")
                setattr(obj, k, obj._decode_fitted(k, v))
            obj.to_core()  # validate now, naming the parameter, rather than at first use
        except _core.BurstlabError:
            raise
        except AttributeError as e:
            if e.name in klass._fitted_names:
                raise _core.ParameterError(f"invalid parameter fitted for {kind}: {e.name} is missing (a fitted {kind} has {list(klass._fitted_names)})") from None
            raise _core.ParameterError(f"invalid parameter fitted for {kind}: wrong type or shape ({e})") from None
        except (TypeError, ValueError, KeyError, IndexError) as e:
            names = {k: fitted[k] for k in fitted} or settings
            raise _core.ParameterError(f"invalid parameter {'fitted' if fitted else 'settings'} for {kind} = {names!r}: wrong type or shape ({e})") from None
        return obj

    def _decode_fitted(self, name: str, value: Any) -> Any:
        return value

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write ``to_dict`` as JSON, atomically (temp file + rename)."""
        from burstlab.io import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_dict(), indent=1))


def load_model(path: str | os.PathLike[str]) -> LossModelBase:
    """A model saved with ``save`` / ``to_dict``."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.TraceFormatError(f"{p}: not a model JSON: binary content (byte {e.start} is not UTF-8)") from None
    if not text.strip():
        raise _core.EmptyInputError(f"{p}: empty file: expected a model JSON")
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise _core.TraceFormatError(f"{p}:{e.lineno}: not valid JSON: {e.msg}") from None
    try:
        return LossModelBase.from_dict(d)
    except _core.BurstlabError as e:
        raise type(e)(f"{p}: {e}") from None


# --------------------------------------------------------------------------- Bernoulli
class BernoulliModel(LossModelBase):
    """Independent losses with probability ``p``.

    ``target`` chooses what the fit matches (Barsocchi et al. Table I): ``"fer"`` the frame error
    rate (a), ``"burst"`` the mean loss-burst length 1/(1−p) (b), ``"gap"`` the mean
    success-run (error gap) length 1/p (c).
    """

    kind = "bernoulli"
    _fitted_names = ("p_", "interval_")

    def __init__(self, p: float | None = None, target: str = "fer") -> None:
        self.p = None if p is None else _prob("p", p)
        if target not in ("fer", "burst", "gap"):
            raise _core.ParameterError(f"invalid parameter target = {target!r}: expected 'fer', 'burst' or 'gap'")
        self.target = target

    def fit(self, trace: Trace) -> BernoulliModel:
        _check_trace(trace)
        st = trace.stats(warn=False)
        if self.target == "fer":
            self.p_ = st.lost / st.length
        elif self.target == "burst":
            if st.lost == 0:
                raise _core.ParameterError("invalid parameter trace: no loss burst, so target='burst' is undefined")
            self.p_ = 1.0 - 1.0 / st.loss_bursts.mean
        else:
            if st.delivered == 0:
                raise _core.ParameterError("invalid parameter trace: no success run, so target='gap' is undefined")
            self.p_ = 1.0 / st.success_runs.mean
        self.interval_ = _trace_interval(trace)
        return self

    def _p(self) -> float:
        p = getattr(self, "p_", self.p)
        if p is None:
            raise NotFittedError("BernoulliModel has no p: give p= or call fit")
        return float(p)

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.bernoulli(self._p())

    def score(self, trace: Trace) -> float:
        p = self._p()
        n1 = trace.bits.count_ones()
        n0 = len(trace) - n1
        with np.errstate(divide="ignore"):
            return float((n0 * np.log(p) if n0 else 0.0) + (n1 * np.log1p(-p) if n1 else 0.0))


# --------------------------------------------------------------------------- Gilbert-Elliott
class GilbertElliottModel(LossModelBase):
    """Gilbert-Elliott per packet: P(G→B) = b, P(B→G) = g, loss probability ``h_loss`` in
    B and ``k_loss`` in G (Srinivasan et al. §5.2; netem ``loss gemodel p r 1-h 1-k`` with p = b,
    r = g, 1-h = h_loss, 1-k = k_loss).

    ``method``: ``"bistable"`` (Barsocchi et al. Table I (d): g = 1/mean burst, b = 1/mean gap;
    h_loss = 1, k_loss = 0, so FER = b/(b+g) and both run means match), ``"counts"``
    (Srinivasan et al. §5.2 transition counts g = |01|/(|01|+|00|), b = |10|/(|10|+|11|), the
    maximum-likelihood bistable chain), or ``"em"`` (all four parameters by Baum-Welch,
    hmmlearn, two hidden states; the state with more loss is B).
    """

    kind = "gilbert-elliott"
    _fitted_names = ("b_", "g_", "h_loss_", "k_loss_", "interval_")

    def __init__(
        self,
        b: float | None = None,
        g: float | None = None,
        h_loss: float = 1.0,
        k_loss: float = 0.0,
        method: str = "bistable",
        n_iter: int = 200,
        random_state: int = 0,
    ) -> None:
        self.b = None if b is None else _prob("b", b)
        self.g = None if g is None else _prob("g", g)
        self.h_loss = _prob("h_loss", h_loss)
        self.k_loss = _prob("k_loss", k_loss)
        if method not in ("bistable", "counts", "em"):
            raise _core.ParameterError(f"invalid parameter method = {method!r}: expected 'bistable', 'counts' or 'em'")
        self.method = method
        self.n_iter = int(n_iter)
        self.random_state = int(random_state)

    @classmethod
    def from_prr_mu(cls, prr: float, mu: float) -> GilbertElliottModel:
        """Srinivasan et al. §6.2: g = PRR·(1−μ), b = (1−PRR)·(1−μ)."""
        _prob("prr", prr)
        if not (math.isfinite(mu) and mu <= 1):
            raise _core.ParameterError(f"invalid parameter mu = {mu}: expected a value ≤ 1")
        g, b = prr * (1 - mu), (1 - prr) * (1 - mu)
        if not (0 <= g <= 1 and 0 <= b <= 1):
            raise _core.ParameterError(f"invalid parameter mu = {mu}: g = {g} or b = {b} falls outside [0, 1] for PRR = {prr}")
        return cls(b=b, g=g)

    def fit(self, trace: Trace) -> GilbertElliottModel:
        _check_trace(trace, need_loss=True, need_success=True)
        st = trace.stats(warn=False)
        self.interval_ = _trace_interval(trace)
        if self.method == "bistable":
            self.g_, self.b_ = 1.0 / st.loss_bursts.mean, 1.0 / st.success_runs.mean
            self.h_loss_, self.k_loss_ = 1.0, 0.0
        elif self.method == "counts":
            if st.g is None or st.b is None:
                raise _core.ParameterError("invalid parameter trace: g or b is undefined for it (too short)")
            self.g_, self.b_ = st.g, st.b
            self.h_loss_, self.k_loss_ = 1.0, 0.0
        else:
            hm = _fit_hmm(trace, 2, self.n_iter, self.random_state)
            loss = hm.emissionprob_[:, 1]
            bad = int(np.argmax(loss))
            good = 1 - bad
            self.b_ = float(hm.transmat_[good, bad])
            self.g_ = float(hm.transmat_[bad, good])
            self.h_loss_, self.k_loss_ = float(loss[bad]), float(loss[good])
        return self

    def _params(self) -> tuple[float, float, float, float]:
        if hasattr(self, "b_"):
            return self.b_, self.g_, self.h_loss_, self.k_loss_
        if self.b is None or self.g is None:
            raise NotFittedError("GilbertElliottModel has no b/g: give them or call fit")
        return self.b, self.g, self.h_loss, self.k_loss

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.gilbert_elliott(*self._params())

    def score(self, trace: Trace) -> float:
        b, g, h, k = self._params()
        s = b + g
        pb = b / s if s > 0 else 0.0
        lost = 1 - _bits(trace).astype(np.int64)
        return _categorical_score([[1 - b, b], [g, 1 - g]], [1 - pb, pb], [k, h], lost)


# --------------------------------------------------------------------------- deterministic list
class DeterministicListModel(LossModelBase):
    """Drop the listed packets (1-based; Pentikousis & Badr §2), repeating every ``period`` packets.
    ``fit`` takes the trace's loss positions with period = its length (a periodic replay)."""

    kind = "list"
    _fitted_names = ("drops_", "period_")

    def __init__(self, drops: list[int] | None = None, period: int | None = None) -> None:
        if drops is not None:
            bad = [d for d in drops if not (isinstance(d, (int, np.integer)) and d >= 1)]
            if bad:
                raise _core.ParameterError(f"invalid parameter drops = {bad[0]!r}: expected packet numbers counted from 1")
        if period is not None and not (isinstance(period, (int, np.integer)) and period >= 1):
            raise _core.ParameterError(f"invalid parameter period = {period!r}: expected a positive number of packets")
        self.drops = None if drops is None else [int(d) for d in drops]
        self.period = None if period is None else int(period)

    def fit(self, trace: Trace) -> DeterministicListModel:
        _check_trace(trace)
        self.drops_ = (np.flatnonzero(_bits(trace) == 0) + 1).tolist()
        self.period_ = len(trace)
        return self

    def to_core(self) -> _core.LossModel:
        drops = getattr(self, "drops_", self.drops)
        if drops is None:
            raise NotFittedError("DeterministicListModel has no drops: give drops= or call fit")
        period = getattr(self, "period_", self.period)
        if period is not None and period <= 0:
            raise _core.ParameterError(f"invalid parameter period = {period}: expected a positive number of packets")
        return _core.LossModel.deterministic(drops, period)

    def score(self, trace: Trace) -> float:
        """0 if the trace is exactly the model's pattern, −inf otherwise (a point mass)."""
        want = self.to_core().sample(len(trace), 0)
        return 0.0 if want == trace.bits else -math.inf


# --------------------------------------------------------------------------- time models
class _TimeModel(LossModelBase):
    packet_interval: float | None

    def _interval(self) -> float:
        iv = getattr(self, "interval_", None) or self.packet_interval or DEFAULT_INTERVAL
        return float(iv)

    def sample_interval(self) -> float | None:
        return self._interval()

    def _fit_interval(self, trace: Trace) -> float:
        return float(self.packet_interval or _trace_interval(trace) or DEFAULT_INTERVAL)


class MarkovCTModel(_TimeModel):
    """Continuous-time two-state Markov chain (Pentikousis & Badr Fig. 1a): exponential good/bad
    sojourns (means in seconds) and a drop probability per state; ``temporal=True`` is the
    ON/OFF reading (every packet in transit during a bad period is lost). TIBET's
    setting (Martignon & Capone §IV.B): ``MarkovCTModel(8.0, 4.0, 0.01, p_bad)``.

    Fit (losses 0 in good, 1 in bad), packet interval T: rate mode samples the chain at
    packet starts, which is exactly a discrete chain with b + g = 1 − e^(−sT),
    π_B = b/(b+g), s = 1/m_G + 1/m_B; with the trace's transition counts this gives
    m_G = 1/(π_B·s), m_B = 1/(π_G·s), exact when μ = 1 − b − g > 0 (μ ≤ 0 is clipped to
    10⁻⁶: the nearest chain, same loss rate). Temporal mode by moments:
    m_B = (mean burst − 1) · T, m_G = (mean gap + 1) · T.
    """

    kind = "markov-ct"
    _fitted_names = ("mean_good_", "mean_bad_", "loss_good_", "loss_bad_", "interval_")

    def __init__(
        self,
        mean_good: float | None = None,
        mean_bad: float | None = None,
        loss_good: float = 0.0,
        loss_bad: float = 1.0,
        temporal: bool = False,
        packet_interval: float | None = None,
    ) -> None:
        self.mean_good = _pos("mean_good", mean_good)
        self.mean_bad = _pos("mean_bad", mean_bad)
        self.loss_good = _prob("loss_good", loss_good)
        self.loss_bad = _prob("loss_bad", loss_bad)
        self.temporal = bool(temporal)
        self.packet_interval = _pos("packet_interval", packet_interval)

    def fit(self, trace: Trace) -> MarkovCTModel:
        _check_trace(trace, need_loss=True, need_success=True)
        st = trace.stats(warn=False)
        t = self._fit_interval(trace)
        self.interval_ = t
        self.loss_good_, self.loss_bad_ = (0.0, 1.0)
        mu = st.mu
        if not self.temporal and mu is not None and st.g and st.b:
            # μ ≤ 0 has no embedding; μ → 0⁺ (sojourns much shorter than T) is the closest
            # chain: it keeps the loss rate π_B and gives near-independent packets.
            s = -math.log(max(mu, 1e-6)) / t
            pb = st.b / (st.b + st.g)
            self.mean_good_ = 1.0 / (pb * s)
            self.mean_bad_ = 1.0 / ((1 - pb) * s)
        else:
            shift = 1.0 if self.temporal else 0.0
            self.mean_bad_ = max(st.loss_bursts.mean - shift, 0.05) * t
            self.mean_good_ = (st.success_runs.mean + shift) * t
        return self

    def _params(self) -> tuple[float, float, float, float]:
        if hasattr(self, "mean_good_"):
            return self.mean_good_, self.mean_bad_, self.loss_good_, self.loss_bad_
        if self.mean_good is None or self.mean_bad is None:
            raise NotFittedError("MarkovCTModel has no mean_good/mean_bad: give them or call fit")
        return self.mean_good, self.mean_bad, self.loss_good, self.loss_bad

    def to_core(self) -> _core.LossModel:
        mg, mb, lg, lb = self._params()
        if self.temporal:
            if (lg, lb) != (0.0, 1.0):
                raise _core.ParameterError(f"invalid parameter loss_bad = {lb}: temporal (ON/OFF) mode drops all in bad (1) and none in good (0)")
            return _core.LossModel.on_off(mg, mb, self._interval())
        return _core.LossModel.markov_ct(mg, mb, lg, lb, self._interval())


def _fit_family(family: str, x: npt.NDArray[np.float64]) -> dict[str, Any]:
    """A sojourn law (dict for ``_core``) fitted to positive samples ``x`` by maximum likelihood."""
    if family == "exponential":
        return {"kind": "exponential", "mean": float(x.mean())}
    if family == "deterministic":
        return {"kind": "deterministic", "value": float(x.mean())}
    if family == "lognormal":
        lx = np.log(x)
        return {"kind": "lognormal", "mu": float(lx.mean()), "sigma": float(lx.std())}
    if family == "pareto":
        xm = float(x.min())
        s = float(np.log(x / xm).sum())
        shape = len(x) / s if s > 0 else 1e6
        return {"kind": "pareto", "scale": xm, "shape": float(shape)}
    if family == "empirical":
        v, c = np.unique(x, return_counts=True)
        return {"kind": "empirical", "values": v.tolist(), "weights": c.astype(float).tolist()}
    raise _core.ParameterError(f"invalid parameter family = {family!r}: expected exponential, deterministic, lognormal, pareto or empirical")


class SemiMarkovModel(_TimeModel):
    """Two-state semi-Markov channel with arbitrary sojourn laws (Pentikousis & Badr §2). ``good``
    and ``bad`` are law dicts (``{"kind": "pareto", "scale": s, "shape": a}``, ...; seconds).
    ``fit`` takes each loss burst / success run of the trace times the packet interval as a
    bad / good sojourn and fits ``family`` to them by maximum likelihood (losses 0/1)."""

    kind = "semi-markov"
    _fitted_names = ("good_", "bad_", "interval_")

    def __init__(
        self,
        good: dict[str, Any] | None = None,
        bad: dict[str, Any] | None = None,
        loss_good: float = 0.0,
        loss_bad: float = 1.0,
        temporal: bool = False,
        family: str = "lognormal",
        packet_interval: float | None = None,
    ) -> None:
        self.good = good
        self.bad = bad
        self.loss_good = _prob("loss_good", loss_good)
        self.loss_bad = _prob("loss_bad", loss_bad)
        self.temporal = bool(temporal)
        if family not in ("exponential", "deterministic", "lognormal", "pareto", "empirical"):
            raise _core.ParameterError(f"invalid parameter family = {family!r}: expected exponential, deterministic, lognormal, pareto or empirical")
        self.family = family
        self.packet_interval = _pos("packet_interval", packet_interval)

    def fit(self, trace: Trace) -> SemiMarkovModel:
        _check_trace(trace, need_loss=True, need_success=True)
        t = self._fit_interval(trace)
        self.interval_ = t
        self.good_ = _fit_family(self.family, _run_lengths(trace, True).astype(np.float64) * t)
        self.bad_ = _fit_family(self.family, _run_lengths(trace, False).astype(np.float64) * t)
        return self

    def to_core(self) -> _core.LossModel:
        good = getattr(self, "good_", self.good)
        bad = getattr(self, "bad_", self.bad)
        if good is None or bad is None:
            raise NotFittedError("SemiMarkovModel has no good/bad laws: give them or call fit")
        return _core.LossModel.semi_markov(good, bad, self.loss_good, self.loss_bad, self.temporal, self._interval())


class VDDPModel(_TimeModel):
    """VDDP, the temporal four-state model of Pentikousis & Badr §2 (Fig. 1b), with its residual-
    sojourn memory (implemented in Rust, ``loss/vddp.rs``). Parameters in seconds: main
    sojourn means, ON share ``drop_*`` and mean ON+OFF sub-cycle ``cycle_*`` per main state.

    ``fit`` (a heuristic; Pentikousis & Badr give no estimator): a two-state HMM (hmmlearn) splits
    the trace into main states by Viterbi; the lossier one is B. Main means are the mean
    segment lengths, ``cycle_X`` = time in X / number of loss bursts in X, and
    ``drop_X`` = (lost − bursts) / packets in X: in packet mode an ON period of length x
    loses about x/T + 1 packets, so this ON share reproduces X's packet loss rate.
    """

    kind = "vddp"
    _fitted_names = ("mean_a_", "mean_b_", "drop_a_", "drop_b_", "cycle_a_", "cycle_b_", "interval_")

    def __init__(
        self,
        mean_a: float | None = None,
        mean_b: float | None = None,
        drop_a: float = 0.0,
        drop_b: float = 0.1,
        cycle_a: float = 1.0,
        cycle_b: float = 1.0,
        packet_interval: float | None = None,
        random_state: int = 0,
    ) -> None:
        self.mean_a = _pos("mean_a", mean_a)
        self.mean_b = _pos("mean_b", mean_b)
        self.drop_a = _prob("drop_a", drop_a)
        self.drop_b = _prob("drop_b", drop_b)
        self.cycle_a = _posf("cycle_a", cycle_a)
        self.cycle_b = _posf("cycle_b", cycle_b)
        self.packet_interval = _pos("packet_interval", packet_interval)
        self.random_state = int(random_state)

    def fit(self, trace: Trace) -> VDDPModel:
        _check_trace(trace, need_loss=True, need_success=True)
        t = self._fit_interval(trace)
        self.interval_ = t
        lost = 1 - _bits(trace).astype(np.int64)
        hm = _fit_hmm(trace, 2, 100, self.random_state)
        states = hm.predict(lost.reshape(-1, 1))
        bad = int(np.argmax(hm.emissionprob_[:, 1]))
        in_b = states == bad
        out: dict[str, float] = {}
        for name, mask in (("a", ~in_b), ("b", in_b)):
            n = int(mask.sum())
            # Segments of this main state.
            edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
            n_seg = int((edges == 1).sum())
            out[f"mean_{name}"] = (n / n_seg if n_seg else len(trace)) * t
            # Loss bursts starting inside this state.
            starts = np.flatnonzero(np.diff(np.concatenate([[0], lost])) == 1)
            n_burst = int(mask[starts].sum()) if starts.size else 0
            n_lost = int(lost[mask].sum())
            out[f"cycle_{name}"] = (n / n_burst if n_burst else max(n, 1)) * t
            # In packet mode a packet occupies [nT, (n+1)T), so an ON period of length x
            # loses about x/T + 1 packets: an ON share of (lost − bursts)/n reproduces
            # the packet loss rate (the same shift as the ON/OFF fit).
            out[f"drop_{name}"] = min(max((n_lost - n_burst) / n, 0.0), 1.0) if n else 0.0
        self.mean_a_, self.mean_b_ = float(out["mean_a"]), float(out["mean_b"])
        self.drop_a_, self.drop_b_ = float(out["drop_a"]), float(out["drop_b"])
        self.cycle_a_, self.cycle_b_ = float(out["cycle_a"]), float(out["cycle_b"])
        return self

    def to_core(self) -> _core.LossModel:
        if hasattr(self, "mean_a_"):
            p = (self.mean_a_, self.mean_b_, self.drop_a_, self.drop_b_, self.cycle_a_, self.cycle_b_)
        elif self.mean_a is None or self.mean_b is None:
            raise NotFittedError("VDDPModel has no mean_a/mean_b: give them or call fit")
        else:
            p = (self.mean_a, self.mean_b, self.drop_a, self.drop_b, self.cycle_a, self.cycle_b)
        return _core.LossModel.vddp(*p, self._interval())


# --------------------------------------------------------------------------- replay
class ReplayModel(LossModelBase):
    """Trace replay (Barsocchi et al.'s Ttem when time-indexed). ``end``: what follows the end of
    the trace — ``"wrap"``, ``"deliver"``, ``"drop"`` or ``"hold"`` (last entry forever).
    ``slot`` (seconds) makes it time-indexed; ``fit`` stores the trace and takes its interval."""

    kind = "replay"
    _fitted_names = ("bits_", "length_", "slot_")

    def __init__(self, end: str = "wrap", slot: float | None = None) -> None:
        if end not in ("wrap", "deliver", "drop", "hold"):
            raise _core.ParameterError(f"invalid parameter end = {end!r}: expected wrap, deliver, drop or hold")
        self.end = end
        self.slot = _pos("slot", slot)

    def fit(self, trace: Trace) -> ReplayModel:
        _check_trace(trace)
        self.bits_ = trace.bits
        self.length_ = len(trace)
        self.slot_ = self.slot or trace.interval
        return self

    def fitted_params(self) -> dict[str, Any]:
        d = super().fitted_params()
        if "bits_" in d:
            d["bits_"] = base64.b64encode(np.asarray(d["bits_"].words(), dtype="<u8").tobytes()).decode()
        return d

    def _decode_fitted(self, name: str, value: Any) -> Any:
        if name == "bits_":
            words = np.frombuffer(base64.b64decode(value), dtype="<u8").astype(np.uint64)
            return words  # resolved with length_ in to_core
        return value

    def _bits(self) -> _core.BitTrace:
        b = getattr(self, "bits_", None)
        if b is None:
            raise NotFittedError("ReplayModel has no trace: call fit")
        if isinstance(b, np.ndarray):
            b = _core.BitTrace.from_words(b, int(self.length_))
            self.bits_ = b
        return b

    def sample_interval(self) -> float | None:
        return getattr(self, "slot_", None)

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.replay(self._bits(), self.end, getattr(self, "slot_", self.slot))


# --------------------------------------------------------------------------- HMM
def _fit_hmm(trace: Trace, k: int, n_iter: int, random_state: int) -> Any:
    """hmmlearn CategoricalHMM with k states fitted by Baum-Welch to the loss sequence
    (1 = lost). Two starts, the best log-likelihood wins: an informed one (loss
    probabilities spread over (0, 1), sticky states; for k = 2 the bistable chain of the
    trace's transition counts, Srinivasan et al. §5.2) and hmmlearn's random one. EM from a
    symmetric start alone often stalls in a near-Bernoulli optimum on bursty traces."""
    from hmmlearn.hmm import CategoricalHMM

    lost = (1 - _bits(trace).astype(np.int64)).reshape(-1, 1)
    loss = np.linspace(0.02, 0.98, k)
    if k == 2:
        st = trace.stats(warn=False)
        b = min(max(st.b if st.b is not None else 0.1, 1e-3), 1 - 1e-3)
        g = min(max(st.g if st.g is not None else 0.5, 1e-3), 1 - 1e-3)
        trans = np.array([[1 - b, b], [g, 1 - g]])
    else:
        trans = np.full((k, k), 0.1 / (k - 1))
        np.fill_diagonal(trans, 0.9)
    best, best_ll = None, -math.inf
    for informed in (True, False):
        m = CategoricalHMM(
            n_components=k,
            n_features=2,
            n_iter=n_iter,
            tol=1e-2,
            random_state=random_state,
            implementation="scaling",
            init_params="" if informed else "ste",
        )
        if informed:
            m.startprob_ = np.full(k, 1.0 / k)
            m.transmat_ = trans
            m.emissionprob_ = np.column_stack([1 - loss, loss])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(lost)
            ll = m.score(lost)
        if ll > best_ll:
            best, best_ll = m, ll
    return best


class HMMModel(LossModelBase):
    """k-state hidden Markov model with a loss probability per state, fitted by Baum-Welch
    (hmmlearn's CategoricalHMM). ``n_states="bic"`` tries k = 1..``max_states`` and keeps the
    smallest BIC = −2·logL + p·ln N with p = k(k−1) + (k−1) + k free parameters. Sampling and
    simulation use the Rust Markov-modulated sampler (``loss/hmm.rs``)."""

    kind = "hmm"
    _fitted_names = ("n_states_", "transmat_", "startprob_", "loss_", "bic_", "interval_")

    def __init__(self, n_states: int | str = "bic", max_states: int = 4, n_iter: int = 100, random_state: int = 0) -> None:
        if not (n_states == "bic" or (isinstance(n_states, int) and n_states >= 1)):
            raise _core.ParameterError(f"invalid parameter n_states = {n_states!r}: expected 'bic' or a positive int")
        if not (isinstance(max_states, int) and max_states >= 1):
            raise _core.ParameterError(f"invalid parameter max_states = {max_states!r}: expected a positive int")
        self.n_states = n_states
        self.max_states = max_states
        self.n_iter = int(n_iter)
        self.random_state = int(random_state)

    def fit(self, trace: Trace) -> HMMModel:
        _check_trace(trace)
        n = len(trace)
        ks = range(1, self.max_states + 1) if self.n_states == "bic" else [int(self.n_states)]
        lost = (1 - _bits(trace).astype(np.int64))
        bics: dict[str, float] = {}
        best: tuple[float, Any] | None = None
        for k in ks:
            if k == 1:
                p = float(lost.mean())
                with np.errstate(divide="ignore", invalid="ignore"):
                    ll = float(np.nansum([lost.sum() * np.log(p) if p > 0 else 0.0, (n - lost.sum()) * np.log1p(-p) if p < 1 else 0.0]))
                params = ([[1.0]], [1.0], [p])
            else:
                m = _fit_hmm(trace, k, self.n_iter, self.random_state)
                ll = float(m.score(lost.reshape(-1, 1)))
                params = (m.transmat_.tolist(), m.startprob_.tolist(), m.emissionprob_[:, 1].tolist())
            nparam = k * (k - 1) + (k - 1) + k
            bic = -2 * ll + nparam * math.log(n)
            bics[str(k)] = bic
            if best is None or bic < best[0]:
                best = (bic, (k, params))
        assert best is not None
        k, (tm, sp, ls) = best[1]
        # Renormalise rows (hmmlearn's are float-exact to ~1e-12; Rust checks 1e-6).
        tm = np.asarray(tm, dtype=float)
        tm = tm / tm.sum(axis=1, keepdims=True)
        sp = np.asarray(sp, dtype=float)
        sp = sp / sp.sum()
        order = np.argsort(ls)  # states by increasing loss, for readable output
        self.n_states_ = k
        self.transmat_ = tm[np.ix_(order, order)].tolist()
        self.startprob_ = sp[order].tolist()
        self.loss_ = np.asarray(ls, dtype=float)[order].clip(0, 1).tolist()
        self.bic_ = bics
        self.interval_ = _trace_interval(trace)
        return self

    def to_core(self) -> _core.LossModel:
        if not hasattr(self, "transmat_"):
            raise NotFittedError("HMMModel is not fitted: call fit")
        return _core.LossModel.hmm(self.transmat_, self.startprob_, self.loss_)

    def score(self, trace: Trace) -> float:
        if not hasattr(self, "transmat_"):
            raise NotFittedError("HMMModel is not fitted: call fit")
        lost = 1 - _bits(trace).astype(np.int64)
        return _categorical_score(self.transmat_, self.startprob_, self.loss_, lost)


# --------------------------------------------------------------------------- run length
def _fit_runs(x: npt.NDArray[np.int64], tail: str, tail_quantile: float, min_tail: int) -> dict[str, Any]:
    """Empirical run-length law, spliced at the threshold u to a discrete Pareto tail
    P(L ≥ l | L ≥ u) = (u/l)^α fitted by exact maximum likelihood (scipy)."""
    from scipy.optimize import minimize_scalar

    x = np.asarray(x, dtype=np.int64)
    u = int(np.quantile(x, tail_quantile)) if x.size else 1
    u = max(u, 2)
    tail_x = x[x >= u]
    use_tail = tail == "pareto" or (tail == "auto" and tail_x.size >= min_tail)
    if not use_tail or tail_x.size == 0 or tail_x.size == x.size:
        v, c = np.unique(x, return_counts=True)
        return {"kind": "empirical", "values": v.astype(float).tolist(), "weights": c.astype(float).tolist()}
    body = x[x < u]
    v, c = np.unique(body, return_counts=True)
    lt = tail_x.astype(float)

    def nll(a: float) -> float:
        pm = (u / lt) ** a - (u / (lt + 1)) ** a
        return -float(np.log(np.maximum(pm, 1e-300)).sum())

    res = minimize_scalar(nll, bounds=(0.05, 20.0), method="bounded")
    return {
        "kind": "empirical",
        "values": v.astype(float).tolist(),
        "weights": c.astype(float).tolist(),
        "tail_prob": tail_x.size / x.size,
        "tail_scale": float(u),
        "tail_shape": float(res.x),
    }


def _run_logpmf(law: dict[str, Any], x: npt.NDArray[np.int64]) -> float:
    values = np.asarray(law["values"], dtype=float)
    w = np.asarray(law["weights"], dtype=float)
    w = w / w.sum()
    tp = float(law.get("tail_prob") or 0.0)
    pm = np.zeros(x.size)
    idx = np.searchsorted(values, x)
    ok = (idx < values.size) & (values[np.minimum(idx, values.size - 1)] == x)
    pm[ok] = (1 - tp) * w[idx[ok]]
    if tp > 0:
        u, a = float(law["tail_scale"]), float(law["tail_shape"])
        t = x >= u
        pm[t] += tp * ((u / x[t]) ** a - (u / (x[t] + 1.0)) ** a)
    with np.errstate(divide="ignore"):
        return float(np.log(pm).sum())


class RunLengthModel(LossModelBase):
    """Alternating run-length model: success runs and loss bursts drawn independently
    from distributions fitted to the trace's — an empirical body spliced, above the
    ``tail_quantile`` of the runs, to a discrete Pareto tail fitted by maximum likelihood
    (``tail="auto"``: when at least ``min_tail`` runs lie above it; ``"none"``: purely
    empirical; ``"pareto"``: always). It targets the long runs Srinivasan et al. §9 and Barsocchi et al.
    Fig. 2 show Gilbert-Elliott cannot produce."""

    kind = "runlength"
    _fitted_names = ("success_", "burst_", "interval_")

    def __init__(
        self,
        success: dict[str, Any] | None = None,
        burst: dict[str, Any] | None = None,
        tail: str = "auto",
        tail_quantile: float = 0.9,
        min_tail: int = 20,
    ) -> None:
        if tail not in ("auto", "none", "pareto"):
            raise _core.ParameterError(f"invalid parameter tail = {tail!r}: expected 'auto', 'none' or 'pareto'")
        if not (0 < tail_quantile < 1):
            raise _core.ParameterError(f"invalid parameter tail_quantile = {tail_quantile}: expected a value in (0, 1)")
        self.success = success
        self.burst = burst
        self.tail = tail
        self.tail_quantile = float(tail_quantile)
        self.min_tail = int(min_tail)

    def fit(self, trace: Trace) -> RunLengthModel:
        _check_trace(trace, need_loss=True, need_success=True)
        self.success_ = _fit_runs(_run_lengths(trace, True), self.tail, self.tail_quantile, self.min_tail)
        self.burst_ = _fit_runs(_run_lengths(trace, False), self.tail, self.tail_quantile, self.min_tail)
        self.interval_ = _trace_interval(trace)
        return self

    def _laws(self) -> tuple[dict[str, Any], dict[str, Any]]:
        s = getattr(self, "success_", self.success)
        b = getattr(self, "burst_", self.burst)
        if s is None or b is None:
            raise NotFittedError("RunLengthModel has no run laws: give success=/burst= or call fit")
        return s, b

    def to_core(self) -> _core.LossModel:
        return _core.LossModel.run_length(*self._laws())

    def score(self, trace: Trace) -> float:
        """Σ log P(run) over the trace's runs (empirical laws only; the first run is
        scored as a full run)."""
        s, b = self._laws()
        if s.get("kind") != "empirical" or b.get("kind") != "empirical":
            raise NotImplementedError("score is defined for fitted (empirical) run laws only")
        return _run_logpmf(s, _run_lengths(trace, True)) + _run_logpmf(b, _run_lengths(trace, False))


# --------------------------------------------------------------------------- registry
#: What ``burstlab fit --models all`` fits (name → factory of an unfitted model).
ALL_MODELS: dict[str, Any] = {
    "bernoulli-fer": lambda: BernoulliModel(target="fer"),
    "bernoulli-burst": lambda: BernoulliModel(target="burst"),
    "bernoulli-gap": lambda: BernoulliModel(target="gap"),
    "bistable": lambda: GilbertElliottModel(method="bistable"),
    "gilbert-elliott": lambda: GilbertElliottModel(method="em"),
    "markov-ct": lambda: MarkovCTModel(),
    "on-off": lambda: MarkovCTModel(temporal=True),
    "semi-markov": lambda: SemiMarkovModel(family="lognormal"),
    "vddp": lambda: VDDPModel(),
    "hmm": lambda: HMMModel(),
    "runlength": lambda: RunLengthModel(),
}

_EXTRA_MODELS: dict[str, Any] = {
    "ge-counts": lambda: GilbertElliottModel(method="counts"),
    "semi-markov-pareto": lambda: SemiMarkovModel(family="pareto"),
    "semi-markov-empirical": lambda: SemiMarkovModel(family="empirical"),
    "list": lambda: DeterministicListModel(),
    "replay": lambda: ReplayModel(),
}


def make_model(name: str) -> LossModelBase:
    """An unfitted model by its ``fit --models`` name."""
    f = ALL_MODELS.get(name) or _EXTRA_MODELS.get(name)
    if f is None:
        raise _core.ParameterError(f"invalid parameter models = {name!r}: expected 'all' or names from {sorted(ALL_MODELS) + sorted(_EXTRA_MODELS)}")
    m: LossModelBase = f()
    return m
