"""802.11 rate adaptation on the simulator's ARQ hops (``arq:rate_control=...``,
docs/link-layer.md "Rate adaptation on a hop"): each attempt's rate chosen by ARF, AARF or
Minstrel, SNR-driven loss deciding it at that rate, per-rate statistics in the link results.
The mechanisms' known answers are the Rust tests in crates/burstlab-core/src/link/adapt.rs."""

from __future__ import annotations

import json

import pytest

from burstlab import _core
from burstlab.linklayer import Arq, parse_link_layer
from burstlab.phy import frame_error
from burstlab.sim import Flow, Hop, Link, Network, run_network
from burstlab.sim.scenario_file import parse_scenario


def _wifi(layer: str, snr: float, duration: float = 20.0) -> Network:
    return Network([Hop("wifi", Link(delay=0.001, buffer=50, loss=f"phy:mode=cck11,snr={snr}", loss_mode="time", link_layer=layer))],
                   [Flow("f", ["wifi"])], duration=duration, seed=3)  # fmt: skip


def test_parse_rate_control() -> None:
    assert parse_link_layer("arq:rate_control=minstrel") == Arq(rate_control="minstrel")
    assert parse_link_layer("arq:retry_limit=6,rate_control=aarf,backoff=dcf").rate_control == "aarf"
    assert "rate_control" not in Arq()._config()  # a fixed-rate hop's configuration is today's
    with pytest.raises(_core.ParameterError, match="rate_control = onoe: expected one of fixed, arf, aarf, minstrel"):
        parse_link_layer("arq:rate_control=onoe")
    with pytest.raises(_core.ParameterError, match="rate_control = minstrel: expected the 802.11 DCF timing"):
        parse_link_layer("arq:rate_control=minstrel,attempt_time=1ms")


@pytest.mark.parametrize("control", ["arf", "aarf", "minstrel"])
def test_adaptation_finds_the_rate_the_snr_allows(control: str) -> None:
    """At 4 dB, 11 Mb/s loses every 1 076-byte frame (PER ≈ 1) and 5.5 Mb/s about one in
    ten: a fixed 11 Mb/s hop delivers nothing to TCP, an adaptive one carries it mostly at
    5.5 Mb/s; the per-rate counters add up to the hop's."""
    assert frame_error("cck11", 4.0, 1076) > 0.99 and frame_error("cck5.5", 4.0, 1076) < 0.2
    fixed = run_network(_wifi("arq", 4.0))
    assert fixed.flows["f"].goodput_bps < 1e5 and fixed.links["wifi"].link_layer.rates == []
    r = run_network(_wifi(f"arq:rate_control={control}", 4.0))
    s = r.links["wifi"].link_layer
    assert [x["mode"] for x in s.rates] == ["dsss1", "dsss2", "cck5.5", "cck11"]
    assert sum(x["attempts"] for x in s.rates) == s.attempts
    assert sum(x["successes"] for x in s.rates) == s.delivered
    assert sum(x["share"] for x in s.rates) == pytest.approx(1.0)
    assert max(s.rates, key=lambda x: x["attempts"])["mode"] == "cck5.5", s.rates
    assert r.flows["f"].goodput_bps > 2e6
    # the ACK direction (the hop's twin) adapts too, over a lossless channel: up to 11 Mb/s
    back = r.links["wifi.rev"].link_layer
    assert back.rates[3]["share"] > 0.9, back.rates
    d = json.loads(json.dumps(r.to_dict()))
    assert d["links"][0]["link_layer"]["rates"][2]["attempts"] == s.rates[2]["attempts"]


def test_scenario_file_prints_the_rates(tmp_path, capsys) -> None:
    from burstlab.cli import main

    text = """duration = "10s"
[[hop]]
name = "wifi"
delay = "1ms"
loss = "phy:mode=cck11,snr=6"
loss_mode = "time"
link_layer = { kind = "arq", rate_control = "minstrel" }
[[flow]]
name = "f"
path = ["wifi"]
"""
    assert parse_scenario(text, "x.toml").hops[0].forward.link_layer == Arq(rate_control="minstrel")
    p = tmp_path / "s.toml"
    p.write_text(text)
    assert main(["sim", str(p)]) == 0
    out = capsys.readouterr().out
    assert "rate adaptation" in out and "cck5.5" in out


@pytest.mark.parametrize("control", ["aarf", "minstrel"])
def test_an_802_11g_hop_chooses_among_erp_ofdm_rates(control: str) -> None:
    """``rate_set=g`` (802.11g ERP-OFDM, 6-54 Mb/s): at 20 dB the 36 Mb/s rate has the best
    (1 − PER)/air time of the NIST curves (54 and 48 Mb/s lose most 1 076-byte frames), so it
    carries most attempts, and TCP gets more than an 802.11b hop can carry at all (its 11 Mb/s
    MAC capacity is about 6 Mb/s)."""
    assert frame_error("ofdm54", 20.0, 1076) > 0.5 and frame_error("ofdm36", 20.0, 1076) < 0.05
    r = run_network(Network([Hop("wifi", Link(delay=0.001, buffer=50, loss="phy:mode=ofdm54,snr=20", loss_mode="time",
                                             link_layer=f"arq:rate_control={control},rate_set=g"))], [Flow("f", ["wifi"])], duration=10.0, seed=3))  # fmt: skip
    s = r.links["wifi"].link_layer
    assert [x["mode"] for x in s.rates] == ["ofdm6", "ofdm9", "ofdm12", "ofdm18", "ofdm24", "ofdm36", "ofdm48", "ofdm54"]
    assert max(s.rates, key=lambda x: x["attempts"])["mode"] == "ofdm36", s.rates
    assert sum(x["attempts"] for x in s.rates) == s.attempts
    assert r.flows["f"].goodput_bps > 8e6, r.flows["f"].goodput_bps
    with pytest.raises(_core.ParameterError, match="rate_set = n: expected one of b, g, bg"):
        parse_link_layer("arq:rate_control=aarf,rate_set=n")
    with pytest.raises(_core.ParameterError, match="cw_min = 7"):
        parse_link_layer("arq:rate_control=aarf,rate_set=g,dcf_cw_min=7")
