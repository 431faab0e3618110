"""Run a burstlab command line in a subprocess under the limits issue 34 sets for every
bad or extreme input: 4 GiB of address space (``RLIMIT_AS``) and 30 s. The result must be
a result (exit 0) or one ``error:`` line with exit 2: never an abort (exit 134, a signal),
a traceback, exit 3 or a hang.

The 30 s are CPU seconds of the command and the processes it waited for
(``Outcome.cpu_seconds``): on a loaded machine the wall time of the same work can be several
times its CPU time, and a check of "no quadratic walk" must not fail because other jobs run.
The wall-time limit (``TIMEOUT_S``) only catches a hang."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CAP_BYTES = 4 << 30
TIMEOUT_S = 120.0
CPU_LIMIT_S = 30.0


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float
    #: CPU time (user + system) of the command and of every process it waited for.
    cpu_seconds: float = 0.0

    @property
    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.startswith("error:")]


def run_capped(args: list[str], cwd: str | os.PathLike[str] | None = None, timeout: float = TIMEOUT_S,
               stdin: bytes | None = None, interrupt_after: float | None = None) -> Outcome:  # fmt: skip
    """``burstlab ARGS`` under the 4 GiB cap; ``interrupt_after`` sends SIGINT after that
    many seconds. A run past ``timeout`` is killed and fails the calling test."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("BURSTLAB_DEBUG", None)
    t0 = time.monotonic()
    c0 = _children_cpu()
    p = subprocess.Popen([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", *args], cwd=cwd, env=env, preexec_fn=_cap,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError(f"burstlab {' '.join(args)} still running after {timeout} s") from None
    return Outcome(p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0,
                   _children_cpu() - c0)  # fmt: skip


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children so far (one test runs one command at a
    time, so the difference around a run is that run's)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def assert_result_or_error(o: Outcome, *, expect: int | None = None, contains: str = "") -> None:
    """A result (0) or one ``error:`` line with exit 2; never a traceback, exit 3 or a signal."""
    assert "Traceback" not in o.stderr, o.stderr
    assert o.code in (0, 2), (o.code, o.stderr[-2000:])
    if o.code == 2:
        assert len(o.error_lines) == 1 and o.stderr.strip().splitlines()[-1].startswith("error:"), o.stderr
    if expect is not None:
        assert o.code == expect, (o.code, o.stderr[-2000:])
    if contains:
        assert contains in o.stderr, o.stderr


def root() -> Path:
    return Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def small_disk(parent: Path, size: str = "4m") -> Iterator[Path]:
    """A real file system of ``size`` (a tmpfs mounted under ``parent``; root only), to fill
    up: skips the test where mounting is not allowed."""
    import pytest

    mnt = parent / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(folder: Path, leave: int = 0) -> None:
    """Fill the file system of ``folder`` up to ``leave`` bytes free."""
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize - leave
    with open(folder / "filler", "wb") as f:
        try:
            while free > 0:
                n = min(free, 1 << 20)
                f.write(b"\0" * n)
                free -= n
            f.flush()
        except OSError:
            pass
