"""RED with ECN through the Python API, scenario files and ``burstlab sim``
(docs/simulator.md, "RED and ECN"; the Rust tests in ``link/red.rs`` and ``tests/system/red.rs``
check the algorithm and the engine)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from burstlab import _core
from burstlab.cli import cli
from burstlab.sim import Flow, Hop, Link, Network, Red, Scenario, TcpConfig, Workload, run, run_network
from burstlab.sim.scenario_file import parse_scenario

DUMBBELL = """
duration = "60s"
seed = 2

[[hop]]
name = "bottleneck"
rate = "10Mbit"
delay = "20ms"
buffer = 100
queue = "red"
red_min_th = 5
red_max_th = 15
red_max_p = 0.1
red_gentle = false
red_hard_drop = false

{flows}
"""


def _flows(n: int, ecn: bool) -> str:
    return "\n".join(f'[[flow]]\nname = "f{k}"\npath = ["bottleneck"]\ntcp = {{ variant = "newreno", ecn = {str(ecn).lower()} }}\n'
                     for k in range(n))  # fmt: skip


def test_scenario_file_red_parameters_reach_the_link():
    net = parse_scenario(DUMBBELL.format(flows=_flows(2, True)), "red.toml")
    q = net.hops[0].forward.queue
    assert q == Red(min_th=5, max_th=15, max_p=0.1, gentle=False, hard_drop=False)
    assert net.config()["links"][0]["red"]["max_p"] == 0.1
    assert net.config()["links"][1]["queue"] == "red"  # the reverse direction copies it


def test_marks_replace_drops_for_ecn_flows():
    """Four flows on a RED bottleneck: ECN-capable flows are marked (and reduce on ECN-Echo)
    where the others are dropped early."""
    on = run_network(parse_scenario(DUMBBELL.format(flows=_flows(4, True)), "on.toml"))
    off = run_network(parse_scenario(DUMBBELL.format(flows=_flows(4, False)), "off.toml"))
    b_on, b_off = on.links["bottleneck"], off.links["bottleneck"]
    assert b_on.ecn_marks > 50 and sum(f.ecn_reductions for f in on.flows.values()) > 20
    assert b_off.ecn_marks == 0 and b_off.early_drops > 50
    assert b_on.early_drops * 5 < b_off.early_drops
    assert b_on.queue_drops >= b_on.early_drops and b_off.queue_drops >= b_off.early_drops
    assert on.aggregate_goodput_bps > 0.9 * 10e6 * 1000 / 1040


def test_python_api_queue_forms():
    tcp = TcpConfig(variant="newreno", ecn=True)
    for queue in ("red", Red(), Red(weight=0.01, hard_drop=False)):
        r = run(Scenario(tcp=tcp, forward=Link(rate=10e6, delay=0.02, queue=queue), workload=Workload(duration=20.0)))
        assert r.ecn_reductions > 0 and r.config["forward"]["queue"] == "red"
    r = run_network(Network(hops=[Hop("h", Link(queue="red"))], flows=[Flow("f", ["h"], tcp=tcp)], duration=10.0))
    assert r.links["h"].ecn_marks > 0
    with pytest.raises(_core.ParameterError, match="queue"):
        run(Scenario(forward=Link(queue="pie")))
    with pytest.raises(_core.ParameterError, match="red_max_th"):
        run(Scenario(forward=Link(queue=Red(min_th=20, max_th=10))))


@pytest.mark.parametrize(
    "line, message",
    [
        ('queue = "pie"', "queue"),
        ('queue = "droptail"\nred_max_p = 0.1', "red_max_p"),
        ('queue = "red"\nred_gentle = 3', "red_gentle"),
        ('queue = "red"\nred_max_p = "high"', "red_max_p"),
        ('queue = "red"\nred_bogus = 1', "red_bogus"),
    ],
)
def test_scenario_file_red_errors_name_the_key(line, message):
    text = f'[[hop]]\nname = "h"\n{line}\n[[flow]]\nname = "f"\npath = ["h"]\n'
    with pytest.raises(_core.ParameterError, match=message) as e:
        parse_scenario(text, "bad.toml")
    assert "bad.toml:" in str(e.value)


def test_cli_queue_options():
    runner = CliRunner()
    r = runner.invoke(cli, ["sim", "--queue", "red", "--red-max-p", "0.1", "--no-red-gentle", "--ecn", "--show-config", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["link"]["queue"] == "red" and doc["link"]["red_max_p"] == 0.1 and doc["link"]["red_gentle"] is False
    assert doc["tcp"]["ecn"] is True
    r = runner.invoke(cli, ["sim", "--queue", "red", "--ecn", "--duration", "10s", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["ecn_reductions"] > 0
    r = runner.invoke(cli, ["sim", "--red-max-p", "0.1"])
    assert r.exit_code == 2 and "--queue red" in r.output
