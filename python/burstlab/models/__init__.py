"""Loss models, scikit-learn style: settings in ``__init__``, fitted parameters end in
``_``, ``fit(trace)`` returns self, ``sample(n, random_state)`` returns a
:class:`~burstlab.traces.Trace`, ``score(trace)`` is a log-likelihood where one is
defined, and ``to_dict``/``from_dict`` make a fitted model a JSON file the CLI passes around.

Sampling and every per-packet / in-time decision run in Rust: ``to_core()`` returns the
:class:`burstlab._core.LossModel` the simulator takes. Fitting is here (numpy, scipy,
hmmlearn). See ``docs/loss-models.md`` for every model, its parameters and the seeds.

A model constructed with explicit parameters is usable without ``fit``; ``fit`` sets the
``_`` attributes, which then take precedence.

One module per model family, mirroring ``crates/burstlab-core/src/loss/``: ``_base``
(the common surface), ``bernoulli``, ``deterministic_list`` (``list.rs``),
``gilbert_elliott``, ``markov_ct``, ``semi_markov`` with ``sojourn`` (the laws),
``vddp``, ``replay``, ``hmm``, ``runlength``; ``hsmm`` and ``run_chain`` (both
``hsmm.rs``), ``bootstrap``.
"""

from __future__ import annotations

from typing import Any

from burstlab import _core
from burstlab.models._base import DEFAULT_INTERVAL, LossModelBase, NotFittedError, load_model
from burstlab.models.bernoulli import BernoulliModel
from burstlab.models.bootstrap import BlockBootstrapModel
from burstlab.models.deterministic_list import DeterministicListModel
from burstlab.models.gilbert_elliott import GilbertElliottModel
from burstlab.models.hmm import HMMModel
from burstlab.models.hsmm import HSMMModel
from burstlab.models.markov_ct import MarkovCTModel
from burstlab.models.replay import ReplayModel
from burstlab.models.run_chain import RunChainModel
from burstlab.models.runlength import RunLengthModel
from burstlab.models.semi_markov import SemiMarkovModel
from burstlab.models.vddp import VDDPModel

__all__ = [
    "ALL_MODELS",
    "DEFAULT_INTERVAL",
    "BernoulliModel",
    "BlockBootstrapModel",
    "DeterministicListModel",
    "GilbertElliottModel",
    "HMMModel",
    "HSMMModel",
    "LossModelBase",
    "MarkovCTModel",
    "NotFittedError",
    "ReplayModel",
    "RunChainModel",
    "RunLengthModel",
    "SemiMarkovModel",
    "VDDPModel",
    "load_model",
    "make_model",
    "select",
]


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
    "hsmm": lambda: HSMMModel(),
    "run-chain": lambda: RunChainModel(order=1),
    "run-chain-vo": lambda: RunChainModel(order=3),
    "bootstrap": lambda: BlockBootstrapModel(),
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

