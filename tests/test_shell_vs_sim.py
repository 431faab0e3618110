"""benchmarks/shell_vs_sim.py measures the kernel's goodput as the simulator does: the bytes
delivered by ``secs`` after the first send, over ``secs`` (docs/shell.md, "The kernel against
the simulator"). The receiver's timeline is checked everywhere; a kernel run through a shell
where the machine allows it (root, /dev/net/tun, iproute2)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import shell_vs_sim  # noqa: E402
from shell_accuracy import bytes_by  # noqa: E402

CAN_SHELL = os.geteuid() == 0 and os.path.exists("/dev/net/tun") and shutil.which("ip") is not None


def test_bytes_by_counts_what_was_read_by_the_deadline() -> None:
    out = {"times": [1.0, 2.0, 2.5, 4.0], "bytes": [100, 300, 450, 1000]}
    assert bytes_by(out, 0.5) == 0
    assert bytes_by(out, 1.0) == 100  # a read at the deadline counts
    assert bytes_by(out, 2.4) == 300
    assert bytes_by(out, 3.9) == 450
    assert bytes_by(out, 9.0) == 1000


def _run(goodput: float, window: bool) -> dict:
    kernel = {"goodput": goodput, "lost_keys": {c: [] for c in ("flow", "kind", "num", "tx")}}
    if window:
        kernel["window"] = True
    return {"seed": 1, "kernel": kernel, "logged": 0, "lost_at": []}


def test_runs_measured_two_ways_are_not_pooled() -> None:
    cell = {"cc": "reno", "channel": "bernoulli 1 %", "spec": "bernoulli:p=0.01", "link_layer": None, "secs": 1.0,
            "runs": [_run(5e6, True), _run(2e6, False)]}  # fmt: skip
    with pytest.raises(SystemExit, match="cannot be pooled"):
        shell_vs_sim.summarise(cell, [1])


@pytest.mark.skipif(not CAN_SHELL, reason="burstlab shell needs root, /dev/net/tun and iproute2 here")
def test_kernel_goodput_is_over_the_window() -> None:
    # Bernoulli 5 % for 3 s: the window's goodput is at most the link's payload rate, and
    # the losses counted are those of the window's data segments, fewer than the whole run's
    k = shell_vs_sim._kernel("reno", "bernoulli:p=0.05", None, seed=3, secs=3.0)
    assert k["window"] is True
    assert 0.3e6 < k["goodput"] <= 10e6 * 1448 / 1500
    whole = sum(1 for kind in k["lost_keys"]["kind"] if kind == 0)
    assert 0 < k["lost_in_window"] <= whole
