"""Loss-model specifications as short strings, as the CLI takes them:
``bernoulli:p=0.05``, ``ge:prr=0.9,mu=0.6``, ``ge:b=0.01,g=0.3[,h=1,k=0]``, ``none``.
"""

from __future__ import annotations

from burstlab import _core


def _params(kind: str, body: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in filter(None, body.split(",")):
        if "=" not in part:
            raise _core.ParameterError(f"invalid loss spec {kind}:{body}: expected name=value, got {part!r}")
        k, v = part.split("=", 1)
        try:
            out[k.strip()] = float(v)
        except ValueError:
            raise _core.ParameterError(f"invalid parameter {k.strip()} = {v!r} in loss spec {kind}:{body}: expected a number") from None
    return out


def parse_loss_spec(spec: str) -> _core.LossModel | None:
    """Parse a loss spec; ``none`` (or an empty string) means a lossless path (None)."""
    s = spec.strip()
    if s.lower() in ("", "none"):
        return None
    kind, _, body = s.partition(":")
    kind = kind.lower()
    p = _params(kind, body)

    def take(*names: str, **defaults: float) -> list[float]:
        unknown = set(p) - set(names) - set(defaults)
        if unknown:
            raise _core.ParameterError(f"invalid loss spec {spec!r}: unknown parameter(s) {sorted(unknown)} for {kind}")
        missing = [n for n in names if n not in p]
        if missing:
            raise _core.ParameterError(f"invalid loss spec {spec!r}: missing parameter(s) {missing} for {kind}")
        return [p[n] for n in names] + [p.get(k, v) for k, v in defaults.items()]

    if kind in ("bernoulli", "bern", "iid"):
        (pl,) = take("p")
        return _core.LossModel.bernoulli(pl)
    if kind in ("ge", "gilbert-elliott", "gilbert_elliott"):
        if "prr" in p or "mu" in p:
            prr, mu = take("prr", "mu")
            return _core.LossModel.gilbert_elliott_prr_mu(prr, mu)
        b, g, h, k = take("b", "g", h=1.0, k=0.0)
        return _core.LossModel.gilbert_elliott(b, g, h, k)
    raise _core.ParameterError(f"invalid loss spec {spec!r}: unknown model {kind!r} (known: none, bernoulli, ge)")
