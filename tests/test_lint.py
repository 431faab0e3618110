"""Names that do not exist, caught before they run: ruff's pyflakes rules for undefined names
(F821, F822, F823) and redefinitions of unused names (F811) over the package, the tests and
the benchmarks. A merge that drops an import otherwise passes every test that does not reach
the line (the study modules once lost ``run_trace`` and ``Arq`` this way)."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_no_undefined_or_shadowed_names() -> None:
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F821,F822,F823,F811", "--output-format", "concise",
                        "python", "tests", "benchmarks"], cwd=REPO, capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
