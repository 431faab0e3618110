"""The link layer on the links of a network and of the single-link scenario, from Python,
scenario files and the command line (docs/link-layer.md, "In the simulator"). The Rust tests
in crates/burstlab-core/tests/system/link_layer.rs check the mechanisms at larger samples."""

from __future__ import annotations

import json
import math

import pytest

from burstlab import _core
from burstlab.linklayer import Arq, Harq, LinkLayerStats, parse_link_layer
from burstlab.sim import Flow, Hop, Link, Network, Scenario, TcpConfig, Workload, run, run_network
from burstlab.sim.scenario_file import parse_scenario


def _wifi(link_layer, loss="bernoulli:p=0.5", duration=60.0, **hop) -> Network:
    return Network(
        hops=[Hop("wifi", Link(delay=0.001, buffer=20, loss=loss, link_layer=link_layer), **hop)],
        flows=[Flow("f", ["wifi"])],
        duration=duration,
        seed=2,
    )


def test_arq_residual_loss_and_statistics_in_a_network() -> None:
    """R retries on a Bernoulli(p) channel: raw loss p, residual p^(R+1) (5 standard errors),
    the losses TCP sees on the link are the residual ones, and the reverse direction (by
    default the forward link's twin, link layer included, lossless) serves the ACKs."""
    p, retries = 0.5, 3
    r = run_network(_wifi(Arq(retry_limit=retries, timing=0.0002)))
    s = r.links["wifi"].link_layer
    assert isinstance(s, LinkLayerStats)
    want = p ** (retries + 1)
    assert abs(s.raw_loss_rate - p) < 5 * math.sqrt(p * (1 - p) / s.units_sent)
    assert abs(s.residual_loss_rate - want) < 5 * math.sqrt(want * (1 - want) / s.frames)
    assert 0 <= s.dropped - r.links["wifi"].channel_losses <= 21  # frames still queued at the end
    assert r.links["wifi"].capacity_bps is None
    back = r.links["wifi.rev"].link_layer
    assert back is not None and back.frames > 0 and back.units_lost == 0
    assert sum(s.attempts_per_frame) == s.frames and s.attempts_per_frame[0] == 0
    d = json.loads(json.dumps(r.to_dict()))
    assert d["links"][0]["link_layer"]["frames"] == s.frames
    assert d["links"][0]["link_layer"]["residual_loss_rate"] == pytest.approx(s.residual_loss_rate)


def test_persistent_arq_with_uniform_attempts_gives_spurious_timeouts() -> None:
    """Subramanian et al. slides 9-10, from Python: attempt times uniform in [1, 20] ms, raw
    loss 60 %, retry limit 7, a 5-packet buffer: spurious timeouts; a plain link with the
    same residual loss at the same mean rate has (almost) none."""
    tcp = TcpConfig(rto_min=0.2)
    ll = run_network(Network([Hop("wifi", Link(delay=0.001, buffer=5, loss="bernoulli:p=0.6",
                                               link_layer="arq:retry_limit=7,attempt_time=1ms..20ms"))],
                             [Flow("f", ["wifi"], tcp=tcp)], duration=600, seed=5))  # fmt: skip
    s = ll.links["wifi"].link_layer
    rate = s.frames / 600 * 1040 * 8
    plain = run_network(Network([Hop("wifi", Link(rate=rate, delay=0.001, buffer=5, loss=f"bernoulli:p={s.residual_loss_rate}"))],
                                [Flow("f", ["wifi"], tcp=tcp)], duration=600, seed=5))  # fmt: skip
    assert ll.flows["f"].spurious_timeouts >= 20
    assert plain.flows["f"].spurious_timeouts * 5 <= ll.flows["f"].spurious_timeouts


def test_harq_link_reports_fec() -> None:
    r = run_network(_wifi(Harq(attempts=2, timing=0.0001, rate=11e6), loss="bernoulli:p=0.2"))
    s = r.links["wifi"].link_layer
    sent = s.fec["data_sent"][0] + s.fec["pfec_sent"][0] + s.fec["rfec_sent"][0]
    assert sent == s.units_sent and s.fec["pfec_sent"][0] > 0
    assert s.residual_loss_rate < 0.02 < s.raw_loss_rate


def test_single_link_scenario_takes_a_link_layer() -> None:
    """The same scenario with and without a link layer: ARQ recovers most channel losses
    (far fewer reach TCP), and the configuration records the link layer (and only then)."""
    base = Scenario(forward=Link(loss="bernoulli:p=0.2", delay=0.005), workload=Workload(duration=20))
    with_ll = Scenario(forward=Link(loss="bernoulli:p=0.2", delay=0.005, link_layer=Arq(retry_limit=7, timing=0.0005)),
                       workload=Workload(duration=20))  # fmt: skip
    a, b = run(base), run(with_ll)
    assert "link_layer" not in a.config["forward"] and b.config["forward"]["link_layer"]["kind"] == "arq"
    assert b.channel_losses / b.packets_sent < 0.01 < a.channel_losses / a.packets_sent
    assert b.goodput_bps > 5 * a.goodput_bps


@pytest.mark.parametrize(
    "spec, want",
    [
        ("arq", Arq()),
        ("none", None),
        ("arq:retry_limit=6,counts=attempts", Arq(retry_limit=6, counts="attempts")),
        ("arq:attempt_time=1ms..20ms", Arq(timing=(0.001, 0.02))),
        ("arq:attempt_time=2ms,rate=11Mbit,backoff=dcf", Arq(timing=0.002, rate=11e6, backoff=parse_link_layer("arq:backoff=dcf").backoff)),
        ("harq:attempts=1,fragment_bytes=200,proactive=false", Harq(attempts=1, fragment_bytes=200, proactive=False)),
        ({"kind": "harq", "attempts": 2, "attempt_time": "1ms"}, Harq(attempts=2, timing=0.001)),
    ],
)
def test_link_layer_specs(spec, want) -> None:
    assert parse_link_layer(spec) == want


@pytest.mark.parametrize(
    "spec, message",
    [
        ("fec", "expected arq or harq"),
        ("arq:retry=7", "unknown key 'retry'"),
        ("arq:retry_limit=x", "retry_limit = 'x'"),
        ("arq:attempt_time=5ms..1ms", "attempt_time"),
        ("arq:retry_limit=100000", "retry_limit"),
        ("harq:proactive=maybe", "expected true or false"),
        ("arq:backoff=always", "expected one of none, dcf"),
        ("arq:attempt_time=1ms,dcf_rate=2Mbit", "dcf_rate goes with the DCF timing"),
    ],
)
def test_bad_link_layer_specs_name_the_key(spec, message) -> None:
    with pytest.raises(_core.ParameterError, match="invalid link layer") as e:
        parse_link_layer(spec)
    assert message in str(e.value)


def test_network_validation_of_link_layers() -> None:
    with pytest.raises(_core.ParameterError, match="timed by it"):
        run_network(Network([Hop("a", Link(capacity=[1, 2], link_layer="arq"))], [Flow("f", ["a"])], duration=1))
    # A time-mode channel shared (sync ACK losses) with a full-duplex reverse link on its
    # own server cannot be asked in time order: refused, naming the link.
    net = _wifi("arq", loss="onoff:good=0.9,bad=0.1", ack_loss="sync")
    net = Network([Hop("wifi", Link(delay=0.001, loss="onoff:good=0.9,bad=0.1", loss_mode="time", link_layer="arq"), ack_loss="sync")],
                  [Flow("f", ["wifi"])], duration=1)  # fmt: skip
    with pytest.raises(_core.ParameterError, match="link wifi.rev.loss"):
        run_network(net)
    # On a half-duplex hop both directions are served by one medium: allowed.
    net = Network([Hop("wifi", Link(delay=0.001, loss="onoff:good=0.9,bad=0.1", loss_mode="time", link_layer="arq"),
                       ack_loss="sync", duplex="half")], [Flow("f", ["wifi"])], duration=20)  # fmt: skip
    r = run_network(net)
    assert r.links["wifi.rev"].link_layer.units_lost > 0
    with pytest.raises(_core.ParameterError, match="expected burstlab.linklayer.Arq"):
        run_network(Network([Hop("a", Link(link_layer=7))], [Flow("f", ["a"])], duration=1))


SCENARIO = """duration = "30s"
[[hop]]
name = "wired"
rate = "10Mbit"
delay = "20ms"
[[hop]]
name = "wifi"
delay = "0s"
duplex = "half"
loss = "bernoulli:p=0.3"
link_layer = {link_layer}
[[flow]]
name = "f"
path = ["wired", "wifi"]
"""


@pytest.mark.parametrize("layer", ['"arq:retry_limit=7"', '{ kind = "arq", retry_limit = 7 }'])
def test_scenario_file_link_layer(layer) -> None:
    net = parse_scenario(SCENARIO.format(link_layer=layer), "x.toml")
    assert net.hops[1].forward.link_layer == Arq(retry_limit=7)
    r = run_network(net)
    assert r.links["wifi"].link_layer.frames > 0 and r.links["wifi.rev"].link_layer.frames > 0


def test_scenario_file_bad_link_layer_names_file_and_line() -> None:
    text = SCENARIO.format(link_layer='"arq:retries=7"')
    with pytest.raises(_core.ParameterError) as e:
        parse_scenario(text, "x.toml")
    line = text.splitlines().index('link_layer = "arq:retries=7"') + 1
    assert str(e.value).startswith(f"x.toml:{line}:") and "unknown key 'retries'" in str(e.value)


def test_cli_link_layer(capsys, tmp_path) -> None:
    from burstlab.cli import main

    assert main(["sim", "--link-layer", "arq:retry_limit=7,attempt_time=1ms", "--loss", "bernoulli:p=0.3", "--duration", "10s", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["goodput_bps"] > 0 and out["config"]["forward"]["link_layer"]["kind"] == "arq"
    assert main(["sim", "--link-layer", "arq:retry=7"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid link layer 'arq:retry=7'") and err.count("\n") == 1
    trace = tmp_path / "t.bits"
    trace.write_text("1101\n")
    assert main(["sim", "--trace", str(trace), "--link-layer", "arq"]) == 2
    assert "--link-layer" in capsys.readouterr().err
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.format(link_layer='"arq"'))
    assert main(["sim", str(p)]) == 0
    assert "link layers" in capsys.readouterr().out
