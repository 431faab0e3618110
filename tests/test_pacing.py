"""Pacing through Python, TOML and the CLI (the engine's tests: ``crates/burstlab-core/tests/
system/pacing.rs``; docs/tcp.md, "Pacing")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from burstlab import _core
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run
from burstlab.sim.scenario_file import parse_scenario

# A 200 kB transfer whose 40-segment initial window is four times a 10-packet buffer.
SHALLOW = dict(rate=10e6, delay=0.040, buffer=10)


def drops(pacing: str) -> int:
    tcp = TcpConfig(variant="cubic", init_cwnd=40, handshake=True, pacing=pacing)
    r = run(Scenario(tcp=tcp, forward=Link(**SHALLOW), workload=Workload(size=200_000)))
    return r.queue_drops


def test_python_pacing_lowers_drops_of_a_burst_larger_than_the_buffer() -> None:
    off, internal, fq = drops("off"), drops("internal"), drops("fq")
    assert off >= 30 and internal < off and fq < off, (off, internal, fq)
    # `auto` paces only a congestion control with its own rate: CUBIC is sent unpaced.
    assert drops("auto") == off


def test_defaults_and_refusals() -> None:
    t = TcpConfig()
    assert (t.pacing, t.pacing_ss_ratio, t.pacing_ca_ratio, t.fq_quantum, t.fq_initial_quantum) == ("auto", 200, 120, 2, 10)
    with pytest.raises(_core.ParameterError, match="pacing_ss_ratio"):
        run(Scenario(tcp=TcpConfig(pacing="internal", pacing_ss_ratio=0), workload=Workload(duration=1)))
    with pytest.raises(_core.ParameterError, match="pacing"):
        run(Scenario(tcp=TcpConfig(pacing="sometimes"), workload=Workload(duration=1)))


def test_toml_flow_pacing() -> None:
    text = """duration = "5s"
[[hop]]
name = "a"
rate = "10Mbit"
delay = "40ms"
buffer = 10
[[flow]]
name = "f"
path = ["a"]
size = 200000
tcp = { variant = "cubic", init_cwnd = 40, handshake = true, pacing = "fq", fq_initial_quantum = 5 }
"""
    net = parse_scenario(text, "p.toml")
    tcp = net.flows[0].tcp
    assert (tcp.pacing, tcp.fq_initial_quantum) == ("fq", 5)
    with pytest.raises(_core.ParameterError) as e:
        parse_scenario(text.replace('pacing = "fq"', 'pacing = "fast"'), "p.toml")
    assert "p.toml" in str(e.value) and "fast" in str(e.value)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "sim", *args],
                          capture_output=True, text=True)  # fmt: skip


def test_cli_pacing() -> None:
    base = ["--tcp", "cubic", "--rate", "10e6", "--delay", "40ms", "--buffer", "10", "--size", "200000",
            "--init-cwnd", "40", "--handshake", "--json"]  # fmt: skip
    off = json.loads(cli(*base, "--pacing", "off").stdout)["queue_drops"]
    fq = json.loads(cli(*base, "--pacing", "fq").stdout)["queue_drops"]
    assert fq < off
    bad = cli(*base, "--pacing-ca-ratio", "5000")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1].startswith("error:"), bad.stderr
    assert "pacing_ca_ratio" in bad.stderr or "pacing-ca-ratio" in bad.stderr
