"""burstlab's dumbbell against ns-3 (issue 9): benchmarks/ns3/dumbbell.py, run only where the
optional ns-3 environment exists (``bash benchmarks/ns3/setup.sh`` or ``NS3_PYTHON``). The
quick check here compares the aggregate goodput (three seeds are too few for single flows;
the documented 20-seed run compares them, docs/validation.md)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "ns3" / "dumbbell.py"

spec = importlib.util.spec_from_file_location("ns3_dumbbell", SCRIPT)
assert spec is not None and spec.loader is not None
dumbbell = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dumbbell)


def test_summary_ratios_and_band() -> None:
    ns3 = [{"rate": 2e6, "seed": 1, "goodput_bps": [1.0, 1.0]}, {"rate": 2e6, "seed": 2, "goodput_bps": [1.0, 3.0]}]
    bl = [{"rate": 2e6, "seed": 1, "goodput_bps": [1.05, 1.0]}, {"rate": 2e6, "seed": 2, "goodput_bps": [1.15, 2.0]}]
    (row,) = dumbbell.summarise(ns3, bl)
    assert row["flow_ratios"] == pytest.approx([1.1, 0.75])
    assert row["aggregate_ratio"] == pytest.approx(5.2 / 6.0)
    assert not row["within"]
    assert row["ns3_jain"] == pytest.approx(9 / 10)


def test_starts_are_seeded_and_shared() -> None:
    prm = {**dumbbell.DEFAULTS, "flows": 4}
    a, b = dumbbell.starts(3, prm), dumbbell.starts(3, prm)
    assert a == b and len(a) == 4 and all(0 <= x < 1 for x in a)
    assert dumbbell.starts(4, prm) != a
    # One bandwidth-delay product at the 50 ms RTT of 2 Mb/s, 1042-byte packets: 12.
    assert dumbbell.bdp_packets(2e6, dumbbell.DEFAULTS) == 12


def _ns3_python() -> Path | None:
    import os

    cand = Path(os.environ["NS3_PYTHON"]) if os.environ.get("NS3_PYTHON") else REPO / "benchmarks" / "ns3" / ".venv" / "bin" / "python"
    if not cand.exists():
        return None
    probe = subprocess.run([str(cand), "-c", "import ns3.ns"], capture_output=True, timeout=300)
    return cand if probe.returncode == 0 else None


@pytest.mark.ns3
def test_aggregate_goodput_matches_ns3(tmp_path: Path) -> None:
    py = _ns3_python()
    if py is None:
        pytest.skip("the optional ns-3 environment is absent (bash benchmarks/ns3/setup.sh)")
    out = tmp_path / "d.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--ns3-python", str(py), "--rates", "2e6", "--seeds", "3", "--duration", "100", "--out", str(out)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    (row,) = json.loads(out.read_text())["comparison"]
    assert abs(row["aggregate_ratio"] - 1) <= 0.10, row
