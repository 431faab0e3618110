"""The link layer's parameters declared once in the core (``ArqParams``, ``HarqParams``,
``AttemptParams``, ``DcfParams``): the Python dataclasses, the spec and TOML keys, the ranges
enforced and ``--show-config`` all come from the tables."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from dataclasses import fields
from pathlib import Path

import pytest

from burstlab import _core
from burstlab.linklayer import (
    ARQ_PARAMS, ATTEMPT_PARAMS, DCF_PARAMS, HARQ_PARAMS, RATE_PARAMS, Arq, Backoff, Dcf, Harq, layer_settings, measure, parse_link_layer,
)  # fmt: skip

PY_TYPE = {"int": int, "float": float, "time": float, "bool": bool}


@pytest.mark.parametrize(("cls", "table"), [(Arq, {**ARQ_PARAMS, **RATE_PARAMS}), (Harq, HARQ_PARAMS), (Dcf, DCF_PARAMS)])
def test_dataclass_fields_are_the_declared_parameters(cls: type, table: dict[str, dict[str, typing.Any]]) -> None:
    hints = typing.get_type_hints(cls)
    own = {f.name: f for f in fields(cls) if cls is Dcf or f.name not in ("timing", "rate", "backoff")}
    assert set(own) == set(table)
    for name, spec in table.items():
        assert own[name].default == spec["default"], name
        assert own[name].metadata["help"] == spec["help"] and spec["help"], name
        if spec["kind"] in PY_TYPE:
            assert PY_TYPE[spec["kind"]] in typing.get_args(hints[name]) + (hints[name],), name
    # Backoff's fields are the DCF's cw_min, cw_max and slot
    assert {f.name: f.default for f in fields(Backoff)} == {k: DCF_PARAMS[k]["default"] for k in ("cw_min", "cw_max", "slot")}


def test_the_declared_defaults_are_what_the_core_runs() -> None:
    # 802.11b at 11 Mb/s: the default DCF's attempt for a 1000-byte packet, known answer
    # (Barsocchi et al. §II.B: DIFS 50 + PLCP 192 + 1036 bytes at 11 Mb/s + SIFS 10 + PLCP 192 + 14 bytes)
    t = _core.wifi_timing({}, 1000)
    assert t["attempt"] == pytest.approx(50e-6 + 192e-6 + 1036 * 8 / 11e6 + 10e-6 + 192e-6 + 14 * 8 / 11e6, abs=2e-9)
    assert t == _core.wifi_timing({k: p["default"] for k, p in DCF_PARAMS.items()}, 1000)
    # LL-HARQ with every key at its declared default equals the default Harq
    loss = _core.LossModel.bernoulli(0.2)
    a = measure(Harq(), loss, frames=2000)
    b = measure(parse_link_layer({"kind": "harq", **{k: p["default"] for k, p in HARQ_PARAMS.items()}}), loss, frames=2000)  # type: ignore[arg-type]
    assert (a.delivered, a.attempts, a.units_lost) == (b.delivered, b.attempts, b.units_lost)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("arq:retry_limit=1e9", "retry_limit = 1000000000: expected at most 4096"),
        ("arq:retry_limit=4096", "retry_limit = 4096: expected a limit giving 1 to 4096 attempts"),
        ("arq:retry_limit=0,counts=attempts", "retry_limit = 0: expected a limit giving 1 to 4096 attempts"),
        ("harq:attempts=17", "attempts = 17: expected in [1, 16]"),
        ("harq:fragment_bytes=0", "fragment_bytes = 0: expected in [1, 65535] bytes"),
        ("harq:target=1", "target = 1: expected in (0, 1)"),
        ("harq:initial_loss=1", "initial_loss = 1: expected in [0, 1)"),
        ("harq:ewma_gain=1.5", "ewma_gain = 1.5: expected in [0, 1]"),
        ("harq:max_fragments=2000", "max_fragments = 2000: expected in [1, 1024]"),
        ("arq:dcf_slot=0", "slot = 0 s: expected in (0, 1] s"),
        ("arq:dcf_cw_min=2000000", "cw_min = 2000000: expected at most 1048576 slots"),
        ("arq:dcf_rate=0", "rate = 0: expected in [1, 1000000000000000] bit/s"),
        ("arq:attempt_time=2h", "attempt_time = 7200 s: expected at most 3600 s"),
        ("arq:attempt_time=5ms..1ms", "attempt_time = 0.005: expected at most attempt_time_max = 0.001 s"),
        ("harq:sizing=median", "sizing = median: expected one of quantile, mean"),
        ("arq:counts=tries", "counts = tries: expected one of retries, attempts"),
        ("arq:rate=2Mbit", "attempt_time_max and rate go with attempt_time"),
        ("arq:attempt_time=1ms,dcf_rate=2Mbit,dcf_sifs=0", "dcf_rate, dcf_sifs go with the DCF timing, not with attempt_time"),
        ("arq:attempt_time=1ms,dcf_slot=9us", "go with backoff=dcf"),
        ("harq:retry_limit=3", "unknown key 'retry_limit'"),
    ],
)
def test_a_bad_value_names_the_key_the_value_and_the_declared_range(spec: str, words: str) -> None:
    with pytest.raises(_core.ParameterError) as e:
        parse_link_layer(spec)
    assert words in str(e.value), str(e.value)


def test_every_key_of_the_tables_is_a_spec_key_and_reaches_the_core() -> None:
    arq = parse_link_layer("arq:retry_limit=3,counts=attempts,dcf_rate=2Mbit,dcf_preamble=short,dcf_slot=9us,dcf_cw_min=15,backoff=dcf")
    assert isinstance(arq, Arq) and arq.retry_limit == 3 and arq.counts == "attempts"
    assert arq.timing == Dcf(rate=2e6, preamble="short", slot=9e-6, cw_min=15) and arq.backoff == Backoff(cw_min=15, slot=9e-6)
    harq = parse_link_layer("harq:attempts=1,fragment_bytes=200,sizing=mean,proactive=false,attempt_time=1ms..3ms,rate=11Mbit")
    assert isinstance(harq, Harq) and (harq.attempts, harq.fragment_bytes, harq.sizing, harq.proactive) == (1, 200, "mean", False)
    assert harq.timing == (1e-3, 3e-3) and harq.rate == 11e6
    # the same keys as a TOML table
    assert parse_link_layer({"kind": "harq", "fragment_bytes": 200, "attempt_time": "1ms..3ms", "rate": "11Mbit", "attempts": 1,
                             "sizing": "mean", "proactive": False}) == harq  # fmt: skip
    # the settings shown are the spec keys, and parse back to the same layer
    shown = layer_settings(arq)
    assert set(shown) >= set(ARQ_PARAMS) | {f"dcf_{k}" for k in DCF_PARAMS} | {"backoff"}
    assert parse_link_layer({k: v for k, v in shown.items() if k not in RATE_PARAMS}) == arq
    shown = layer_settings(harq)
    assert set(shown) >= set(HARQ_PARAMS) | set(ATTEMPT_PARAMS)
    assert parse_link_layer({k: v for k, v in shown.items() if k != "backoff"}) == harq


def test_cli_error_and_show_config_come_from_the_tables(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).with_name("burstlab"))
    r = subprocess.run([exe, "sim", "--link-layer", "arq:retry_limit=1e9", "--duration", "1s"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "error: invalid link layer 'arq:retry_limit=1e9': invalid parameter retry_limit = 1000000000: expected at most 4096"
    ]
    r = subprocess.run([exe, "sim", "--link-layer", "harq:fragment_bytes=200", "--show-config", "--json"], capture_output=True, text=True, timeout=120)
    doc = json.loads(r.stdout)
    assert doc["link"]["link_layer.fragment_bytes"] == 200 and doc["sources"]["link"]["link_layer.fragment_bytes"] == "option"
    for k, p in HARQ_PARAMS.items():
        if k != "fragment_bytes":
            assert doc["link"][f"link_layer.{k}"] == p["default"] and doc["sources"]["link"][f"link_layer.{k}"] == "default", k
    # a TOML scenario's link_layer table takes the same keys and ranges
    f = tmp_path / "s.toml"
    f.write_text('duration = "1s"\n[[hop]]\nname = "w"\nlink_layer = { kind = "harq", ewma_gain = 2.0 }\n[[flow]]\nname = "f"\npath = ["w"]\n')
    r = subprocess.run([exe, "sim", str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "ewma_gain = 2: expected in [0, 1]" in r.stderr, r.stderr


def test_a_choice_is_read_as_the_core_reads_a_named_choice() -> None:
    """Case and '-' against '_' do not matter (the core's `param::same_name`); the
    canonical name is kept, and a name that is not a choice is refused with the list."""
    harq = parse_link_layer("harq:sizing=MEAN")
    assert isinstance(harq, Harq) and harq.sizing == "mean"
    arq = parse_link_layer("arq:counts=Attempts,dcf_preamble=Short")
    assert isinstance(arq, Arq) and arq.counts == "attempts" and arq.timing.preamble == "short"
    with pytest.raises(_core.ParameterError, match="sizing = mea: expected one of quantile, mean"):
        parse_link_layer("harq:sizing=mea")
