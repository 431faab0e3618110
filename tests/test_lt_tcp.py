"""LT-TCP through the Python API, scenario files and ``burstlab sim`` (docs/tcp.md, "LT-TCP";
the Rust tests in ``crates/burstlab-core/tests/system/lt_tcp.rs`` check the mechanisms and Subramanian et al.'s result)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from burstlab import _core
from burstlab.cli import cli
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run, run_network, tcp_settings
from burstlab.sim.scenario_file import parse_scenario


def _lossy(p: float, queue: str = "red") -> Link:
    return Link(rate=10e6, delay=0.05, buffer=250, queue=queue, loss=f"bernoulli:p={p}")


def test_settings_turn_sack_and_ecn_on():
    t = tcp_settings(TcpConfig(variant="lt-tcp"))
    assert (t["cc"], t["recovery"], t["ecn"], t["ecn_resolved"], t["ssthresh_rule_resolved"]) == ("reno", "lt", False, True, "pipe")
    assert (t["lt_granularity"], t["lt_mss_min"], t["lt_max_block"]) == (10, 250, 255)
    assert tcp_settings(TcpConfig(cc="cubic", recovery="lt", ssthresh_rule="cwnd"))["ssthresh_rule_resolved"] == "cwnd"
    with pytest.raises(_core.ParameterError, match="lt_mss_min"):
        tcp_settings(TcpConfig(variant="lt-tcp", lt_mss_min=2000))
    with pytest.raises(_core.ParameterError, match="lt_erasure_gain"):
        tcp_settings(TcpConfig(variant="lt-tcp", lt_erasure_gain=0.0))


def test_fec_repairs_erasures_without_window_cuts():
    """At 10 % uniform loss LT-TCP sends parity in about the loss rate's share, decodes blocks,
    never starts a fast retransmit, and keeps far more goodput than TCP SACK (which collapses
    beyond 5 %: docs/validation.md, "LT-TCP")."""
    wl = Workload(duration=30.0)
    lt = run(Scenario(tcp=TcpConfig(variant="lt-tcp"), forward=_lossy(0.1), workload=wl, seed=3))
    sack = run(Scenario(tcp=TcpConfig(variant="sack"), forward=_lossy(0.1), workload=wl, seed=3))
    assert lt.fast_retransmits == 0 and lt.fec_decodes > 100 and lt.rfec_sent > 0
    assert 0.05 < lt.pfec_sent / lt.packets_sent < 0.2
    assert lt.goodput_bps > 20 * sack.goodput_bps
    assert sack.pfec_sent == sack.rfec_sent == sack.fec_decodes == 0


def test_ablations_run_and_fixed_transfers_complete():
    for kw in ({"lt_pfec": False}, {"lt_rfec": False}, {"lt_adaptive_mss": False}, {"lt_max_block": 2}):
        r = run(Scenario(tcp=TcpConfig(variant="lt-tcp", **kw), forward=_lossy(0.05), workload=Workload(size=500_000), seed=1))
        assert r.completion_time is not None and r.delivered_bytes == 500_000, kw
        if kw == {"lt_pfec": False}:
            assert r.pfec_sent == 0
        if kw == {"lt_rfec": False}:
            assert r.rfec_sent == 0


def test_scenario_file_and_cli():
    text = """
duration = "20s"
[[hop]]
name = "wireless"
rate = "10Mbit"
delay = "50ms"
buffer = 250
loss = "bernoulli:p=0.2"
queue = "red"
[[flow]]
name = "lt"
path = ["wireless"]
tcp = { variant = "lt-tcp", lt_granularity = 8, lt_erasure_gain = 0.5 }
"""
    net = parse_scenario(text, "lt.toml")
    assert (net.flows[0].tcp.recovery, net.flows[0].tcp.lt_granularity) == ("lt", 8)
    r = run_network(net).flows["lt"]
    assert r.fec_decodes > 0 and r.goodput_bps > 2e6
    runner = CliRunner()
    out = runner.invoke(cli, ["sim", "--tcp", "lt-tcp", "--lt-granularity", "5", "--show-config", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["tcp"]["lt_granularity"] == 5
    out = runner.invoke(cli, ["sim", "--tcp", "lt-tcp", "--queue", "red", "--loss", "bernoulli:p=0.1", "--duration", "10s", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert d["fec_decodes"] > 0 and d["fast_retransmits"] == 0
    out = runner.invoke(cli, ["sim", "--tcp", "lt-tcp", "--lt-max-block", "1"])
    assert out.exit_code != 0 and "lt-max-block" in str(out.exception or out.output)
