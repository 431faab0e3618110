"""What grows with a run's length (benchmarks/scale_audit.py; docs/simulator.md "Runs that
depend on their length"): the time series and the per-packet log a run records are counted
by its memory estimate before it starts, so that a long recorded run within the work budget
is refused with one ``error:`` line under the 4 GiB cap instead of aborting in the allocator
(exit 134: ``--duration 70000s --no-delayed-ack --series`` did)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
