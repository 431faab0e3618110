"""The simulator keeps the bad-input contract (issue 34): every case ends in a result or
one ``error:`` line with exit 2, within 30 s and under a 4 GiB address-space cap
(``tests/_capped.py``); Ctrl-C stops a run at once; long runs show progress; the work of
a run is estimated before it starts and a run over the budget is refused naming the
estimate and ``--max-events``."""

from __future__ import annotations

from pathlib import Path

import pytest

import burstlab.sim as sim
from burstlab import _core
from tests._capped import assert_result_or_error, run_capped


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    p = tmp_path / "small.bits"
    p.write_text("1\n0\n" * 150)  # 300 entries
    return p


# ---- item 1: huge slots and rates -------------------------------------------------------


@pytest.mark.parametrize("slot", ["4821h", "1000h"])
def test_slot_times_entries_is_bounded(small_trace: Path, slot: str) -> None:
    o = run_capped(["sim", "--trace", str(small_trace), "--slot", slot])
    assert_result_or_error(o, expect=2, contains="len(trace) × slot = 300 ×")
    assert o.seconds < 30


@pytest.mark.parametrize("rate", ["1e19Mbit", "1e13"])
def test_huge_rates_are_refused_before_the_run(rate: str) -> None:
    o = run_capped(["sim", "--tcp", "ideal", "--rate", rate, "--duration", "1s"])
    assert_result_or_error(o, expect=2, contains="raise the budget with --max-events N")


# ---- item 3: Ctrl-C and progress ----------------------------------------------------------


def test_ctrl_c_stops_the_engine_at_once() -> None:
    o = run_capped(["sim", "--duration", "900000s", "--loss", "bernoulli:p=0.01", "--max-events", "0"], interrupt_after=3.0)
    assert o.code == 130, (o.code, o.stderr[-2000:])
    assert o.stderr.strip().splitlines()[-1] == "aborted"
    assert o.seconds < 5.0, o.seconds  # the run itself would take minutes


def test_duration_beyond_the_budget_is_refused_with_the_estimate() -> None:
    o = run_capped(["sim", "--duration", "999999999s", "--loss", "bernoulli:p=0.01"])
    assert_result_or_error(o, expect=2, contains="the run would take about")
    assert "--max-events N" in o.stderr and "2.40e12 events" in o.stderr and "33 h of CPU" in o.stderr


def test_long_run_shows_progress_on_stderr() -> None:
    o = run_capped(["sim", "--duration", "150000s"])
    assert_result_or_error(o, expect=0)
    lines = [ln for ln in o.stderr.splitlines() if ln.startswith("simulated ")]
    assert lines and "of 150000 s" in lines[0], o.stderr


def test_python_api_progress_and_interrupt() -> None:
    seen: list[tuple[float, float, int]] = []

    def progress(now: float, end: float, events: int) -> None:
        seen.append((now, end, events))
        raise KeyboardInterrupt  # what a Ctrl-C handler raises

    with pytest.raises(KeyboardInterrupt):
        sim.run(sim.Scenario(workload=sim.Workload(duration=100000.0)), progress=progress)
    assert len(seen) == 1 and 0 < seen[0][0] < seen[0][1] == 100000.0 and seen[0][2] > 0


def test_max_events_is_checked() -> None:
    with pytest.raises(_core.BurstlabError, match="max_events=N"):
        sim.run(sim.Scenario(workload=sim.Workload(duration=1000.0)), max_events=1000)
    with pytest.raises(_core.ParameterError, match="max_events"):
        sim.run(sim.Scenario(), max_events=-1)


# ---- item 4: timers and periods that hang -------------------------------------------------


def test_tiny_rto_is_refused_not_a_hang() -> None:
    o = run_capped(["sim", "--rto-min", "1ns", "--rto-max", "1ns", "--rto-initial", "1ns", "--duration", "1s"])
    assert_result_or_error(o, expect=2)
    assert "rto" in o.stderr


def test_tiny_on_off_is_refused_not_a_hang(tmp_path: Path) -> None:
    toml = tmp_path / "s.toml"
    toml.write_text(
        '[[hop]]\nname = "a"\nrate = "10Mbit"\ndelay = "10ms"\n\n'
        '[[flow]]\nname = "f"\npath = ["a"]\non = "1ns"\noff = "1ns"\n'
    )
    o = run_capped(["sim", str(toml)])
    assert_result_or_error(o, expect=2)
