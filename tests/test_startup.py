"""What the command line imports (issue 13: ``burstlab sim`` starts in ≤ 0.15 s of CPU; the
time itself is measured by ``benchmarks/startup.py``, not here): a command imports only what
it needs, so a plain simulation, the help and the closed forms load none of the heavy
libraries (numpy alone costs more than the whole start of ``burstlab sim``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO

HEAVY = ("numpy", "scipy", "matplotlib", "duckdb", "pyarrow", "sklearn", "dask", "hmmlearn", "rich", "pandas")


def _heavy_imports(argv: list[str]) -> list[str]:
    code = (
        "import sys, io, contextlib\n"
        "from burstlab.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "assert rc == 0, rc\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    return [m for m in r.stdout.strip().split(",") if m]


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["sim", "--help"],
        ["sim", "--duration", "10ms"],
        ["sim", "--duration", "10ms", "--tcp", "reno,sack", "--seeds", "3", "--json"],
        ["sim", "--show-config"],
        ["predict", "--prr", "0.9", "--rtt", "100ms"],
    ],
    ids=" ".join,
)
def test_command_imports_no_heavy_library(argv: list[str]) -> None:
    assert _heavy_imports(argv) == []


def test_the_check_sees_heavy_imports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The check can fail: --plot and --series do need matplotlib and numpy."""
    assert {"numpy", "matplotlib"} <= set(_heavy_imports(["sim", "--duration", "10ms", "--plot", str(tmp_path / "p")]))
    assert "numpy" in _heavy_imports(["sim", "--duration", "10ms", "--series", str(tmp_path / "s.npz")])
