"""The study framework's edges (issue 34, items 8 and 9): the temporary files a killed
study left (figures too) are removed by whichever study next opens its store; a store of
another study is named as such; a SIGKILLed study's resource tracker cleans up without a
raw ``UserWarning`` on the terminal."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from burstlab import ParameterError
from burstlab.store import ResultStore


def test_any_study_store_removes_stale_temporaries(tmp_path: Path) -> None:
    figs = tmp_path / "figures"
    figs.mkdir()
    stale = [figs / ".fig3.k2j4h5g6.tmp.png", tmp_path / ".report.md.abcdEFG1.tmp.md", tmp_path / ".links.csv.a1b2c3d4.tmp.csv"]
    keep = [figs / "fig3.png", tmp_path / "notes.tmp.txt"]
    for p in stale + keep:
        p.write_text("x")
    with ResultStore(tmp_path / "store.duckdb", "runs", {"v": "DOUBLE"}):
        pass
    assert [p for p in stale if p.exists()] == []
    assert all(p.exists() for p in keep)


def test_a_store_of_another_study_is_named_as_such(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "store.duckdb", "runs", {"variant": "VARCHAR", "goodput": "DOUBLE"}):
        pass
    with pytest.raises(ParameterError, match=r"a results store of another study, or of another version of this one .* "
                                             r"this study writes key, fer, rtt\): give this study its own --out"):  # fmt: skip
        ResultStore(tmp_path / "store.duckdb", "runs", {"fer": "DOUBLE", "rtt": "DOUBLE"})


def test_sigkill_leaves_no_resource_tracker_warning(tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing as mp, os, signal
        from burstlab.sweep import set_forkserver_preload
        if __name__ == "__main__":
            set_forkserver_preload()
            ctx = mp.get_context("forkserver")
            q = ctx.Queue()  # a semaphore the tracker will find leaked
            p = ctx.Process(target=print, args=("worker ran",))
            p.start()
            p.join()
            os.kill(os.getpid(), signal.SIGKILL)
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    import time

    time.sleep(1.0)  # the tracker writes after its parent died
    assert r.returncode == -9 and "worker ran" in r.stdout
    assert "leaked" not in r.stderr and "UserWarning" not in r.stderr, r.stderr
