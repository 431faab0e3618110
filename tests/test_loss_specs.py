"""Loss specs on the core's declaration (issue 28): each loss model declares its parameters once
beside its algorithm (``crates/burstlab-core/src/loss/*.rs``, ``SPEC``); the spec parser, its
messages and the docs table come from it, and a spec builds exactly the model its constructor does."""

from __future__ import annotations

import pytest

from burstlab import _core
from burstlab.lossspec import _BUILD, LOSS_SPECS, parse_loss_spec

#: A valid value of each kind, to write every model's required parameters.
SAMPLE = {"float": "0.5", "law": "exp/0.05", "packets": "3/7", "int": "10"}


def test_every_declared_model_has_a_builder_and_a_documented_parameter_table() -> None:
    assert {m["name"] for m in LOSS_SPECS} == set(_BUILD)
    for m in LOSS_SPECS:
        assert m["help"] and m["reference"] and m["forms"]
        for p in m["params"]:
            assert p["help"], (m["name"], p["name"])
            assert not (p["required"] and p["default"] is not None), (m["name"], p["name"])
            assert any(p["name"] in f for f in m["forms"]), (m["name"], p["name"])


@pytest.mark.parametrize("model", [m for m in LOSS_SPECS if m["name"] not in ("replay", "bootstrap")], ids=lambda m: m["name"])
def test_a_spec_of_the_required_parameters_builds_the_model(model: dict) -> None:
    form = model["forms"][-1]
    req = [p for p in model["params"] if p["name"] in form and p["required"]]
    spec = model["name"] + ":" + ",".join(f"{p['name']}={SAMPLE[p['kind']]}" for p in req)
    m = parse_loss_spec(spec)
    assert m is not None
    bits = m.sample(2000, 3)
    assert len(bits) == 2000
    for alias in model["aliases"]:  # every alias names the same model, in any case
        again = parse_loss_spec(alias.upper() + spec[len(model["name"]) :])
        assert again is not None and again.name == m.name


@pytest.mark.parametrize(
    ("spec", "direct"),
    [
        ("bernoulli:p=0.05", lambda: _core.LossModel.bernoulli(0.05)),
        ("ge:b=0.01,g=0.3", lambda: _core.LossModel.gilbert_elliott(0.01, 0.3, 1.0, 0.0)),
        ("ge:prr=0.9,mu=0.6", lambda: _core.LossModel.gilbert_elliott_prr_mu(0.9, 0.6)),
        ("list:drops=4/13/17,period=20", lambda: _core.LossModel.deterministic([4, 13, 17], 20)),
        ("ctmc:good=0.8,bad=0.4,pg=0.01,pb=0.3", lambda: _core.LossModel.markov_ct(0.8, 0.4, 0.01, 0.3, 0.001)),
        ("onoff:good=1.8,bad=0.2,interval=0.002", lambda: _core.LossModel.on_off(1.8, 0.2, 0.002)),
        ("semi:good=pareto/0.1/1.5,bad=exp/0.05,temporal=1", lambda: _core.LossModel.semi_markov(
            {"kind": "pareto", "scale": 0.1, "shape": 1.5}, {"kind": "exponential", "mean": 0.05}, 0.0, 1.0, True, 0.001)),
        ("vddp:a=10,b=10,da=0,db=0.1,ca=1,cb=1", lambda: _core.LossModel.vddp(10, 10, 0, 0.1, 1, 1, 0.001)),
        ("runlength:success=pareto/1/1.5,burst=geom/2", lambda: _core.LossModel.run_length(
            {"kind": "pareto", "scale": 1.0, "shape": 1.5}, {"kind": "geometric", "mean": 2.0})),
    ],
)  # fmt: skip
def test_a_spec_is_exactly_its_constructor(spec: str, direct) -> None:
    a, b = parse_loss_spec(spec), direct()
    assert a is not None and a.name == b.name
    assert a.sample(20000, 7).words().tobytes() == b.sample(20000, 7).words().tobytes()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("bernoulli:p=1.5", ["p = 1.5 in loss spec", "in [0, 1]"]),
        ("ctmc:good=1,bad=-1", ["bad = -1 in loss spec", "more than 0 s"]),
        ("ge:prr=0.9,mu=1", ["mu = 1", "less than 1"]),
        ("list:drops=1/2,period=0", ["period = 0", "at least 1 packets"]),
        ("bootstrap:file=x.txt,block=0.5", ["block = 0.5", "at least 1 packets"]),
        ("replay:file=x.txt,end=loop", ["end = 'loop'", "wrap, deliver, drop, hold"]),
        ("semi:good=exp/1,bad=exp/x", ["bad.mean = 'x'", "a number"]),
        ("ge:prr=0.9", ["missing parameter(s) ['mu'] for ge"]),
        ("vddp:a=1", ["missing parameter(s) ['b', 'da', 'db', 'ca', 'cb'] for vddp"]),
        ("onoff:good=1,bad=1,pg=0", ["unknown parameter(s) ['pg'] for onoff"]),
        ("wibble:x=1", ["unknown model 'wibble'", "bernoulli, ge, list"]),
    ],
)
def test_a_bad_spec_is_refused_with_the_declared_range(spec: str, words: list[str]) -> None:
    with pytest.raises(_core.ParameterError) as e:
        parse_loss_spec(spec)
    for w in words:
        assert w in str(e.value), str(e.value)
