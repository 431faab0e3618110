"""Loss-model specifications as short strings, as the CLI takes them.

=====================================================  =========================================
``none``                                               lossless path (None)
``bernoulli:p=0.05``                                   independent losses
``ge:prr=0.9,mu=0.6`` / ``ge:b=0.01,g=0.3[,h=1,k=0]``  Gilbert-Elliott (Srinivasan et al. §6.2 / netem)
``list:drops=4/13/17[,period=20]``                     deterministic drops, 1-based (Pentikousis & Badr §2)
``ctmc:good=8,bad=4[,pg=0.01,pb=0.3,interval=0.001]``  continuous-time Markov, rate-based
``onoff:good=1.8,bad=0.2[,interval=0.001]``            temporal ON/OFF, exponential periods
``semi:good=pareto/0.1/1.5,bad=exp/0.05[,pg=0,pb=1,temporal=0,interval=0.001]``
                                                       semi-Markov; laws ``exp/MEAN``,
                                                       ``det/VALUE``, ``pareto/SCALE/SHAPE``,
                                                       ``lognormal/MU/SIGMA``, ``geom/MEAN``
``vddp:a=10,b=10,da=0,db=0.1,ca=1,cb=1[,interval=]``   VDDP (Pentikousis & Badr §2), seconds
``runlength:success=pareto/1/1.5,burst=geom/2``        run-length model (packets)
``replay:file=PATH[,end=wrap,slot=0.005]``             trace replay (packet or time-indexed)
``bootstrap:file=PATH[,block=2000]``                   stationary block bootstrap of a trace,
                                                       mean block ``block`` packets (default:
                                                       5 % of the trace, at least 200)
``phy:mode=cck11,snr=8[,bytes=1028,fading=rayleigh,...]``  frames of one PHY mode and length over an
                                                       SNR: constant, fading/shadowing, two
                                                       states (``good=,bad=,mgood=,mbad=``) or
                                                       a trace (``trace=FILE``); docs/phy.md
``ber:ber=1e-5[,bytes=1028,overhead=0]``               independent bit errors: a unit of b bits
                                                       is lost with 1 − (1 − BER)^b; on an ARQ
                                                       or HARQ hop each attempt or fragment
                                                       with its own size, else ``bytes``;
                                                       docs/phy.md
``@model.json``                                        a saved (fitted) model, e.g. an HMM,
                                                       an HSMM or a run chain
=====================================================  =========================================

Times are seconds; ``interval`` is the packet interval used in packet mode by time models.
"""

from __future__ import annotations

from typing import Any

from burstlab import _core

_KNOWN = "none, bernoulli, ge, list, ctmc, onoff, semi, vddp, runlength, replay, bootstrap, phy, ber, @file.json"


def _params(kind: str, body: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in filter(None, body.split(",")):
        if "=" not in part:
            raise _core.ParameterError(f"invalid loss spec {kind}:{body}: expected name=value, got {part!r}")
        k, v = part.split("=", 1)
        if k.strip() in out:
            raise _core.ParameterError(f"invalid loss spec {kind}:{body}: parameter {k.strip()!r} given twice")
        out[k.strip()] = v.strip()
    return out


def _num(spec: str, k: str, v: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise _core.ParameterError(f"invalid parameter {k} = {v!r} in loss spec {spec}: expected a number") from None


_LAW_ARGS = {
    "exp": ("exponential", ("mean",)),
    "exponential": ("exponential", ("mean",)),
    "det": ("deterministic", ("value",)),
    "deterministic": ("deterministic", ("value",)),
    "pareto": ("pareto", ("scale", "shape")),
    "lognormal": ("lognormal", ("mu", "sigma")),
    "geom": ("geometric", ("mean",)),
    "geometric": ("geometric", ("mean",)),
}


def _law(spec: str, k: str, v: str) -> dict[str, Any]:
    """``pareto/0.1/1.5`` → {"kind": "pareto", "scale": 0.1, "shape": 1.5}."""
    kind, *args = v.split("/")
    if kind not in _LAW_ARGS:
        raise _core.ParameterError(f"invalid parameter {k} = {v!r} in loss spec {spec}: expected one of {sorted(_LAW_ARGS)} with /-separated parameters")
    full, names = _LAW_ARGS[kind]
    if len(args) != len(names):
        raise _core.ParameterError(f"invalid parameter {k} = {v!r} in loss spec {spec}: {kind} takes {'/'.join(names)}")
    return {"kind": full, **{n: _num(spec, f"{k}.{n}", a) for n, a in zip(names, args)}}


def parse_loss_spec(spec: str) -> _core.LossModel | None:
    """Parse a loss spec; ``none`` (or an empty string) means a lossless path (None)."""
    s = spec.strip()
    if s.lower() in ("", "none"):
        return None
    if s.startswith("@"):
        from burstlab.models import load_model

        return load_model(s[1:]).to_core()
    kind, _, body = s.partition(":")
    kind = kind.lower()
    p = _params(kind, body)

    def check(required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
        unknown = set(p) - set(required) - set(optional)
        if unknown:
            raise _core.ParameterError(f"invalid loss spec {spec!r}: unknown parameter(s) {sorted(unknown)} for {kind}")
        missing = [n for n in required if n not in p]
        if missing:
            raise _core.ParameterError(f"invalid loss spec {spec!r}: missing parameter(s) {missing} for {kind}")

    def take(*names: str, **defaults: float) -> list[float]:
        check(names, tuple(defaults))
        return [_num(spec, n, p[n]) for n in names] + [_num(spec, k, p[k]) if k in p else v for k, v in defaults.items()]

    if kind in ("bernoulli", "bern", "iid"):
        (pl,) = take("p")
        return _core.LossModel.bernoulli(pl)
    if kind in ("ge", "gilbert-elliott", "gilbert_elliott"):
        if "prr" in p or "mu" in p:
            prr, mu = take("prr", "mu")
            return _core.LossModel.gilbert_elliott_prr_mu(prr, mu)
        b, g, h, k = take("b", "g", h=1.0, k=0.0)
        return _core.LossModel.gilbert_elliott(b, g, h, k)
    if kind in ("list", "det", "deterministic"):
        check(("drops",), ("period",))
        drops = []
        for d in filter(None, p["drops"].split("/")):
            if not (d.isascii() and d.isdigit()) or int(d) >= 2**64:
                raise _core.ParameterError(
                    f"invalid parameter drops = {p['drops']!r} in loss spec {spec}: expected /-separated packet numbers below 2^64"
                )
            drops.append(int(d))
        period = p.get("period")
        if period is not None and (not (period.isascii() and period.isdigit()) or int(period) >= 2**64):
            raise _core.ParameterError(f"invalid parameter period = {period!r} in loss spec {spec}: expected a whole number of packets below 2^64")
        return _core.LossModel.deterministic(drops, None if period is None else int(period))
    if kind in ("ctmc", "markov-ct", "markov_ct"):
        good, bad, pg, pb, iv = take("good", "bad", pg=0.0, pb=1.0, interval=0.001)
        return _core.LossModel.markov_ct(good, bad, pg, pb, iv)
    if kind in ("onoff", "on-off", "on_off"):
        good, bad, iv = take("good", "bad", interval=0.001)
        return _core.LossModel.on_off(good, bad, iv)
    if kind in ("semi", "semi-markov", "semi_markov"):
        check(("good", "bad"), ("pg", "pb", "temporal", "interval"))
        g_law, b_law = _law(spec, "good", p["good"]), _law(spec, "bad", p["bad"])
        pg = _num(spec, "pg", p.get("pg", "0"))
        pb = _num(spec, "pb", p.get("pb", "1"))
        temporal = _num(spec, "temporal", p.get("temporal", "0")) != 0
        iv = _num(spec, "interval", p.get("interval", "0.001"))
        return _core.LossModel.semi_markov(g_law, b_law, pg, pb, temporal, iv)
    if kind == "vddp":
        a, b, da, db, ca, cb, iv = take("a", "b", "da", "db", "ca", "cb", interval=0.001)
        return _core.LossModel.vddp(a, b, da, db, ca, cb, iv)
    if kind in ("runlength", "run-length", "runs"):
        check(("success", "burst"))
        return _core.LossModel.run_length(_law(spec, "success", p["success"]), _law(spec, "burst", p["burst"]))
    if kind == "replay":
        check(("file",), ("end", "slot"))
        from burstlab.io import read_trace

        tr = read_trace(p["file"])
        slot = _num(spec, "slot", p["slot"]) if "slot" in p else None
        return _core.LossModel.replay(tr.bits, p.get("end", "wrap"), slot)
    if kind == "bootstrap":
        check(("file",), ("block",))
        from burstlab.io import read_trace
        from burstlab.models import BlockBootstrapModel

        block = _num(spec, "block", p["block"]) if "block" in p else "auto"
        return BlockBootstrapModel(mean_block=block).fit(read_trace(p["file"])).to_core()
    if kind == "ber":
        ber, nbytes, overhead = take("ber", bytes=1028.0, overhead=0.0)
        for name, v in (("bytes", nbytes), ("overhead", overhead)):
            if not (v.is_integer() and 0 <= v < 2**32):
                raise _core.ParameterError(f"invalid parameter {name} = {p[name]!r} in loss spec {spec}: expected a whole number of bytes")
        return _core.LossModel.bit_errors(ber, int(nbytes), int(overhead))
    if kind == "phy":
        # deferred like the readers above: burstlab.phy imports numpy
        from burstlab import phy

        return phy.from_spec(spec, p)
    raise _core.ParameterError(f"invalid loss spec {spec!r}: unknown model {kind!r} (known: {_KNOWN})")
