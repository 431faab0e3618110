"""Networks through the Python API: the single-link scenario as a network, presets, TOML
scenario files, time-varying capacity, the per-packet log, and properties over random
topologies (docs/simulator.md, "Networks"; docs/validation.md)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import burstlab
from burstlab import _core
from burstlab.sim import (
    Cbr,
    Flow,
    Hop,
    Link,
    Network,
    OnOff,
    Scenario,
    TcpConfig,
    Workload,
    load_scenario,
    presets,
    run,
    run_network,
)
from burstlab.sim.network import LOG_EVENTS, LOG_KINDS
from burstlab.sim.scenario_file import parse_scenario

SHARED = Path(os.environ.get("BURSTLAB_SHARED", Path(__file__).resolve().parents[2] / "shared"))
MAHIMAHI = SHARED / "data" / "mahimahi-cellular"

COUNTERS = ("goodput_bps", "throughput_bps", "packets_sent", "packets_lost", "retransmissions", "spurious_retransmissions",
            "fast_retransmits", "timeouts", "acks_sent", "acks_lost", "delivered_bytes", "completion_time")  # fmt: skip


@pytest.mark.parametrize(
    "forward, ack_loss, reverse, size",
    [
        (Link(loss="bernoulli:p=0.02"), "none", None, None),
        (Link(loss="ge:prr=0.9,mu=0.6"), "independent", None, None),
        (Link(loss="ge:prr=0.97,mu=0.3"), "sync", None, None),
        (Link(rate=2e6, delay=0.05, loss="onoff:good=1.8,bad=0.2", loss_mode="time"), "sync", None, 2_000_000),
        (Link(loss="bernoulli:p=0.01"), "none", Link(rate=1e6, delay=0.02, loss="bernoulli:p=0.05"), None),
    ],
)
def test_single_link_scenario_is_the_single_preset(forward, ack_loss, reverse, size):
    """Scenario(...) and the 'single' network preset give the same numbers (same link names,
    hence the same loss streams)."""
    wl = Workload(duration=30.0, size=size)
    a = run(Scenario(forward=forward, reverse=reverse, ack_loss=ack_loss, workload=wl, seed=7))
    net = presets.single(forward=forward, reverse=reverse, ack_loss=ack_loss, size=size, duration=30.0, seed=7)
    b = run_network(net).flows["flow"]
    for k in COUNTERS:
        assert getattr(a, k) == getattr(b, k), k
    assert a.packets_sent > 100


def test_loss_accepts_models_specs_and_core_models():
    from burstlab.models import GilbertElliottModel

    m = GilbertElliottModel(b=0.04, g=0.36, h_loss=1.0, k_loss=0.0)  # PRR 0.9, μ 0.6
    results = [
        run(Scenario(forward=Link(loss=x), workload=Workload(duration=20.0), seed=3)).packets_sent
        for x in (m, "ge:prr=0.9,mu=0.6", m.to_core())
    ]
    assert len(set(results)) == 1
    with pytest.raises(burstlab.ParameterError, match="loss"):
        run(Scenario(forward=Link(loss=3.5)))


def test_dumbbell_preset_shares_fairly_and_reports_links():
    r = run_network(presets.dumbbell(5, Link(rate=5e6, delay=0.02, buffer=0), duration=120.0))
    assert r.jain_index > 0.95
    b = r.links["bottleneck"]
    assert b.utilisation > 0.97 and b.capacity_bps == 5e6
    assert b.sent <= b.offered and b.queue_drops == b.offered - b.sent - (b.offered - b.sent - b.queue_drops)
    assert 0 < b.queue_delay_p50 <= b.queue_delay_p99 <= b.queue_delay_max
    assert r.aggregate_goodput_bps == pytest.approx(sum(f.goodput_bps for f in r.flows.values()))
    assert [f.name for f in r.flows.values()] == [f"f{k}" for k in range(5)]


def test_cross_traffic_and_fair_share():
    net = presets.dumbbell(2, Link(rate=10e6, delay=0.01, buffer=0), cross_traffic=Cbr(4e6), duration=60.0)
    r = run_network(net)
    assert r.flows["cbr"].kind == "cbr"
    assert r.flows["cbr"].goodput_bps == pytest.approx(4e6, rel=0.02)
    tcp = r.flows["f0"].goodput_bps + r.flows["f1"].goodput_bps
    assert 0.85 * 6e6 * 1000 / 1040 < tcp <= 6e6


def test_wired_wireless_and_satellite_wifi_presets():
    ww = run_network(presets.wired_wireless(rtt=0.1, duration=60.0))
    assert [x.name for x in ww.links.values()] == ["wired", "wired.rev", "wireless", "wireless.rev"]
    assert ww.flows["flow"].goodput_bps > 0.8 * 10e6 * 1000 / 1040 and ww.links["wireless"].utilisation > 0.8
    sw = presets.satellite_wifi(duration=300.0)
    sat = sw.hops[0].forward
    assert (sat.rate, sat.delay, sat.buffer, sat.buffer_unit) == (2e6, 0.3, 150_000, "bytes")
    wifi = sw.hops[1].forward
    assert wifi.link_layer == presets.WIFI_ARQ and (wifi.link_layer.retry_limit, wifi.link_layer.counts) == (7, "attempts")
    r = run_network(sw)
    # The satellite hop is the bottleneck: 2 Mb/s at most, well used over 300 s.
    assert 1.2e6 < r.flows["flow"].goodput_bps <= 2e6
    assert r.links["wifi"].link_layer.dropped == 0 and r.links["wifi"].link_layer.attempts == r.links["wifi"].link_layer.frames
    # Barsocchi et al.'s Ttem: a raw channel trace in 5-ms intervals, asked for each ARQ attempt's
    # interval. Always bad: every frame is dropped at its 7th attempt (dot11ShortRetryLimit).
    bad = _core.LossModel.replay(_core.BitTrace.from_numpy(np.zeros(100, np.uint8)), slot=0.005)
    r = run_network(presets.satellite_wifi(channel=bad, duration=30.0))
    ll = r.links["wifi"].link_layer
    assert ll.frames > 0 and ll.dropped == ll.frames and ll.attempts == 7 * ll.frames and r.flows["flow"].goodput_bps == 0


def test_half_duplex_hop_in_python():
    hop = lambda duplex: Hop("wifi", Link(rate=5e6, delay=0.001, buffer=200), duplex=duplex)  # noqa: E731
    tcp = TcpConfig(delayed_ack=False, ack_bytes=1040)
    full, half = (run_network(Network([hop(d)], [Flow("f", ["wifi"], tcp=tcp)], duration=60.0)) for d in ("full", "half"))
    assert half.flows["f"].goodput_bps == pytest.approx(full.flows["f"].goodput_bps / 2, rel=0.05)


@pytest.mark.skipif(not MAHIMAHI.is_dir(), reason=f"{MAHIMAHI} not found (set BURSTLAB_SHARED)")
def test_mahimahi_capacity_from_a_file():
    path = MAHIMAHI / "Verizon-LTE-short.down"
    ms = np.loadtxt(path, dtype=np.uint64)
    cap = len(ms) * 1500 * 8 / (ms[-1] / 1000)
    net = Network(
        [Hop("cell", Link(capacity=path, delay=0.02, buffer=5000)), Hop("wired", Link(rate=1e9, delay=0.02))],
        [Flow("f", ["wired", "cell"])],
        duration=float(ms[-1]) / 1000,
    )
    r = run_network(net)
    cell = r.links["cell"]
    assert cell.capacity_bps == pytest.approx(cap)
    wire = cell.bytes_sent * 8 / r.end_time
    assert 0.9 * cap <= wire <= cap * 1.001
    # The same schedule given as an array.
    arr = dataclasses.replace(net, hops=[Hop("cell", Link(capacity=ms, delay=0.02, buffer=5000)), net.hops[1]])
    assert run_network(arr).flows["f"].goodput_bps == r.flows["f"].goodput_bps


def test_per_packet_log_agrees_with_the_counters():
    net = presets.chain(2, Link(rate=4e6, delay=0.01, buffer=20, loss="bernoulli:p=0.01"), flows=2, duration=20.0, log=True)
    r = run_network(net)
    log = r.log
    assert set(log) == {"time", "event", "kind", "flow", "link", "seg", "to", "retx", "sent_time"}
    n = len(log["time"])
    assert all(len(v) == n for v in log.values())
    assert np.all(np.diff(log["time"]) >= 0)
    for k, f in enumerate(r.flows.values()):
        mine = (log["flow"] == k) & (log["kind"] == LOG_KINDS.index("data"))
        sent = np.count_nonzero(mine & (log["event"] == LOG_EVENTS.index("sent")))
        lost = np.count_nonzero(mine & np.isin(log["event"], [LOG_EVENTS.index("lost"), LOG_EVENTS.index("dropped")]))
        assert (sent, lost) == (f.packets_sent, f.packets_lost)
        dl = mine & (log["event"] == LOG_EVENTS.index("delivered"))
        # Deliveries are contiguous from segment 0: no byte delivered twice or skipped.
        assert np.array_equal(log["seg"][dl][1:], log["to"][dl][:-1]) and log["seg"][dl][0] == 0
        assert log["to"][dl][-1] == f.delivered_segments
    assert run_network(dataclasses.replace(net, log=False)).log is None


def test_on_off_and_start_stop_through_python():
    oo = Flow("oo", ["l"], on_off=OnOff(2.0, 2.0))
    late = Flow("late", ["l"], start=30.0, stop=50.0)
    r = run_network(Network([Hop("l", Link(rate=10e6, delay=0.01))], [oo, late], duration=100.0))
    assert r.flows["late"].duration == pytest.approx(70.0)
    assert r.flows["oo"].goodput_bps < 0.75 * 9.6e6


# ---- scenario files -------------------------------------------------------------------

EXAMPLE = """
duration = "20s"
seed = 3

[[hop]]
name = "access"
rate = "100Mbit"
delay = "5ms"

[[hop]]
name = "bottleneck"
rate = "10Mbit"
delay = "20ms"
buffer = 60
loss = "bernoulli:p=0.001"
[hop.reverse]
rate = "1Mbit"

[[flow]]
name = "a"
path = ["access", "bottleneck"]
tcp = "newreno"

[[flow]]
name = "b"
path = ["bottleneck"]
size = "2MB"
[flow.tcp]
variant = "sack"
rto_min = "200ms"

[[flow]]
name = "udp"
path = ["bottleneck"]
cbr = "1Mbit"
packet_bytes = 500
"""


def test_scenario_file_builds_the_same_network_as_python():
    net = parse_scenario(EXAMPLE, "example.toml")
    same = Network(
        [
            Hop("access", Link(rate=100e6, delay=0.005)),
            Hop("bottleneck", Link(rate=10e6, delay=0.02, buffer=60, loss=_core.LossModel.bernoulli(0.001)), reverse=Link(rate=1e6)),
        ],
        [
            Flow("a", ["access", "bottleneck"], tcp=TcpConfig(variant="newreno")),
            Flow("b", ["bottleneck"], tcp=TcpConfig(variant="sack", rto_min=0.2), size=2_000_000),
            Flow("udp", ["bottleneck"], cbr=Cbr(1e6, 500)),
        ],
        duration=20.0,
        seed=3,
    )
    assert net.config() == same.config()
    assert run_network(net).to_dict() == run_network(same).to_dict()


def _line(text: str, fragment: str) -> int:
    """The 1-based line of ``text`` holding ``fragment``."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize(
    "old, new, key, message",
    [
        ('rto_min = "200ms"', 'rto_mn = "200ms"', "rto_mn", r"unknown key 'rto_mn' in \[\[flow\]\] #2 tcp"),
        ("buffer = 60", "bufer = 60", "bufer", r"unknown key 'bufer' in \[\[hop\]\] #2"),
        ('path = ["bottleneck"]\nsize', 'path = ["botleneck"]\nsize', "botleneck", r"no hop named 'botleneck'"),
        ('rate = "10Mbit"', 'rate = "fast"', "fast", r"invalid parameter hop.rate = 'fast'"),
        ("seed = 3", "seed = 3\nspeed = 1", "speed", r"unknown key 'speed' in the top level"),
        ('cbr = "1Mbit"', 'cbr = "1Mbit"\ntcp = "reno"', "cbr =", r"give tcp or cbr"),
    ],
)
def test_scenario_file_errors_name_the_line_and_key(old, new, key, message):
    text = EXAMPLE.replace(old, new)
    with pytest.raises(burstlab.ParameterError, match=rf"^example.toml:{_line(text, key)}: .*{message}"):
        parse_scenario(text, "example.toml")


def test_scenario_file_syntax_errors_say_where():
    with pytest.raises(burstlab.ParameterError, match=r"example.toml: not valid TOML.*line"):
        parse_scenario(EXAMPLE + "[[flow\n", "example.toml")


def test_scenario_file_presets_and_relative_capacity(tmp_path):
    (tmp_path / "sc.toml").write_text(
        'duration = "30s"\n[preset]\nname = "dumbbell"\nn = 3\naccess_delay = ["1ms", "5ms", "10ms"]\n'
        '[preset.bottleneck]\nrate = "5Mbit"\ndelay = "10ms"\nbuffer = 30\n'
    )
    net = load_scenario(tmp_path / "sc.toml")
    assert [h.name for h in net.hops] == ["bottleneck", "access0", "access1", "access2"]
    assert net.hops[2].forward.delay == 0.005 and net.duration == 30.0
    (tmp_path / "trace.down").write_text("0\n0\n1\n2\n")
    (tmp_path / "cell.toml").write_text(
        'duration = "5s"\n[[hop]]\nname = "cell"\ncapacity = "trace.down"\ndelay = "10ms"\n[[flow]]\nname = "f"\npath = ["cell"]\n'
    )
    r = run_network(load_scenario(tmp_path / "cell.toml"))
    # 4 opportunities every 2 ms of 1500 B: 24 Mb/s.
    assert r.links["cell"].capacity_bps == pytest.approx(24e6)
    assert r.flows["f"].goodput_bps > 0.5 * 24e6 * 1000 / 1040
    # satellite_wifi's raw Wi-Fi channel: a loss spec (a Ttem trace replayed in 5-ms slots).
    (tmp_path / "ch.ttem").write_text("0\n1\n" * 50)
    (tmp_path / "sw.toml").write_text('[preset]\nname = "satellite_wifi"\nchannel = "replay:file=%s,slot=0.005"\n' % (tmp_path / "ch.ttem"))
    wifi = load_scenario(tmp_path / "sw.toml").hops[1].forward
    assert wifi.loss_mode == "time" and wifi.link_layer is not None and wifi.loss.name == "replay-time"
    (tmp_path / "sw.toml").write_text('[preset]\nname = "satellite_wifi"\nchannel = "nonsense:p=1"\n')
    with pytest.raises(burstlab.ParameterError, match=r"sw.toml:3: channel = 'nonsense:p=1'"):
        load_scenario(tmp_path / "sw.toml")


def test_scenario_file_through_the_cli(tmp_path, capsys):
    from burstlab.cli import main

    p = tmp_path / "ex.toml"
    p.write_text(EXAMPLE)
    assert main(["sim", str(p)]) == 0
    out = capsys.readouterr().out
    assert "bottleneck.rev" in out and "Jain's index" in out and "None" not in out
    assert main(["sim", str(p), "--json", "--seed", "4"]) == 0
    import json

    d = json.loads(capsys.readouterr().out)
    assert d["config"]["seed"] == 4 and len(d["flows"]) == 3
    assert main(["sim", str(p), "--rate", "5Mbit"]) == 2
    assert "only --seed, --seeds, --plot, --log, --workers, --max-events and --json go with it" in capsys.readouterr().err
    text = EXAMPLE.replace("buffer = 60", "bufer = 60")
    p.write_text(text)
    assert main(["sim", str(p)]) == 2
    assert capsys.readouterr().err == f"error: {p}:{_line(text, 'bufer')}: unknown key 'bufer' in [[hop]] #2 " + (
        "(known: ack_loss, buffer, buffer_unit, capacity, codel_ecn, codel_interval, codel_mtu, codel_target, delay, duplex, "
        "fq_codel_drop_batch, fq_codel_flows, fq_codel_quantum, link_layer, loss, loss_mode, loss_window, medium, name, "
        "opportunity_bytes, queue, rate, red_ecn, red_gentle, red_hard_drop, red_max_p, red_max_th, red_mean_packet_bytes, "
        "red_min_th, red_wait, red_weight, reverse, reverse_name)\n"
    )


@pytest.mark.parametrize(
    "net, message",
    [
        (Network([Hop("a")], [Flow("f", ["b"])]), "no hop named 'b'"),
        (Network([Hop("a"), Hop("a")], [Flow("f", ["a"])]), "hop name = 'a'"),
        (Network([Hop("a", ack_loss="sync")], [Flow("f", ["a"])]), "no loss model to share"),
        (Network([Hop("a")], [Flow("f", ["a"]), Flow("f", ["a"])]), "flow name"),
        (Network([Hop("a")], [Flow("f", "a")]), "list of hop names"),
        (Network([Hop("a")], [Flow("f", ["a"], start=200.0)]), "start"),
        (Network([Hop("a", Link(capacity=[]))], [Flow("f", ["a"])]), "capacity"),
        (Network([Hop("a", Link(capacity=[0, 0]))], [Flow("f", ["a"])]), "capacity trace"),
    ],
)
def test_network_errors(net, message):
    with pytest.raises(burstlab.BurstlabError, match=message):
        run_network(net)


def test_capacity_needs_a_network():
    with pytest.raises(burstlab.ParameterError, match="needs a network"):
        run(Scenario(forward=Link(capacity=[1])))


# ---- properties -----------------------------------------------------------------------

rates = st.sampled_from([0.5e6, 2e6, 10e6, 50e6])


@st.composite
def networks(draw):
    nh = draw(st.integers(1, 4))
    hops = []
    for k in range(nh):
        loss = draw(st.sampled_from([None, "bernoulli:p=0.02", "ge:prr=0.9,mu=0.5"]))
        link = Link(rate=draw(rates), delay=draw(st.integers(0, 30)) / 1000, buffer=draw(st.integers(2, 100)), loss=loss,
                    loss_mode=draw(st.sampled_from(["packet", "time"])))  # fmt: skip
        hops.append(Hop(f"h{k}", link, duplex=draw(st.sampled_from(["full", "half"]))))
    flows = []
    for k in range(draw(st.integers(1, 5))):
        a = draw(st.integers(0, nh - 1))
        b = draw(st.integers(a, nh - 1))
        path = [f"h{i}" for i in range(a, b + 1)]
        if draw(st.booleans()) and k > 0:
            flows.append(Flow(f"u{k}", path, cbr=Cbr(draw(st.sampled_from([0.1e6, 0.5e6])))))
        else:
            tcp = TcpConfig(variant=draw(st.sampled_from(["tahoe", "reno", "newreno", "sack"])), rto_min=0.2)
            flows.append(Flow(f"f{k}", path, tcp=tcp, start=draw(st.integers(0, 2)) * 1.0))
    return Network(hops, flows, duration=draw(st.integers(3, 10)) * 1.0, seed=draw(st.integers(0, 2**32)), log=True)


@pytest.mark.filterwarnings("ignore::burstlab.sim.LossModeWarning")  # time mode with per-packet models is drawn on purpose
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_properties_of_random_networks(net):
    """No link carries more than its capacity, no byte is delivered twice, every flow's
    goodput ≤ its bottleneck, and a rerun is identical."""
    r = run_network(net)
    hops = {h.name: h for h in net.hops}
    for h in net.hops:
        f, b = r.links[h.name], r.links[h.name + ".rev"]
        used = f.utilisation + (b.utilisation if h.duplex == "half" else 0.0)
        assert used <= 1 + 1e-9
        assert f.bytes_sent * 8 <= h.forward.rate * r.end_time + 4 * 8 * 1040
    log = r.log
    for k, (flow, res) in enumerate(zip(net.flows, r.flows.values())):
        bottleneck = min(hops[p].forward.rate for p in flow.path)
        share = 1.0 if flow.cbr is not None else 1000 / 1040
        assert res.goodput_bps <= bottleneck * share * (1 + 1e-9)
        if flow.cbr is None:
            dl = (log["flow"] == k) & (log["event"] == LOG_EVENTS.index("delivered"))
            segs, tos = log["seg"][dl], log["to"][dl]
            assert np.all(tos > segs) and np.array_equal(segs[1:], tos[:-1])
            assert res.spurious_retransmissions <= res.retransmissions
    assert run_network(net).to_dict() == r.to_dict()




def test_run_network_seeds_is_run_network_per_seed():
    """The batch of seeds gives what one run per seed gives: every flow's and link's numbers,
    the configuration and its hash — on a lossy, bursty two-hop network with ACK losses."""
    from burstlab.models import GilbertElliottModel
    from burstlab.sim import run_network_seeds

    lossy = Link(rate=2e6, delay=0.01, buffer=20, loss=GilbertElliottModel(b=0.04, g=0.36, h_loss=1.0, k_loss=0.0))
    net = Network([Hop("access", Link(rate=10e6, delay=0.002)), Hop("air", lossy, ack_loss="sync")],
                  [Flow("a", ["access", "air"], tcp=TcpConfig(variant="sack")), Flow("b", ["air"], size=200_000)], duration=8.0)  # fmt: skip
    seeds = [3, 1, 2**40 + 7]
    batch = run_network_seeds(net, seeds)
    assert len(batch) == 3
    for s, b in zip(seeds, batch, strict=True):
        one = run_network(dataclasses.replace(net, seed=s))
        assert b.config == one.config and b.config["seed"] == s
        assert b.config_hash == one.config_hash
        assert b.to_dict() == one.to_dict()
    assert len({b.config_hash for b in batch}) == 3  # the seed is part of the hash
    assert batch[0].flows["a"].packets_lost != batch[1].flows["a"].packets_lost or batch[0].events != batch[1].events
    with pytest.raises(burstlab.ParameterError, match="seed"):
        run_network_seeds(net, ["x"])
