"""The one TCP parameter schema: the core's table (``TcpConfig::PARAMS``) against the Python
dataclass, the CLI, the docs page, and the declared ranges."""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from dataclasses import fields
from pathlib import Path

import pytest

from burstlab import _core
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run, tcp_settings
from burstlab.sim.params import TCP_PARAMS, markdown

REPO = Path(__file__).resolve().parents[1]
PY_TYPE = {"bool": bool, "int": int, "int?": int | None, "float": float, "time": float, "choice": str}


def test_python_fields_are_the_core_table_with_matching_types_and_defaults() -> None:
    hints = typing.get_type_hints(TcpConfig)
    py = {f.name: f for f in fields(TcpConfig)}
    assert set(py) == set(TCP_PARAMS)
    for name, spec in TCP_PARAMS.items():
        assert hints[name] == PY_TYPE[spec["kind"]], name
        assert py[name].default == spec["default"], name
        assert py[name].metadata["help"] == spec["help"] and spec["help"], name
    # what the core runs for an empty dict is every default, as Python has it
    resolved = tcp_settings(TcpConfig())
    for name in TCP_PARAMS:
        assert resolved[name] == getattr(TcpConfig(), name), name


def test_every_parameter_round_trips_through_the_core() -> None:
    changed = {}
    for name, spec in TCP_PARAMS.items():
        if spec["choices"]:
            changed[name] = spec["choices"][-1]
        elif spec["kind"] == "bool":
            changed[name] = not spec["default"]
        elif spec["kind"] in ("int", "int?"):
            changed[name] = 7 if name != "lt_max_block" else 100
        elif spec["kind"] == "time":
            changed[name] = 2.5
    changed.update(cc="cubic", recovery="sack", rto_estimator="rfc793", rto_alpha=0.8, rto_beta=1.5, vegas_alpha=2, vegas_beta=4, mss=1400)
    got = _core.tcp_settings(changed)
    for name, v in changed.items():
        assert got[name] == v, name


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("rto_min", 1e-9, "at least 0.001 s"),
        ("rto_initial", 0.0005, "at least 0.001 s"),
        ("tibet_alpha", 1.0, "in [0, 1)"),
        ("cubic_beta", 0.0, "in (0, 1)"),
        ("init_cwnd", 0, "at least 1 segments"),
        ("lt_max_block", 1, "in [2, 65535] packets"),
    ],
)
def test_a_value_outside_its_declared_range_names_parameter_value_and_bound(field: str, value: object, words: str) -> None:
    with pytest.raises(_core.ParameterError, match=f"{field} = .*{words.replace('[', '.').replace('(', '.').replace(')', '.')}"):
        run(Scenario(tcp=TcpConfig(**{field: value}), forward=Link(), workload=Workload(duration=1.0)))


def test_the_ranges_documented_are_the_ones_enforced() -> None:
    for name in ("rto_min", "rto_max", "rto_initial"):
        assert TCP_PARAMS[name]["min"] == (0.001, True)
        _core.tcp_settings({name: 0.001, "rto_min": 0.001})
        with pytest.raises(_core.ParameterError, match=name):
            _core.tcp_settings({name: 0.000999})


def test_rto_bounds_of_one_nanosecond_are_refused_in_one_line() -> None:
    r = subprocess.run(
        [str(Path(sys.executable).with_name("burstlab")), "sim", "--rto-min", "1ns", "--rto-max", "1ns", "--rto-initial", "1ns", "--duration", "1s"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "--rto-min" in lines[0] and "0.001 s" in lines[0], r.stderr


def test_docs_table_is_generated_from_the_core() -> None:
    path = REPO / "docs" / "parameters.md"
    text = markdown()
    if os.environ.get("BURSTLAB_REGEN_DOCS"):
        path.write_text(text)
    assert path.read_text() == text, "docs/parameters.md is stale: BURSTLAB_REGEN_DOCS=1 pytest tests/test_params.py"
    for name, spec in TCP_PARAMS.items():
        assert f"| `{name}` |" in text and spec["help"] in text.replace("\\|", "|")


def test_show_config_gives_each_value_its_source() -> None:
    import json

    from click.testing import CliRunner

    from burstlab.cli import cli

    r = CliRunner().invoke(cli, ["sim", "--profile", "ns3", "--tcp", "newreno", "--mss", "1460", "--rate", "5Mbit", "--show-config", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    src, tcp = doc["sources"]["tcp"], doc["tcp"]
    assert set(src) == set(tcp)
    assert src["mss"] == "option --mss" and src["cc"] == src["recovery"] == "--tcp newreno"
    assert src["rwnd"].startswith("profile ns3: 131072 // mss") and tcp["rwnd"] == 131072 // 1460
    assert src["init_cwnd"] == "profile ns3" and src["lt_max_block"] == "default"
    assert doc["sources"]["link"]["rate"] == "option" and doc["sources"]["link"]["delay"] == "default"
    text = CliRunner().invoke(cli, ["sim", "--profile", "linux", "--cc", "reno", "--show-config"]).output
    assert "tcp.cc=linux-reno" in text and "# profile linux: runs reno as linux-reno" in text


def test_sim_help_is_grouped_and_names_every_option() -> None:
    import click
    from click.testing import CliRunner

    from burstlab.cli import cli
    from burstlab.cli.sim import sim_cmd

    short = CliRunner().invoke(cli, ["sim", "--help"], terminal_width=100).output
    full = CliRunner().invoke(cli, ["sim", "--help-all"], terminal_width=100).output
    for title in ("Most used:", "TCP:", "Link:", "Loss:", "Run and output:", "Every other TCP parameter"):
        assert title in short
    assert "TCP: CUBIC (RFC 9438):" in full and "Every other TCP parameter" not in full
    for p in sim_cmd.params:
        for opt in p.opts if isinstance(p, click.Option) else ():
            assert opt in full, opt
            assert opt in short, opt  # each at least named
    # the ten options people use first come first
    most = short.split("Most used:")[1].split("\n\n")[0]
    assert all(o in most for o in ("--profile", "--tcp", "--rate", "--delay", "--loss", "--link-layer", "--duration", "--seed", "--json"))
    assert len(short.splitlines()) < len(full.splitlines()) / 2 + 10


def test_toml_tcp_keys_are_the_parameters_with_their_ranges(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from burstlab.cli import cli

    def toml(tcp: str) -> Path:
        p = tmp_path / "s.toml"
        p.write_text(f'duration = "2s"\n[[hop]]\nname = "h"\nrate = "10Mbit"\ndelay = "10ms"\n[[flow]]\nname = "a"\npath = ["h"]\n[flow.tcp]\n{tcp}\n')
        return p

    ok = CliRunner().invoke(cli, ["sim", str(toml('profile = "linux"\ncc = "reno"\nrto_min = "300ms"\npartial_ack_timer = "every"')), "--json"])
    assert ok.exit_code == 0, ok.output
    bad = subprocess.run([str(Path(sys.executable).with_name("burstlab")), "sim", str(toml('rto_min = "1ns"'))], capture_output=True, text=True, timeout=60)
    lines = bad.stderr.strip().splitlines()
    assert bad.returncode == 2 and len(lines) == 1, bad.stderr
    assert "s.toml:9" in lines[0] and "rto_min = 0.000000001 s" in lines[0] and "at least 0.001 s" in lines[0]


def test_red_is_declared_once_too() -> None:
    from burstlab.sim import Red
    from burstlab.sim.params import RED_PARAMS

    hints = typing.get_type_hints(Red)
    assert {f.name: (hints[f.name], f.default) for f in fields(Red)} == {n: (PY_TYPE[s["kind"]], s["default"]) for n, s in RED_PARAMS.items()}
    with pytest.raises(_core.ParameterError, match=r"red_max_p = 0: expected in \(0, 1\]"):
        run(Scenario(forward=Link(queue=Red(max_p=0.0)), workload=Workload(duration=1.0)))
    with pytest.raises(_core.ParameterError, match="red_mean_packet_bytes = 0"):
        run(Scenario(forward=Link(queue=Red(mean_packet_bytes=0)), workload=Workload(duration=1.0)))
