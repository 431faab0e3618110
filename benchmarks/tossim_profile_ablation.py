"""What each setting of the `tossim` TCP profile does to the PRR/μ study's throughputs
(issue 12; reasoning in docs/study.md).

Adds the profile's settings one at a time, starting from the RFC behaviour (RFC 6298 timer
with backoff, RFC 6582 careful NewReno), and prints for each step: goodput on Bernoulli links
of PRR 0.2-0.95 (100,000 slots of 10 ms, Mirage timers) and, on the built-in synthetic
testbed's links with PRR 0.30-0.40, each link's goodput, the mean over independent twins and
the difference (Srinivasan et al. §4 report 2-14 packets/s and differences of 20-320 % there).

    python benchmarks/tossim_profile_ablation.py [--seeds 3] [--sender-queue radio|fifo]
"""

from __future__ import annotations

import argparse

import numpy as np

from burstlab._core import LossModel
from burstlab.datasets.synthetic import synthetic_testbed
from burstlab.sim import TcpConfig, run_trace
from burstlab.stats import trace_stats
from burstlab.traces import Trace

SLOT = 0.01
RFC = dict(max_cwnd=130, ack_timeout=0.3, rto_min=1.0, rto_max=60.0, rto_initial=1.0)
T793 = dict(rto_estimator="rfc793", rto_backoff=False)
STEPS = [
    ("A  RFC (RFC 6298 + backoff, RFC 6582)", {}),
    ("B  + RFC 793 timer, no backoff", T793),
    ("C  B + receiver idle ACKs", {**T793, "ack_on_idle": True}),
    ("D  B + fast retransmit after timeout", {**T793, "fast_retransmit_after_timeout": True}),
    ("E  C + fast retransmit after timeout", {**T793, "ack_on_idle": True, "fast_retransmit_after_timeout": True}),
    ("F  E + Slow-but-Steady (= tossim)", {**T793, "ack_on_idle": True, "fast_retransmit_after_timeout": True, "partial_ack_timer": "every"}),
    ("G  F with RFC 6298's estimator", {"rto_backoff": False, "ack_on_idle": True, "fast_retransmit_after_timeout": True, "partial_ack_timer": "every"}),
    ("H  F with exponential backoff", {**T793, "rto_backoff": True, "ack_on_idle": True, "fast_retransmit_after_timeout": True, "partial_ack_timer": "every"}),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3, help="independent twins per testbed link")
    ap.add_argument("--sender-queue", default="radio", choices=("radio", "fifo"), help="the slotted sender's queue (docs/study.md)")
    a = ap.parse_args()
    assert TcpConfig(**{**RFC, **STEPS[5][1]}) == TcpConfig.tossim(), "step F must be the tossim profile"
    band = []
    for t in synthetic_testbed(60, 100_000, 2009, SLOT):
        st = trace_stats(t, warn=False)
        if st.prr is not None and 0.30 <= st.prr <= 0.40:
            band.append((t, st))
    prrs = (0.2, 0.35, 0.5, 0.7, 0.9, 0.95)
    print(f"{'step':40s} Bernoulli PRR " + " ".join(f"{p:>5}" for p in prrs) + "  | testbed PRR 0.30-0.40: link/independent pkt/s (difference)")
    for label, kw in STEPS:
        tcp = TcpConfig(**{**RFC, **kw})
        bern = [run_trace(Trace(LossModel.bernoulli(1 - p).sample(100_000, 3)), slot=SLOT, tcp=tcp, sender_queue=a.sender_queue).goodput_pps for p in prrs]
        cells = []
        for t, st in band:
            emp = run_trace(t, slot=SLOT, tcp=tcp, sender_queue=a.sender_queue).goodput_pps
            ind = float(np.mean([run_trace(Trace(LossModel.bernoulli(1 - st.prr).sample(len(t), s)), slot=SLOT, tcp=tcp, sender_queue=a.sender_queue).goodput_pps for s in range(a.seeds)]))
            cells.append(f"{t.meta.get('kind', '?')[:5]} {emp:.2f}/{ind:.2f} ({100 * (emp - ind) / ind:+.0f}%)" if ind > 0 else f"{emp:.2f}/0")
        print(f"{label:40s} {'':14s}" + " ".join(f"{x:5.1f}" for x in bern) + "  | " + "; ".join(cells))


if __name__ == "__main__":
    main()
