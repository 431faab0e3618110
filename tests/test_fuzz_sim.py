"""The simulator's and the writers' contract checks (``tests/_fuzz_sim.py``, issue 34) on a
few hundred drawn inputs per target in CI (``BURSTLAB_FUZZ_EXAMPLES``, default 150): ``sim``
command lines over every flag, TOML scenario files, the Python API, and output paths into
device files, FIFOs, symbolic links, a read-only mount and a full disk. The long run is
``benchmarks/fuzz.py`` (docs/errors.md "Fuzzing")."""

from __future__ import annotations

import os
import random
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _fuzz_sim as fs  # noqa: E402

EXAMPLES = int(os.environ.get("BURSTLAB_FUZZ_EXAMPLES", "150"))


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "small.bits").write_text("1\n0\n" * 150)
    (tmp_path / "cap.trace").write_text("\n".join(str(i) for i in range(0, 1000, 2)) + "\n")
    return tmp_path


def _kinds(run: object, n: int) -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {run(random.Random(f"ci:{k}")) for k in range(n)}  # type: ignore[operator]


def test_sim_command_lines(scratch: Path) -> None:
    kinds = _kinds(lambda r: fs.check_sim_cli(fs.sim_argv(r, scratch / "small.bits")), EXAMPLES)
    assert kinds == {"ok", "refused"}  # both kinds are reached: the grammar is not all bad


def test_scenario_files(scratch: Path) -> None:
    kinds = _kinds(lambda r: fs.check_scenario(fs.scenario_toml(r, scratch / "cap.trace"), scratch), EXAMPLES)
    assert kinds == {"ok", "refused"}


def test_python_api(scratch: Path) -> None:
    kinds = _kinds(lambda r: fs.check_api(*fs.api_call(r), scratch), EXAMPLES)
    assert kinds == {"ok", "refused"}


def test_output_paths(scratch: Path) -> None:
    with fs.path_fixtures(scratch) as fx:
        kinds = _kinds(lambda r: fs.check_path(*fs.path_case(r, fx), fx), EXAMPLES)
    assert kinds == {"ok", "refused"}


def test_a_wrong_counter_is_a_violation() -> None:
    with pytest.raises(fs.ContractViolation, match="lost > sent"):
        fs.check_counters({"packets_lost": 2, "packets_sent": 0, "delivered_segments": 0, "retransmissions": 0, "goodput_bps": 0.0}, 1e6, "x")


def test_a_run_without_budget_is_stopped_like_ctrl_c() -> None:
    """``--max-events 0`` (no work budget) is the user's choice, not a hang: the check stops
    such a run after a wall-clock bound as Ctrl-C would, and the CLI must end it with
    ``aborted`` (exit 130). The run itself (about 10^9 events) would take minutes."""
    argv = ["sim", "--duration", "0.3s", "--rate", "1e19Mbit", "--delay", "1us", "--max-events", "0", "--json"]
    assert fs._unlimited(argv)
    assert fs._run_stopped_after(argv, 0.5) is None
    short = ["sim", "--duration", "0.05s", "--max-events", "0", "--json"]
    assert fs.check_sim_cli(short) == "ok"  # a run that ends in time is checked as any other
