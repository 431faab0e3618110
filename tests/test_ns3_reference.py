"""burstlab against ns-3 (issue 4), in the optional ns-3 environment only.

Skipped unless that environment exists (``bash benchmarks/ns3/setup.sh``, or ``NS3_PYTHON``
naming an interpreter that can ``import ns``) and ``burstlab.sim`` is built. Runs the quick
comparison (p = 0, 1, 5, 10 %, seeds 1-3, about a minute) and checks the issue's target: mean
goodput within +-10 % of ns-3's at each p.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NS3_DIR = REPO / "benchmarks" / "ns3"

pytestmark = pytest.mark.ns3


def _ns3_python() -> Path | None:
    cand = Path(os.environ.get("NS3_PYTHON", NS3_DIR / ".venv" / "bin" / "python"))
    if not cand.exists():
        return None
    probe = subprocess.run([str(cand), "-c", "import ns3.ns"], capture_output=True, timeout=300)
    return cand if probe.returncode == 0 else None


@pytest.fixture(scope="module")
def ns3_python() -> Path:
    if importlib.util.find_spec("burstlab.sim") is None:
        pytest.skip("burstlab.sim is not built")
    py = _ns3_python()
    if py is None:
        pytest.skip("the optional ns-3 environment is absent (bash benchmarks/ns3/setup.sh)")
    return py


def test_quick_comparison_within_band(ns3_python: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, str(NS3_DIR / "compare.py"), "--quick", "--no-speed",
         "--ns3-python", str(ns3_python), "--out", str(out)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    rows = {r["p"]: r for r in doc["goodput"]}
    assert sorted(rows) == [0.0, 0.01, 0.05, 0.1]
    # Sanity of the reference itself: lossless goodput near the wire limit
    # rate * mss / (mss + 42) = 9.597 Mb/s, and goodput falling with p.
    assert 0.9 * 9.597e6 < rows[0.0]["ns3_goodput_bps"] <= 9.597e6
    g = [rows[p]["ns3_goodput_bps"] for p in (0.0, 0.01, 0.05, 0.1)]
    assert g == sorted(g, reverse=True)
    for p, r in rows.items():
        assert r["seeds"] == 3
        assert abs(r["ratio"] - 1.0) <= 0.10, f"p={p}: burstlab/ns-3 goodput ratio {r['ratio']:.3f}"
