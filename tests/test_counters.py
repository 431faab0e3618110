"""Every counter of a run is consistent with every other (issue 34, item 7), over random
scenarios, with and without a warm-up: lost ≤ sent, delivered ≤ sent, retransmissions ≤
sent, ACKs lost ≤ ACKs sent, and goodput ≤ the bottleneck's rate. With a warm-up a packet
counts in the measured window only if it was sent in it (docs/simulator.md "Warm-up"):
before, a packet sent during the warm-up and lost after it made ``packets_lost`` 2 >
``packets_sent`` 0."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import burstlab.sim as s
from burstlab.lossspec import parse_loss_spec
from burstlab.sim import presets

EXAMPLES = int(os.environ.get("BURSTLAB_FUZZ_EXAMPLES", "150"))
PROPS = settings(max_examples=max(30, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

VARIANTS = ["tahoe", "reno", "newreno", "sack", "westwood", "tibet", "ideal", "vegas", "cubic", "linux-reno", "lt-tcp"]
LOSSES = ["none", "bernoulli:p=0.02", "bernoulli:p=0.3", "ge:prr=0.7,mu=0.5", "ge:prr=0.9,mu=0.8"]


def check(r: object, bottleneck_bps: float, what: str) -> None:
    c = vars(r)
    assert c["packets_lost"] <= c["packets_sent"], (what, c)
    assert c["channel_losses"] + c["queue_drops"] == c["packets_lost"], (what, c)
    assert c["delivered_segments"] <= c["packets_sent"], (what, c)
    assert c["retransmissions"] <= c["packets_sent"], (what, c)
    assert c["spurious_retransmissions"] <= c["retransmissions"], (what, c)
    assert c["acks_lost"] <= c["acks_sent"], (what, c)
    assert 0 <= c["goodput_bps"] <= bottleneck_bps * (1 + 1e-9), (what, c["goodput_bps"], bottleneck_bps)


@PROPS
@given(
    variant=st.sampled_from(VARIANTS),
    loss=st.sampled_from(LOSSES),
    ack_loss=st.sampled_from(["none", "independent", "sync"]),
    rate=st.sampled_from([1e5, 1e6, 1e7]),
    delay=st.sampled_from([0.001, 0.01, 0.1]),
    buffer=st.sampled_from([1, 5, 100]),
    duration=st.sampled_from([0.05, 0.3, 2.0]),
    warm=st.sampled_from([0.0, 0.02, 0.3, 0.7]),
    size=st.sampled_from([None, None, 1, 1000, 50_000]),
    seed=st.integers(1, 10**6),
)
def test_single_link_counters_are_consistent(variant: str, loss: str, ack_loss: str, rate: float, delay: float, buffer: int,
                                              duration: float, warm: float, size: int | None, seed: int) -> None:  # fmt: skip
    if loss == "none":
        ack_loss = "none"
    link = s.Link(rate=rate, delay=delay, buffer=buffer, loss=parse_loss_spec(loss))
    wl = s.Workload(duration=duration, warmup=warm * duration, size=size)
    r = s.run(s.Scenario(tcp=s.TcpConfig(variant=variant), forward=link, ack_loss=ack_loss, workload=wl, seed=seed))
    check(r, rate, f"{variant} {loss} warmup={warm * duration}")


@PROPS
@given(
    n=st.integers(1, 6),
    rate=st.sampled_from([1e6, 1e7]),
    loss=st.sampled_from(LOSSES),
    warm=st.sampled_from([0.0, 0.1, 0.5]),
    cbr=st.sampled_from([None, 2e5, 5e6]),
    chain=st.booleans(),
    seed=st.integers(1, 10**6),
)
def test_network_counters_are_consistent(n: int, rate: float, loss: str, warm: float, cbr: float | None, chain: bool, seed: int) -> None:
    duration = 2.0
    link = s.Link(rate=rate, delay=0.01, buffer=20, loss=parse_loss_spec(loss))
    if chain:
        net = presets.chain(hops=3, link=link, flows=n, duration=duration, warmup=warm * duration, seed=seed)
    else:
        net = presets.dumbbell(n, bottleneck=link, cross_traffic=None if cbr is None else s.Cbr(cbr),
                               duration=duration, warmup=warm * duration, seed=seed)  # fmt: skip
    r = s.run_network(net)
    for f in r.flows.values():
        if f.kind == "tcp":
            check(f, rate, f"flow {f.name}")
        else:
            assert f.packets_lost <= f.packets_sent and f.delivered_segments <= f.packets_sent, vars(f)
