"""What every loss model shares: the scikit-learn surface (:class:`LossModelBase`), JSON
(``to_dict``/``from_dict``/``save``/:func:`load_model`), sampling through Rust, parameter
checks and the trace helpers the fits use. One module per model family beside this one,
mirroring ``crates/burstlab-core/src/loss/``."""

from __future__ import annotations

import base64
import inspect
import json
import math
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from burstlab import _core
from burstlab.io import atomic_write_text
from burstlab.traces import Trace


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


def _segments(x: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Maximal runs of equal values in ``x``: (value of each run, its length), in order."""
    a = np.asarray(x)
    if a.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    edges = np.flatnonzero(a[1:] != a[:-1]) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [a.size]])
    return a[starts].astype(np.int64), (ends - starts).astype(np.int64)


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

    def _repr_html_(self) -> str:
        """Its settings and fitted parameters, in a notebook (burstlab.notebook)."""
        from burstlab.notebook import model_html

        return model_html(self)

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


# --------------------------------------------------------------------------- models that keep the trace
class _StoredTraceModel(LossModelBase):
    """A model that keeps the fitted trace itself (``bits_`` with ``length_``: replay,
    block bootstrap). In JSON the bits are base64 of the packed little-endian words."""

    length_: int

    def fitted_params(self) -> dict[str, Any]:
        d = super().fitted_params()
        if "bits_" in d:
            d["bits_"] = base64.b64encode(np.asarray(self._bits().words(), dtype="<u8").tobytes()).decode()
        return d

    def _decode_fitted(self, name: str, value: Any) -> Any:
        if name == "bits_":
            return np.frombuffer(base64.b64decode(value), dtype="<u8").astype(np.uint64)  # resolved with length_ in _bits
        return value

    def _bits(self) -> _core.BitTrace:
        b = getattr(self, "bits_", None)
        if b is None:
            raise NotFittedError(f"{type(self).__name__} has no trace: call fit")
        if isinstance(b, np.ndarray):
            b = _core.BitTrace.from_words(b, int(self.length_))
            self.bits_ = b
        return b
