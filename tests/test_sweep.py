"""The task runner: same results in-process, on a local process pool and on a real Dask
scheduler + worker on 127.0.0.1; seeds derived from task identity only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import distributed
import pytest

from burstlab import ParameterError
from burstlab.sweep import ClusterError, run_tasks, task_seed

sys.path.insert(0, str(Path(__file__).parent))
from _sweep_tasks import fail_on, ge_stats  # noqa: E402

TASKS = [(f"link{i}", 0.2 + 0.05 * i, 0.1 * (i % 8), 20_000, task_seed(7, f"link{i}", "ge", 0)) for i in range(10)]


def _by_name(pairs: list[tuple[object, dict[str, object]]]) -> dict[object, tuple[object, object, object]]:
    return {r["name"]: (r["prr"], r["mu"], r["max_run"]) for _, r in pairs}


def test_task_seed_depends_only_on_identity() -> None:
    a = task_seed(1, "link", "ge", 0)
    assert a == task_seed(1, "link", "ge", 0)
    assert len({a, task_seed(2, "link", "ge", 0), task_seed(1, "link2", "ge", 0), task_seed(1, "link", "ge", 1), task_seed(1, "link", "independent", 0)}) == 5
    assert 0 <= a < 2**63
    # pinned: the derivation (SHA-256 of the joined parts) must not change silently
    assert task_seed(0, "x") == int.from_bytes(__import__("hashlib").sha256(b"0\x1fx").digest()[:8], "little") >> 1


def test_pool_matches_in_process() -> None:
    serial = list(run_tasks(ge_stats, TASKS, workers=1, progress=False))
    assert [t for t, _ in serial] == TASKS  # in-process keeps the order
    assert {r["pid"] for _, r in serial} == {os.getpid()}
    pooled = list(run_tasks(ge_stats, TASKS, workers=2, progress=False, max_pending=3))
    assert sorted(t for t, _ in pooled) == sorted(TASKS)
    assert os.getpid() not in {r["pid"] for _, r in pooled}
    assert _by_name(pooled) == _by_name(serial)


def test_pool_helped_while_starting_runs_each_task_once() -> None:
    """help_while_starting: this process runs tasks until the pool's first worker is up; every
    task still runs exactly once with the same result, and an error in either place is raised."""
    serial = list(run_tasks(ge_stats, TASKS, workers=1, progress=False))
    helped = list(run_tasks(ge_stats, TASKS, workers=2, progress=False, help_while_starting=True))
    assert sorted(t for t, _ in helped) == sorted(TASKS)
    assert _by_name(helped) == _by_name(serial)
    with pytest.raises(ValueError, match="task 3 fails"):
        list(run_tasks(fail_on, list(range(6)), workers=2, progress=False, help_while_starting=True))


def test_task_error_propagates() -> None:
    with pytest.raises(ValueError, match="task 3 fails"):
        list(run_tasks(fail_on, list(range(6)), workers=2, progress=False))
    with pytest.raises(ParameterError, match="workers"):
        list(run_tasks(fail_on, [1], workers=0, progress=False))
    assert list(run_tasks(fail_on, [], workers=2, progress=False)) == []


def test_dask_cluster_on_loopback() -> None:
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        pairs = list(run_tasks(ge_stats, TASKS, cluster=cluster.scheduler_address, progress=False))
        with pytest.raises(ClusterError, match="task 3 fails") as err:
            list(run_tasks(fail_on, list(range(6)), cluster=cluster.scheduler_address, progress=False))
        assert isinstance(err.value, ValueError) and cluster.scheduler_address in str(err.value)
    assert sorted(t for t, _ in pairs) == sorted(TASKS)
    assert os.getpid() not in {r["pid"] for _, r in pairs}
    serial = list(run_tasks(ge_stats, TASKS, workers=1, progress=False))
    assert _by_name(pairs) == _by_name(serial)


def _square(x: int) -> int:
    return x * x


def test_progress_goes_to_stderr_and_is_plain_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32: stdout carries results only; with stderr not a terminal the progress is a
    few plain lines (no carriage returns, no escape codes)."""
    assert [r for _, r in run_tasks(_square, range(8), workers=1, progress=True, description="squares")] == [x * x for x in range(8)]
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["squares: 2/8 tasks", "squares: 4/8 tasks", "squares: 6/8 tasks", "squares: 8/8 tasks"]
    assert "\r" not in err and "\x1b" not in err


def test_progress_bar_on_a_terminal_stderr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    list(run_tasks(_square, range(3), workers=1, progress=True, description="squares"))
    assert capsys.readouterr().out == "" and "squares" in fake.getvalue() and "3/3" in fake.getvalue()


def test_default_workers_is_the_cpu_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    """One default for every local pool (burstlab study, burstlab sim --seeds): the cores
    this process may run on, not every core of the machine (a container or taskset limits
    them); all cores where affinity is unknown."""
    from burstlab.cli import runs
    from burstlab.sweep import default_workers

    assert runs.default_workers is default_workers
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert default_workers() == 1

    def unknown(pid: int) -> set[int]:
        raise OSError("no affinity here")

    monkeypatch.setattr(os, "sched_getaffinity", unknown, raising=False)
    assert default_workers() == 64


_ONE_FORKSERVER = """
import os, sys
sys.path.insert(0, {tests!r})
import multiprocessing.util as u
launches = []
spawn = u.spawnv_passfds
def spy(path, args, passfds):
    if any(b"forkserver import main" in (a if isinstance(a, bytes) else a.encode()) for a in args):
        launches.append(1)
    return spawn(path, args, passfds)
u.spawnv_passfds = spy
from burstlab.sweep import run_tasks, set_forkserver_preload, task_seed
from _sweep_tasks import ge_stats
if __name__ == "__main__":
    from multiprocessing import forkserver
    set_forkserver_preload("numpy")
    tasks = [(f"link{{i}}", 0.2 + 0.002 * i, 0.1 * (i % 8), 200_000, task_seed(7, f"link{{i}}", "ge", 0)) for i in range(300)]
    out = list(run_tasks(ge_stats, tasks, workers=2, progress=False, help_while_starting=True))
    alive = os.waitpid(forkserver._forkserver._forkserver_pid, os.WNOHANG) == (0, 0)
    print(len(out), len(launches), alive)
"""


def test_one_forkserver_while_helping(tmp_path: Path) -> None:
    """The study's process runs tasks until the forkserver can fork; the forkserver must
    outlive the thread that waited for it (it dies with the thread that started it:
    PR_SET_PDEATHSIG). It was started from that thread, killed when it ended, and started
    again by the pool: its imports paid twice, or "unexpected EOF" when the kill came
    between the pool's check and its fork."""
    script = tmp_path / "one_forkserver.py"
    script.write_text(_ONE_FORKSERVER.format(tests=str(Path(__file__).parent)))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["300", "1", "True"]


_HELP_ONLY_WHILE_STARTING = """
import os, sys
sys.path.insert(0, {tests!r})
from burstlab.sweep import forkserver_running, run_tasks
from _sweep_tasks import pid
if __name__ == "__main__":
    before = forkserver_running()
    first = [r for _, r in run_tasks(pid, list(range(40)), workers=2, progress=False, help_while_starting=True)]
    up = forkserver_running()
    second = [r for _, r in run_tasks(pid, list(range(40)), workers=2, progress=False, help_while_starting=True)]
    print(before, up, os.getpid() in second, len(first), len(second))
"""


def test_no_helping_once_the_forkserver_is_up(tmp_path: Path) -> None:
    """A pool after the first (a study's figures after its simulations) forks its workers at
    once from the running forkserver: the study's process runs none of its tasks (it would
    import and warm up what they need a second time: matplotlib, ~0.6 s of CPU)."""
    script = tmp_path / "help_once.py"
    script.write_text(_HELP_ONLY_WHILE_STARTING.format(tests=str(Path(__file__).parent)))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "True", "False", "40", "40"]


def test_figures_drawn_on_workers_are_the_same_files(tmp_path: Path) -> None:
    """A study's figures drawn on its local pool (figure_workers) are byte for byte the
    files drawn in the study's process, returned under their keys in the jobs' order."""
    from _sweep_tasks import line_figure

    from burstlab.experiments.common import draw_figures, figure_workers

    jobs = [(f"key{k}", f"fig{k}", line_figure, (5 + k, f"figure {k}")) for k in range(4)]
    with figure_workers(1):
        here = draw_figures(jobs, tmp_path / "one", ("png",))
    with figure_workers(2):
        pooled = draw_figures(jobs, tmp_path / "two", ("png",))
    assert list(here) == list(pooled) == [f"key{k}" for k in range(4)]
    for key in here:
        assert here[key].name == pooled[key].name
        assert here[key].read_bytes() == pooled[key].read_bytes()
    assert len({p.read_bytes() for p in here.values()}) == 4


def test_pool_workers_take_the_study_gc_thresholds() -> None:
    """The forkserver sets burstlab._gcpolicy's thresholds (its guard), and the workers it
    forks inherit them: a pool's worker collects as seldom as the study's process."""
    from _sweep_tasks import gc_thresholds

    from burstlab._gcpolicy import THRESHOLDS

    got = {r for _, r in run_tasks(gc_thresholds, list(range(4)), workers=2, progress=False)}
    assert got == {THRESHOLDS}


def test_gc_thresholds_restored_after_a_study_block() -> None:
    """A study run from a notebook leaves the collector's thresholds as it found them."""
    import gc

    from burstlab import _gcpolicy

    before = gc.get_threshold()
    with _gcpolicy.tuned():
        assert gc.get_threshold() == _gcpolicy.THRESHOLDS
    assert gc.get_threshold() == before


def test_a_ctrl_c_while_a_worker_starts_comes_after_it() -> None:
    """A Ctrl-C inside `interrupts_deferred` (the pool's submit, which may fork a worker and
    then write it its task) is raised when the block ends, not in the middle of it."""
    import signal

    from burstlab._lifetime import interrupts_deferred

    reached_end = False
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # Python checks for signals between bytecodes
                pass
            reached_end = True
    assert reached_end
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with interrupts_deferred():  # no Ctrl-C: nothing is raised
        pass
    prev = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts_deferred():  # Ctrl-C ignored: it stays ignored
            os.kill(os.getpid(), signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, prev)
