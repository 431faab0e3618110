"""Loss-model specifications as short strings, as the CLI and scenario files take them:
``MODEL:NAME=VALUE,...``, e.g. ``bernoulli:p=0.05``, ``ge:prr=0.9,mu=0.6``,
``semi:good=pareto/0.1/1.5,bad=exp/0.05``, ``replay:file=PATH,slot=0.005``.

Each model's parameters (name, type, unit, default, range, meaning, reference) are declared
once in the simulator's core, beside the model (``crates/burstlab-core/src/loss/*.rs``,
``SPEC``); the core reads a spec against them (unknown, missing or repeated parameters, a
value of the wrong type or outside its range: one error naming it) and this module builds the
model. ``docs/parameters.md`` ("Loss models") is the table, generated from the same
declaration (:data:`LOSS_SPECS`). Besides those models:

- ``none`` (or an empty string): a lossless path (None);
- ``phy:mode=cck11,snr=8[,...]``: frames of one PHY mode and length over an SNR
  (:func:`burstlab.phy.from_spec`, ``docs/phy.md``);
- ``@model.json``: a saved (fitted) model, e.g. an HMM, an HSMM or a run chain.

Times are seconds; ``interval`` is the packet interval used in packet mode by time models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from burstlab import _core

#: The loss models a spec names, as the core declares them: name, aliases, help, reference,
#: forms (the parameter sets it can be written with) and parameters (``kind``, ``unit``,
#: ``default`` as written in a spec, ``required``, ``min``/``max``/``range``, ``help``, ``reference``).
LOSS_SPECS: list[dict[str, Any]] = _core.loss_specs()

_KNOWN = ", ".join(["none", *(m["name"] for m in LOSS_SPECS), "phy", "@file.json"])


def _params(kind: str, body: str) -> dict[str, str]:
    """``name=value,...`` as strings (the ``phy:`` spec, which has its own parser)."""
    out: dict[str, str] = {}
    for part in filter(None, body.split(",")):
        if "=" not in part:
            raise _core.ParameterError(f"invalid loss spec {kind}:{body}: expected name=value, got {part!r}")
        k, v = part.split("=", 1)
        if k.strip() in out:
            raise _core.ParameterError(f"invalid loss spec {kind}:{body}: parameter {k.strip()!r} given twice")
        out[k.strip()] = v.strip()
    return out


def _ge(v: dict[str, Any]) -> _core.LossModel:
    if "prr" in v:  # the (prr, mu) form
        return _core.LossModel.gilbert_elliott_prr_mu(v["prr"], v["mu"])
    return _core.LossModel.gilbert_elliott(v["b"], v["g"], v["h"], v["k"])


def _replay(v: dict[str, Any]) -> _core.LossModel:
    from burstlab.io import read_trace  # numpy

    return _core.LossModel.replay(read_trace(v["file"]).bits, v["end"], v["slot"])


def _bootstrap(v: dict[str, Any]) -> _core.LossModel:
    from burstlab.io import read_trace  # numpy
    from burstlab.models import BlockBootstrapModel

    block = "auto" if v["block"] is None else v["block"]
    return BlockBootstrapModel(mean_block=block).fit(read_trace(v["file"])).to_core()


#: How each declared model is built from its checked values (the core's names).
_BUILD: dict[str, Callable[[dict[str, Any]], _core.LossModel]] = {
    "bernoulli": lambda v: _core.LossModel.bernoulli(v["p"]),
    "ge": _ge,
    "list": lambda v: _core.LossModel.deterministic(v["drops"], v["period"]),
    "ctmc": lambda v: _core.LossModel.markov_ct(v["good"], v["bad"], v["pg"], v["pb"], v["interval"]),
    "onoff": lambda v: _core.LossModel.on_off(v["good"], v["bad"], v["interval"]),
    "semi": lambda v: _core.LossModel.semi_markov(v["good"], v["bad"], v["pg"], v["pb"], v["temporal"], v["interval"]),
    "vddp": lambda v: _core.LossModel.vddp(v["a"], v["b"], v["da"], v["db"], v["ca"], v["cb"], v["interval"]),
    "runlength": lambda v: _core.LossModel.run_length(v["success"], v["burst"]),
    "replay": _replay,
    "bootstrap": _bootstrap,
    "ber": lambda v: _core.LossModel.bit_errors(v["ber"], v["bytes"], v["overhead"]),
}


def parse_loss_spec(spec: str) -> _core.LossModel | None:
    """Parse a loss spec; ``none`` (or an empty string) means a lossless path (None)."""
    s = spec.strip()
    if s.lower() in ("", "none"):
        return None
    if s.startswith("@"):
        from burstlab.models import load_model  # numpy

        return load_model(s[1:]).to_core()
    kind, _, body = s.partition(":")
    if kind.lower() == "phy":
        from burstlab import phy  # numpy

        return phy.from_spec(spec, _params("phy", body))
    name, values = _core.read_loss_spec(spec)
    return _BUILD[name](values)
