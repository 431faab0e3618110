"""What grows with a run's length (benchmarks/scale_audit.py; docs/simulator.md "Runs that
depend on their length"): the time series and the per-packet log a run records are counted
by its memory estimate before it starts, so that a long recorded run within the work budget
is refused with one ``error:`` line under the 4 GiB cap instead of aborting in the allocator
(exit 134: ``--duration 70000s --no-delayed-ack --series`` did); and the model behaviours
whose goodput depends on the run's length by design, pinned with their mechanism and the
settings that make them stationary."""

from __future__ import annotations

from pathlib import Path

import pytest

import burstlab.sim as sim
from burstlab.sim import Link, Scenario, TcpConfig, Workload
from tests._capped import CPU_LIMIT_S, assert_result_or_error, run_capped


@pytest.mark.parametrize(
    ("flag", "what"),
    [("--series", "the run's time series would grow"), ("--log", "per-packet log would grow")],
)
def test_a_long_recorded_run_is_refused_before_it_starts(tmp_path: Path, flag: str, what: str) -> None:
    out = tmp_path / ("out.npz" if flag == "--series" else "out.parquet")
    o = run_capped(["sim", "--duration", "70000s", "--no-delayed-ack", flag, str(out)])
    assert_result_or_error(o, expect=2, contains=what)
    assert "shorten the run" in o.stderr and o.stderr.count("out of memory") == 1, o.stderr
    assert not out.exists()
    assert o.cpu_seconds < CPU_LIMIT_S


def test_a_short_recorded_run_keeps_every_row(tmp_path: Path) -> None:
    out = tmp_path / "s.npz"
    o = run_capped(["sim", "--duration", "20s", "--no-delayed-ack", "--series", str(out)])
    assert_result_or_error(o, expect=0)
    import numpy as np

    with np.load(out) as z:
        n = len(z[next(k for k in z.files if k.endswith("time"))])
    # a row per ACK at least: ~1200 segments/s acknowledged one by one for 20 s
    assert n > 20 * 1000


def _second_half(tcp: TcpConfig, link: Link, duration: float, seed: int = 3) -> float:
    """Goodput (bit/s) of the second half of a ``duration`` run."""
    sc = Scenario(tcp=tcp, forward=link, workload=Workload(duration=duration, warmup=duration / 2), seed=seed)
    return sim.run(sc, max_events=0).goodput_bps


def test_bbr_under_the_strict_rfc_timer_waits_in_backed_off_timeouts() -> None:
    # docs/simulator.md "Runs that depend on their length": BBR's window ignores losses, a
    # lost retransmission is found only by a timeout (RFC 6675 without RACK), and the ACKs
    # that then advance only cover retransmitted holes: no RTT sample (Karn), the backoff
    # never undone. A property of those rules together, kept; each remedy makes it stationary.
    link = Link(rate=100e6, delay=0.01, buffer=1000, loss="bernoulli:p=0.01")
    strict = TcpConfig(variant="bbr")
    assert _second_half(strict, link, 10) > 0.8 * link.rate
    assert _second_half(strict, link, 80) < 0.1 * link.rate
    r = sim.run(Scenario(tcp=strict, forward=link, workload=Workload(duration=80), seed=3, series=True), max_events=0)
    assert r.series["rto"].max() >= 16.0  # backed off four times and more, never reset
    for remedy in ({"rto_backoff_reset": "new_ack"}, {"timestamps": True}, {"rack_lost_retransmissions": True}):
        assert _second_half(TcpConfig(variant="bbr", **remedy), link, 80) > 0.8 * link.rate, remedy
    # BBR v3 (which reacts only to loss rates above 2 %) the same, on a longer run
    assert _second_half(TcpConfig(variant="bbr3"), link, 160) < 0.1 * link.rate
    assert _second_half(TcpConfig(variant="bbr3", rto_backoff_reset="new_ack"), link, 160) > 0.2 * link.rate
    # a loss-based window is cut by the losses first: NewReno's halves stay alike
    reno = TcpConfig(variant="newreno")
    assert 0.7 < _second_half(reno, link, 80) / _second_half(reno, link, 20) < 1.4


def test_without_backoff_stale_copies_behind_a_slow_link_slow_every_later_segment() -> None:
    # 8 kbit/s: a packet takes 1.04 s, longer than the 200 ms timer; without backoff each
    # timeout queues another copy of the segment in service, and new data waits behind them
    link = Link(rate=8000, delay=0.01, buffer=10**15)
    no_backoff = TcpConfig(rto_backoff=False, rto_min=0.2)
    first = sim.run(Scenario(tcp=no_backoff, forward=link, workload=Workload(duration=1000), seed=3), max_events=0)
    second = _second_half(no_backoff, link, 2000)
    assert second < 0.5 * first.goodput_bps
    assert first.timeouts > 100 and first.goodput_bps < 0.1 * link.rate
    # with RFC 6298's backoff the timer outgrows the packet time: stationary, near the rate
    backoff = TcpConfig(rto_min=0.2)
    assert _second_half(backoff, link, 2000) > 0.85 * link.rate


def test_a_long_runs_figure_draws_what_its_pixels_show() -> None:
    # A run's series has a row per ACK: 10^6 rows drew 10^6-point lines (3000 simulated
    # seconds at 10 Mb/s took 3.5 GB and 14 s for one figure). Thinned: bounded, and each
    # span of time keeps its extremes, so the drawn envelope is the series'.
    import numpy as np

    from burstlab.plot import DRAW_POINTS, fig_transfer
    from burstlab.sim.network import LOG_EVENTS, LOG_KINDS

    n = 1_000_000
    rng = np.random.default_rng(1)
    t = np.sort(rng.uniform(0, 3000, n))
    cwnd = (np.abs(np.cumsum(rng.normal(0, 1000, n))) + 1000).astype(np.uint64)
    series = {"time": t, "cwnd": cwnd, "ssthresh": np.full(n, 2**64 - 1, dtype=np.uint64), "srtt": rng.uniform(0.02, 0.03, n),
              "rto": rng.uniform(0.2, 60, n), "snd_una": np.arange(n, dtype=np.uint64) * 1000, "snd_nxt": np.arange(n, dtype=np.uint64) * 1000 + 5000}  # fmt: skip
    sent = {"time": t, "event": np.full(n, LOG_EVENTS.index("sent")), "kind": np.full(n, LOG_KINDS.index("data")),
            "flow": np.zeros(n, dtype=np.int64), "link": np.zeros(n, dtype=np.int64), "seg": np.arange(n), "retx": np.zeros(n, dtype=bool)}  # fmt: skip
    for log in (None, sent):
        fig = fig_transfer(series, 1000, "t", log=log)
        for ax in fig.axes:
            for line in ax.get_lines():
                assert len(line.get_xdata()) <= DRAW_POINTS, (line.get_label(), len(line.get_xdata()))
        w = {ln.get_label(): np.asarray(ln.get_ydata()) for ln in fig.axes[0].get_lines()}
        assert w["cwnd"].max() == cwnd.max() / 1000 and w["cwnd"].min() == cwnd.min() / 1000
        r = {ln.get_label(): np.asarray(ln.get_ydata()) for ln in fig.axes[1].get_lines()}
        assert r["RTO"].max() == series["rto"].max() and np.nanmin(r["SRTT"]) == series["srtt"].min()
    s = {ln.get_label(): ln for ln in fig.axes[2].get_lines()}
    x = np.asarray(s["sent"].get_xdata())
    assert x.min() == t.min() and x.max() == t.max()  # the whole run is still drawn


def test_the_mean_queueing_delay_of_a_long_run_does_not_wrap() -> None:
    # A lossless flow into an unbounded buffer never leaves slow start: its queueing delay
    # grows linearly, to 4000 s by 8000 s. The delays' sum passed 2^64 ns and the mean,
    # read from it, wrapped: 721 s reported for a median of 2010 s. The bins now tell the
    # wraps apart.
    from burstlab.sim import presets, run_network

    r = run_network(presets.single(forward=Link(rate=10e6, delay=0.01, buffer=10**15), duration=8000.0), max_events=0)
    q = r.links[0]
    assert q.queue_delay_max > 3900
    assert abs(q.queue_delay_mean / (q.queue_delay_max / 2) - 1) < 0.01  # a ramp's mean is half its end
    assert abs(q.queue_delay_mean / q.queue_delay_p50 - 1) < 0.03
