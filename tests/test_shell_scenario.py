"""``burstlab shell SCENARIO.toml -- COMMAND``: a simulator scenario file as the shell's path
(``burstlab.shell_scenario``). Reading a scenario and its refusals need no privilege; one
test runs a command through a scenario's path where the machine allows shells."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from burstlab import ParameterError
from burstlab.cli import main
from burstlab.shell_scenario import load_shell_scenario
from test_shell import ECHO, _udp_echo, needs_shell

ONE_HOP = """\
seed = 7
duration = "30s"

[[hop]]
name = "radio"
rate = "8Mbit"
delay = "15ms"
buffer = 40
loss = "ge:b=0.01,g=0.3"
{extra_hop}
[[flow]]
name = "a"
path = ["radio"]
{extra_flow}"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "path.toml"
    p.write_text(text)
    return p


def test_one_hop_becomes_the_two_directions(tmp_path: Path) -> None:
    p = _write(tmp_path, ONE_HOP.format(extra_hop="", extra_flow=""))
    with pytest.warns(UserWarning, match="duration describe"):
        sc = load_shell_scenario(p)
    up, down = sc.uplink, sc.downlink
    assert (sc.uplink_hop, sc.downlink_hop, sc.seed) == ("radio", "radio", 7)
    assert (up.rate, up.delay, up.buffer, up.seed, up.loss_mode) == (8e6, 0.015, 40, 7, "packet")
    assert up.loss is not None and "b: 0.01" in repr(up.loss)
    # the reverse direction, not given: the forward link's rate, delay and buffer, lossless
    # (the simulator's rule), on the next seed
    assert (down.rate, down.delay, down.buffer, down.loss, down.seed) == (8e6, 0.015, 40, None, 8)
    # --seed overrides the scenario's
    with pytest.warns(UserWarning):
        assert load_shell_scenario(p, seed=3).uplink.seed == 3


def test_reverse_link_and_independent_ack_loss(tmp_path: Path) -> None:
    rev = 'reverse = { rate = "1Mbit", delay = "5ms", buffer = 10, loss = "bernoulli:p=0.02" }\n'
    p = _write(tmp_path, ONE_HOP.format(extra_hop=rev, extra_flow="").replace('duration = "30s"\n', ""))
    down = load_shell_scenario(p).downlink
    assert (down.rate, down.delay, down.buffer) == (1e6, 0.005, 10) and "p: 0.02" in repr(down.loss)
    p = _write(tmp_path, ONE_HOP.format(extra_hop='ack_loss = "independent"\n', extra_flow="").replace('duration = "30s"\n', ""))
    down = load_shell_scenario(p).downlink
    # a copy of the forward model, drawn on the downlink's own stream
    assert "b: 0.01" in repr(down.loss) and down.seed == 8


def test_sender_settings_are_named_in_a_warning(tmp_path: Path) -> None:
    p = _write(tmp_path, ONE_HOP.format(extra_hop="", extra_flow='tcp = "cubic"\nsize = "1MB"\n'))
    with pytest.warns(UserWarning, match=r"tcp, size, duration describe the simulator's sender and run"):
        load_shell_scenario(p)


@pytest.mark.parametrize(("extra_hop", "extra_flow", "line", "match"), [
    ('queue = "red"\n', "", 9, "DropTail only"),
    ('loss_mode = "time"\nloss_window = "transit"\n', "", 10, "service interval"),
    ('ack_loss = "sync"\n', "", 9, "one loss process for data and ACKs"),
    ('duplex = "half"\n', "", 9, "half-duplex"),
])  # fmt: skip
def test_what_the_shell_cannot_express_is_one_error_naming_the_line(tmp_path: Path, extra_hop: str, extra_flow: str, line: int, match: str) -> None:
    p = _write(tmp_path, ONE_HOP.format(extra_hop=extra_hop, extra_flow=extra_flow).replace('duration = "30s"\n', ""))
    with pytest.raises(ParameterError, match=match) as e:
        load_shell_scenario(p)
    assert str(e.value).startswith(f"{p}:{line}: ")


def test_several_flows_or_hops_are_refused(tmp_path: Path) -> None:
    two_flows = ONE_HOP.format(extra_hop="", extra_flow="") + '\n[[flow]]\nname = "b"\npath = ["radio"]\n'
    p = _write(tmp_path, two_flows)
    with pytest.raises(ParameterError, match="2 flows: the shell carries one host's traffic") as e:
        load_shell_scenario(p)
    assert str(e.value).startswith(f"{p}:15: ")
    two_hops = ONE_HOP.format(extra_hop='\n[[hop]]\nname = "wire"\n', extra_flow="").replace('path = ["radio"]', 'path = ["radio", "wire"]')
    p = _write(tmp_path, two_hops)
    with pytest.raises(ParameterError, match=r"path = \['radio', 'wire'\]: the shell emulates one link per direction") as e:
        load_shell_scenario(p)
    assert str(e.value).startswith(f"{p}:16: ")


def test_a_preset_with_one_hop_is_taken(tmp_path: Path) -> None:
    p = _write(tmp_path, '[preset]\nname = "single"\nforward = { rate = "5Mbit", delay = "25ms", loss = "bernoulli:p=0.01" }\n')
    sc = load_shell_scenario(p)
    assert (sc.uplink.rate, sc.uplink.delay, sc.downlink.loss) == (5e6, 0.025, None)
    p = _write(tmp_path, '[preset]\nname = "chain"\nhops = 2\n')
    with pytest.raises(ParameterError, match="one link per direction"):
        load_shell_scenario(p)


def test_cli_refuses_a_scenario_with_link_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _write(tmp_path, ONE_HOP.format(extra_hop="", extra_flow="").replace('duration = "30s"\n', ""))
    assert main(["shell", "--delay", "5ms", str(p), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {p}: the scenario file sets the path") and "--delay" in err and err.count("\n") == 1
    bad = _write(tmp_path, '[[hop]]\nname = "x"\nrate = "fast"\n[[flow]]\nname = "a"\npath = ["x"]\n')
    assert main(["shell", str(bad), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}:3: ") and "rate" in err and err.count("\n") == 1
    assert main(["shell", str(tmp_path / "none.toml"), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "none.toml" in err and err.count("\n") == 1


@needs_shell
def test_a_command_runs_over_the_scenarios_path(tmp_path: Path) -> None:
    # 15 ms each way from the scenario: the round trip is 30 ms (plus serialisation)
    p = _write(tmp_path, ONE_HOP.format(extra_hop="", extra_flow="").replace('duration = "30s"\n', "").replace('loss = "ge:b=0.01,g=0.3"\n', ""))
    srv, port = _udp_echo()
    out = tmp_path / "rtt.json"
    rc = main(["shell", str(p), "--", sys.executable, "-c", ECHO, str(port), "20", str(out)])
    srv.close()
    assert rc == 0
    rtt_ms = float(np.median(json.loads(out.read_text()))) * 1e3
    assert 30.0 <= rtt_ms < 32.0, rtt_ms
