"""Progress on stderr (issue 32): plain lines with the rate and the time left when stderr is
not a terminal (nothing animated), for the studies' figures, for inputs read one by one and
for a batch of ``burstlab sim`` runs; nothing when progress is off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from burstlab import sweep
from burstlab.cli import runs as simcli
from burstlab.experiments.common import draw_figures


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_plain_lines_give_rate_and_time_left(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(sweep.time, "perf_counter", clock)
    out = []
    for k, x in enumerate(sweep.iter_progress(range(8), 8, "links read", True, unit="links"), 1):
        clock.t = 2.0 * k
        out.append(x)
    assert out == list(range(8))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "links read: 2/8 links, 4.0 s (0.5/s, ~12 s left)"
    assert lines[-1] == "links read: 8/8 links, 16.0 s (0.5/s)" and len(lines) == 4


def test_a_slow_quarter_still_reports(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A line also every EVERY_S seconds between quarters: a quarter of a long input can take minutes."""
    clock = Clock()
    monkeypatch.setattr(sweep.time, "perf_counter", clock)
    for k, _ in enumerate(sweep.iter_progress(range(100), 100, "x", True), 1):
        clock.t = 11.0 * k
        if k == 3:
            break
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("x: 1/100 items, 11.0 s")  # no quarter reached: a line per 10 s


def test_no_progress_when_off(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(sweep.iter_progress(iter("abc"), 3, "x", False)) == ["a", "b", "c"]
    assert capsys.readouterr().err == ""


def test_figures_are_drawn_once_each_with_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    calls: list[str] = []

    def fig(label: str) -> Any:
        calls.append(label)
        f, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, 1])
        return f

    jobs = [(f"k{i}", f"name{i}", fig, (f"f{i}",)) for i in range(4)]
    figs = draw_figures(jobs, tmp_path / "figures", ("png",), progress=True)
    assert calls == ["f0", "f1", "f2", "f3"] and sorted(figs) == ["k0", "k1", "k2", "k3"]
    assert all(p.stat().st_size > 100 and p.name == f"name{i}.png" for i, p in enumerate(figs[k] for k in sorted(figs)))
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("figures: 4/4 figures,") and "/s)" in err[-1] and len(err) == 4
    draw_figures(jobs, tmp_path / "quiet", ("png",), progress=False)
    assert capsys.readouterr().err == ""


def test_a_batch_of_runs_reports_after_two_seconds(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    p = simcli._RunsProgress(10)
    p._time, p._t0 = clock, 0.0  # type: ignore[method-assign]
    clock.t = 1.0
    p(3)  # under 2 s: silent
    clock.t = 2.5
    p(4)
    clock.t = 4.0
    p(5)  # within 5 s of the last line: silent
    clock.t = 8.0
    p(8)
    clock.t = 9.0
    p(10)  # done: the command's own output follows
    assert capsys.readouterr().err.splitlines() == ["4/10 runs done, 2 s (1.6 runs/s, about 4 s left)", "8/10 runs done, 8 s (1 runs/s, about 2 s left)"]


def test_run_parallel_keeps_job_order_with_progress_on() -> None:
    assert simcli.run_parallel([lambda i=i: i * i for i in range(6)], 2) == [0, 1, 4, 9, 16, 25]
    assert simcli.run_parallel([lambda i=i: i for i in range(3)], 1) == [0, 1, 2]
