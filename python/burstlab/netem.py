"""A loss model as Linux netem's loss options (``burstlab netem MODEL``).

netem (``tc qdisc ... netem``, ``sch_netem.c``) draws packet losses on an interface's egress
from one of three processes: independent losses (``loss random P``), the Gilbert-Elliott chain
(``loss gemodel p r 1-h 1-k``) and a four-state Markov chain (``loss state p13 p31 p32 p23
p14``, Salsano et al.'s GI model). :func:`to_netem` gives, for a burstlab model, the netem
options that express it and says exactly what they cannot express:

- **exact**: Bernoulli → ``loss random``; Gilbert-Elliott (any ``h_loss``, ``k_loss``) and a
  two-state HMM → ``loss gemodel`` with p = b, r = g, 1-h = h_loss, 1-k = k_loss
  (docs/loss-models.md "Gilbert-Elliott and netem"; netem draws with the state before the move,
  burstlab after it: the same process shifted by one packet).
- **approximate**: every other model (run-length, semi-Markov, HMMs with more states, HSMM,
  run chains, VDDP and the other time models, trace replay and bootstrap, deterministic lists).
  A long sample of the model is summarised by the two-state chain with the same transition
  counts (Srinivasan et al., *PRR Is Not Enough*, §5.2: g = |01|/(|01|+|00|),
  b = |10|/(|10|+|11|)), which keeps the loss rate, μ, the mean loss burst and the mean gap;
  the burst and gap lengths become geometric, and :class:`NetemLoss` reports how far their
  tails then are from the model's (99th percentiles and maxima of both).

What netem never has, whatever the model: time mode (netem decides per packet, so a channel
described in seconds is fixed to one packet rate), a trace's own sequence, and a link layer
(ARQ retries and their latency): those are named in :attr:`NetemLoss.lost`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from burstlab import _core
from burstlab.lossspec import _params, parse_loss_spec
from burstlab.models import BernoulliModel, GilbertElliottModel, HMMModel, load_model
from burstlab.models._base import LossModelBase
from burstlab.traces import Trace

#: Fewer loss bursts than this in the sample make the fitted chain's means uncertain by more
#: than about 7 % (one over the square root of the count): a warning asks for more samples.
MIN_BURSTS = 200

#: Packets sampled from a model that netem cannot express exactly (enough for a 99th
#: percentile of run lengths of a bursty model to settle to a few per cent).
DEFAULT_SAMPLES = 1_000_000

_TIME_KINDS = {"markov-ct", "vddp", "semi-markov", "ctmc", "onoff", "on-off", "on_off", "semi", "markov_ct", "semi_markov"}
_NEVER = (
    "a link layer (802.11 ARQ retries, their latency and residual loss): netem drops or delivers, it never retries",
    "loss on the reverse path: netem acts on one interface's egress; put a second qdisc on the peer's interface (or an ifb) for ACKs",
)


def _pct(p: float) -> str:
    """A probability as netem's percentage (netem scales the percentage to a 32-bit integer,
    so 7 significant digits are as fine as it can hold)."""
    return f"{100.0 * p:.7g}%"


@dataclass(frozen=True)
class RunTail:
    """One run-length distribution (loss bursts or gaps between losses), model against netem."""

    what: str
    model_mean: float
    model_p99: float
    model_max: int
    netem_p99: float

    def sentence(self) -> str:
        """How the tails differ, stated from the numbers."""
        if self.model_p99 == self.netem_p99:
            return f"{self.what}: mean {self.model_mean:.3g} kept; 99th percentile {self.model_p99:g} packets in both"
        side = "longer" if self.model_p99 > self.netem_p99 else "shorter"
        return (
            f"{self.what}: mean {self.model_mean:.3g} kept; the model's 99th percentile is {self.model_p99:g} packets, "
            f"netem's geometric one {self.netem_p99:g} ({side} in the model; longest in the sample {self.model_max})"
        )


@dataclass(frozen=True)
class NetemLoss:
    """netem's loss options for a model (``args``), whether they reproduce the model's loss
    process exactly, and what they lose."""

    model: str
    args: tuple[str, ...]
    exact: bool
    kept: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    tails: tuple[RunTail, ...] = field(default=())
    samples: int | None = None

    def command(self, dev: str = "DEV") -> str:
        """The ``tc`` command that installs the loss process on ``dev``'s egress."""
        return " ".join(("tc", "qdisc", "add", "dev", dev, "root", "netem", *self.args))

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "netem": list(self.args),
            "exact": self.exact,
            "kept": list(self.kept),
            "lost": list(self.lost),
            "tails": [t.__dict__ for t in self.tails],
            "samples": self.samples,
        }


def _gemodel(b: float, g: float, h_loss: float, k_loss: float) -> tuple[str, ...]:
    return ("loss", "gemodel", _pct(b), _pct(g), _pct(h_loss), _pct(k_loss))


def _geometric_p99(mean: float) -> float:
    """99th percentile of a geometric run length on {1, 2, …} with this mean (netem's runs)."""
    if not math.isfinite(mean) or mean <= 1.0:
        return 1.0
    q = 1.0 - 1.0 / mean  # P(the run goes on)
    return float(math.ceil(math.log(0.01) / math.log(q)))


def _tail(what: str, lengths: np.ndarray, counts: np.ndarray) -> RunTail | None:
    n = int(counts.sum())
    if n == 0:
        return None
    mean = float((lengths * counts).sum() / n)
    cdf = np.cumsum(counts) / n
    p99 = float(lengths[int(np.searchsorted(cdf, 0.99))])
    return RunTail(what, mean, p99, int(lengths[-1]), _geometric_p99(mean))


def _exact(model: LossModelBase | None) -> tuple[str, tuple[str, ...]] | None:
    """netem options that are the model itself, if there are any."""
    if isinstance(model, BernoulliModel):
        p = model.p_ if hasattr(model, "p_") else model.p
        if p is not None:
            return "bernoulli", ("loss", "random", _pct(p))
    if isinstance(model, GilbertElliottModel):
        b, g = getattr(model, "b_", model.b), getattr(model, "g_", model.g)
        if b is not None and g is not None:
            h, k = getattr(model, "h_loss_", model.h_loss), getattr(model, "k_loss_", model.k_loss)
            return "gilbert-elliott", _gemodel(b, g, h, k)
    if isinstance(model, HMMModel) and getattr(model, "n_states_", None) in (1, 2):
        loss = [float(x) for x in model.loss_]
        if model.n_states_ == 1:
            return "hmm (1 state)", ("loss", "random", _pct(loss[0]))
        bad = int(np.argmax(loss))
        good = 1 - bad
        t = model.transmat_
        return "hmm (2 states)", _gemodel(float(t[good][bad]), float(t[bad][good]), loss[bad], loss[good])
    return None


def _from_spec(spec: str) -> tuple[str, LossModelBase | None, _core.LossModel | None, float | None]:
    """A spec as ``gen`` takes it: the Python model where netem may express it exactly,
    else the core model to sample, and the seconds per packet a time model is sampled at."""
    s = spec.strip()
    if s.startswith("@"):
        m = load_model(s[1:])
        return m.kind, m, None, m.sample_interval()
    kind, _, body = s.partition(":")
    kind = kind.lower()
    core = parse_loss_spec(s)  # validates the spec, naming what is wrong
    if core is None:
        raise _core.ParameterError(f"invalid loss spec {spec!r}: 'none' has no loss to express (netem without a loss option)")
    p = _params(kind, body)
    if kind in ("bernoulli", "bern", "iid"):
        return "bernoulli", BernoulliModel(p=float(p["p"])), core, None
    if kind in ("ge", "gilbert-elliott", "gilbert_elliott"):
        if "prr" in p:
            return "gilbert-elliott", GilbertElliottModel.from_prr_mu(float(p["prr"]), float(p["mu"])), core, None
        return "gilbert-elliott", GilbertElliottModel(b=float(p["b"]), g=float(p["g"]), h_loss=float(p.get("h", 1)), k_loss=float(p.get("k", 0))), core, None
    # lossspec's time models sample one packet per `interval` seconds (default 1 ms)
    return kind, None, core, float(p.get("interval", 0.001)) if kind in _TIME_KINDS else None


def to_netem(model: str | LossModelBase, *, samples: int = DEFAULT_SAMPLES, seed: int = 1) -> NetemLoss:
    """netem's loss options for ``model`` (a loss spec as ``burstlab gen`` takes it, ``@model.json``,
    or a fitted model), exact where netem has the same process, else the two-state chain with
    the same transition counts over ``samples`` packets of the model, with what that loses."""
    if isinstance(model, str):
        kind, py, core, interval = _from_spec(model)
    else:
        kind, py, core, interval = model.kind, model, None, model.sample_interval()
    exact = _exact(py)
    if exact is not None:
        name, args = exact
        return NetemLoss(name, args, True, kept=("every statistic of the loss process (the same Markov chain)",), lost=_NEVER)
    if not (isinstance(samples, int) and samples >= 2):
        raise _core.ParameterError(f"invalid parameter samples = {samples!r}: expected an integer ≥ 2")
    if core is None:
        assert py is not None
        core = py.to_core()
    st = Trace(core.sample(samples, seed)).stats(warn=False)
    if st.b is None or st.g is None:
        # no loss, or no delivery, in the sample: independent losses at that rate say all of it
        frac = st.lost / st.length
        return NetemLoss(kind, ("loss", "random", _pct(frac)), False, kept=("the loss rate (no run structure in the sample)",),
                         lost=_NEVER, samples=samples)
    lost = list(_NEVER)
    if kind in _TIME_KINDS or (py is not None and py.kind in _TIME_KINDS):
        lost.insert(0, f"time mode: the model is described in seconds; netem decides per packet, so these figures hold only at one packet every {interval:g} s")
    if kind in ("replay", "bootstrap", "list", "det", "deterministic"):
        lost.insert(0, f"the {kind} model's own sequence of losses: netem draws them at random")
    tails = tuple(t for t in (_tail("loss bursts", st.loss_bursts.lengths, st.loss_bursts.counts),
                              _tail("gaps between losses", st.success_runs.lengths, st.success_runs.counts)) if t is not None)
    lost.insert(0, "the shape of the burst and gap length distributions (netem's are geometric)")
    n_bursts = st.loss_bursts.n_runs
    if n_bursts < MIN_BURSTS:
        warnings.warn(
            f"the sample of {samples} packets of the {kind} model holds only {n_bursts} loss bursts: the chain's means are uncertain "
            f"by about {100 / math.sqrt(max(n_bursts, 1)):.0f} %; ask for more with --samples (about {samples * MIN_BURSTS // max(n_bursts, 1)})",
            stacklevel=2,
        )
    kept = [f"the loss rate ({st.lost / st.length:.4g})"]
    if st.mu is not None:
        kept.append(f"μ ({st.mu:.4g})")
    kept += [f"the mean loss burst ({st.loss_bursts.mean:.4g} packets)", f"the mean gap ({st.success_runs.mean:.4g} packets)"]
    return NetemLoss(
        kind,
        _gemodel(st.b, st.g, 1.0, 0.0),
        False,
        kept=tuple(kept),
        lost=tuple(lost),
        tails=tails,
        samples=samples,
    )
