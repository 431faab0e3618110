"""benchmarks/shell_trace.py's readings of a run (docs/shell.md, "The kernel against the
simulator on the same channel"): ACKs per data segment and windows at each fast recovery, on
known inputs and on the simulator's own log (Linux's quick-ACK mode, ``quickack``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import shell_trace as T  # noqa: E402
from burstlab.sim import Link, TcpConfig  # noqa: E402
from burstlab.sim.network import Flow, Hop, Network, run_network  # noqa: E402


def test_arrivals_per_ack_and_segments_alone() -> None:
    arrivals = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert T.arrivals_per_ack(arrivals, np.array([0.5, 2.5, 4.5])).tolist() == [1, 2, 2]
    assert T.arrivals_per_ack(arrivals, np.array([0.0, 0.1])).tolist() == [1, 0]
    # in order with nothing held: 0, 1, then 4 and 5 after the hole 2-3 filled; not 3 (out of
    # order), 2 (fills the hole while 3 is held), the duplicate 1
    seg = np.array([0, 1, 3, 2, 1, 4, 5])
    assert T.in_order_alone(seg).tolist() == [True, True, False, False, False, True, True]


def test_ack_summary_counts_segments_acknowledged_alone() -> None:
    arrivals, seg = np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([0, 1, 2, 3, 4])
    text = T.ack_summary(arrivals, seg, np.array([0.1, 1.1, 3.1, 4.1]), first=10)
    assert text.startswith("1121\n")
    assert "4 ACKs; of those after an in-order segment with no hole, 3 of 4 acknowledge it alone" in text


def test_recoveries_and_what_was_gained_between() -> None:
    mss = T.S.MSS
    series = {"time": np.arange(8.0), "state": np.array([0, 0, 3, 3, 0, 0, 3, 0]),
              "cwnd": np.array([10, 20, 14, 14, 14, 18, 12, 12]) * float(mss)}  # fmt: skip
    rec = T.recoveries_sim(series)
    assert rec == [(2.0, 20.0, None, None), (6.0, 18.0, 4.0, 14.0)]
    text = T.epoch_summary(rec)
    assert "2 recoveries, window at entry mean 19.0" in text and "4.00 segments gained" in text and "(2.0 per s)" in text


def test_the_linux_receiver_acknowledges_its_first_16_segments_alone() -> None:
    # no loss: the linux profile's receiver acknowledges its first 16 segments one by one
    # (quick-ACK mode), then every second one; the rfc profile's every second one from the start
    def pattern(profile: str) -> str:
        tcp = TcpConfig.profile(profile, cc="cubic", mss=T.S.MSS)
        hop = Hop(name="path", forward=Link(rate=10e6, delay=0.01, buffer=100), reverse=Link(rate=10e6, delay=0.01, buffer=100))
        r = run_network(Network(hops=[hop], flows=[Flow(name="bulk", path=["path"], tcp=tcp)], duration=0.3, seed=1, log=True))
        arrivals, seg, acks = T.sim_acks(r.log)
        return "".join(str(int(n)) for n in T.arrivals_per_ack(arrivals, acks)[:24])

    assert TcpConfig.profile("linux").quickack == 16 and TcpConfig.profile("rfc").quickack == 0
    assert pattern("linux") == "1" * 16 + "2" * 8
    assert pattern("rfc").startswith("2" * 8)
