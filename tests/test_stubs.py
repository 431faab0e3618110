"""The hand-written stub python/burstlab/_core.pyi matches the compiled module."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_core_stub_matches_extension() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "burstlab._core", "--concise", "--ignore-disjoint-bases"],
        capture_output=True,
        text=True,
        cwd=REPO / "tests",
    )
    assert r.returncode == 0, r.stdout + r.stderr
