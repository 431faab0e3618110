"""burstlab against ns-3 (issue 4): the harness in benchmarks/ns3/.

The comparisons (marked ``ns3``) run only where the optional ns-3 environment exists
(``bash benchmarks/ns3/setup.sh``, or ``NS3_PYTHON`` naming an interpreter that can
``import ns``) and ``burstlab.sim`` is built: the quick comparison (p = 0, 1, 5, 10 %, seeds
1-3), and the 10-seed comparison against the issue's target (mean goodput within +-10 % of
ns-3's at each p), against stock ns-3 and against ns-3 with RFC 5681's ssthresh; about two
minutes together. The other tests check the harness's own logic without ns-3.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NS3_DIR = REPO / "benchmarks" / "ns3"


def _load(name: str, path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


# The harness's modules (neither imports ns-3 at import time).
ns3_reference = _load("ns3_reference", NS3_DIR / "ns3_reference.py")
compare = _load("burstlab_ns3_compare", NS3_DIR / "compare.py")

HAVE_SIM = importlib.util.find_spec("burstlab.sim") is not None


def test_wire_sizes_follow_ns3_headers() -> None:
    # 20 B TCP + 20 B IPv4 + 2 B PPP; the timestamp option adds 12 (10 padded to 4-byte words).
    assert ns3_reference.header_bytes(False) == 42
    assert ns3_reference.header_bytes(True) == 54


def test_seed_lists() -> None:
    assert ns3_reference._parse_seeds("1-3,7") == [1, 2, 3, 7]
    assert ns3_reference._parse_seeds("4") == [4]


def test_summary_ratio_and_band() -> None:
    def runs(p: float, goodputs: list[float]) -> list[dict[str, float]]:
        return [{"p": p, "seed": i, "goodput_bps": g, "packets_sent": 10, "retransmissions": 1,
                 "fast_retransmits": 1, "timeouts": 0} for i, g in enumerate(goodputs)]

    ns3 = runs(0.0, [9e6, 9e6]) + runs(0.01, [2e6, 2.2e6])
    bl = runs(0.0, [9.5e6, 9.5e6]) + runs(0.01, [2.6e6, 2.8e6])
    rows = compare.summarize(ns3, bl, [0.0, 0.01])
    assert rows[0]["ratio"] == pytest.approx(9.5 / 9.0)
    assert rows[0]["within_10pct"] is True
    assert rows[1]["ns3_goodput_bps"] == pytest.approx(2.1e6)
    assert rows[1]["ns3_goodput_sd"] == pytest.approx(math.sqrt(2) * 0.1e6)
    assert rows[1]["ratio"] == pytest.approx(2.7 / 2.1)
    assert rows[1]["within_10pct"] is False


@pytest.mark.skipif(not HAVE_SIM, reason="burstlab.sim is not built")
def test_burstlab_side_matches_the_ns3_scenario() -> None:
    sc = compare.burstlab_scenario(0.05, 7, {})
    cfg = sc.config()
    tcp, fwd = cfg["tcp"], cfg["forward"]
    assert (tcp["cc"], tcp["recovery"]) == ("reno", "newreno") and tcp["mss"] == 1000 and tcp["init_cwnd"] == 2
    assert tcp["delayed_ack"] and tcp["ack_every"] == 2 and tcp["ack_timeout"] == 0.2
    assert (tcp["rto_min"], tcp["rto_initial"], tcp["rto_max"]) == (1.0, 1.0, 60.0)
    assert tcp["rwnd"] is None and tcp["max_cwnd"] is None
    if "header_bytes" in tcp:  # the wire sizes of ns-3's data packets and ACKs
        assert tcp["header_bytes"] == 42 and tcp["ack_bytes"] == 42
        assert fwd["rate"] == 10e6
    else:  # payload-only links: the rate is scaled instead
        assert fwd["rate"] == pytest.approx(10e6 * 1000 / 1042)
    assert tcp.get("limited_transmit", False) is False
    # ns-3's NewReno without SACK: ssthresh = (FlightSize - 1 SMSS) / 2
    assert tcp["ssthresh_rule"] == "flightsize_minus_lost"
    # against ns-3 given RFC 5681's rule, burstlab runs its RFC default
    rfc = compare.burstlab_scenario(0.05, 7, {"ssthresh": "flightsize"}).config()["tcp"]
    assert rfc["ssthresh_rule"] == "flightsize"
    assert (fwd["delay"], fwd["buffer"], fwd["buffer_unit"]) == (0.01, 100, "packets")
    assert fwd["loss"] is not None and cfg["ack_loss"] == "none" and cfg["reverse"] is None
    assert cfg["seed"] == 7 and cfg["workload"]["duration"] == 100.0
    assert compare.burstlab_scenario(0.0, 1, {}).forward.loss is None


@pytest.mark.skipif(not HAVE_SIM, reason="burstlab.sim is not built")
@pytest.mark.parametrize("cc", ["newreno", "westwood", "vegas", "cubic", "linux-reno"])
def test_ns3_profile_on_both_sides(cc: str) -> None:
    # Issue 11: ns-3 runs with its own defaults, burstlab with TcpConfig.profile("ns3"); the
    # values the harness records as ns-3's defaults are the ones the profile sets.
    from burstlab.sim import TcpConfig

    sc = compare.burstlab_scenario(0.01, 3, {**ns3_reference.NS3_DEFAULTS_PROFILE, "cc": cc}, profile="ns3")
    tcp = sc.tcp
    assert tcp == TcpConfig.profile("ns3", cc="reno" if cc == "newreno" else cc, mss=1000)
    d = ns3_reference.NS3_ATTRIBUTE_DEFAULTS
    assert (tcp.init_cwnd, tcp.ack_every, tcp.ack_timeout, tcp.rto_min, tcp.rto_initial, tcp.dupack_threshold) == (
        d["init_cwnd"], d["ack_every"], d["ack_timeout"], d["rto_min"], d["rto_initial"], d["dupack_threshold"])
    assert (tcp.timestamps, tcp.limited_transmit, tcp.recovery) == (d["timestamps"], d["limited_transmit"], d["recovery"])
    assert tcp.rwnd == d["sock_buf"] // 1000 and tcp.header_bytes == ns3_reference.header_bytes(False)
    assert ns3_reference.NS3_CC[cc] == {"newreno": "TcpNewReno", "westwood": "TcpWestwoodPlus", "vegas": "TcpVegas",
                                        "cubic": "TcpCubic", "linux-reno": "TcpLinuxReno"}[cc]
    assert sc.forward.rate == 10e6 and sc.forward.buffer == 100 and sc.workload.duration == 100.0


def _ns3_python() -> Path | None:
    cand = Path(os.environ.get("NS3_PYTHON", NS3_DIR / ".venv" / "bin" / "python"))
    if not cand.exists():
        return None
    probe = subprocess.run([str(cand), "-c", "import ns3.ns"], capture_output=True, timeout=300)
    return cand if probe.returncode == 0 else None


@pytest.fixture(scope="module")
def ns3_python() -> Path:
    if not HAVE_SIM:
        pytest.skip("burstlab.sim is not built")
    py = _ns3_python()
    if py is None:
        pytest.skip("the optional ns-3 environment is absent (bash benchmarks/ns3/setup.sh)")
    return py


def _run_compare(ns3_python: Path, out: Path, *args: str) -> dict:  # type: ignore[type-arg]
    proc = subprocess.run(
        [sys.executable, str(NS3_DIR / "compare.py"), "--no-speed",
         "--ns3-python", str(ns3_python), "--out", str(out), *args],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    return {r["p"]: r for r in doc["goodput"]}


def _ratio_se(r: dict) -> float:  # type: ignore[type-arg]
    """Standard error of burstlab/ns-3 from the seed-to-seed spread of both means."""
    n = r["seeds"]
    rel = [r[f"{k}_goodput_sd"] / (r[f"{k}_goodput_bps"] * math.sqrt(n)) for k in ("ns3", "burstlab")]
    return float(r["ratio"] * math.hypot(*rel))


@pytest.mark.ns3
def test_quick_comparison(ns3_python: Path, tmp_path: Path) -> None:
    rows = _run_compare(ns3_python, tmp_path / "results.json", "--quick")
    assert sorted(rows) == [0.0, 0.01, 0.05, 0.1]
    # Sanity of the reference itself: lossless goodput near the wire limit
    # rate * mss / (mss + 42) = 9.597 Mb/s, and goodput falling with p.
    assert 0.9 * 9.597e6 < rows[0.0]["ns3_goodput_bps"] <= 9.597e6
    g = [rows[p]["ns3_goodput_bps"] for p in (0.0, 0.01, 0.05, 0.1)]
    assert g == sorted(g, reverse=True)
    # p = 0 has no randomness: the target applies as is.
    assert abs(rows[0.0]["ratio"] - 1.0) <= 0.10
    # Three seeds: the means carry sampling noise (about 6 % each at 1 %), so the quick check
    # allows two standard errors beyond the band; the issue's target is checked on 10 seeds below.
    for p in (0.01, 0.05, 0.1):
        r = rows[p]
        assert r["seeds"] == 3
        assert abs(r["ratio"] - 1.0) <= 0.10 + 2 * _ratio_se(r), (p, r["ratio"], _ratio_se(r))


@pytest.mark.ns3
def test_rfc_ssthresh_on_both_sides_within_band(ns3_python: Path, tmp_path: Path) -> None:
    # With ns-3's NewReno given RFC 5681's ssthresh (FlightSize / 2, the only change of the
    # harness's diagnostic subclass) and burstlab's RFC default, the two models agree within
    # the band at every p.
    rows = _run_compare(ns3_python, tmp_path / "results.json", "--ssthresh", "flightsize")
    for p, r in rows.items():
        assert r["seeds"] == 10
        assert abs(r["ratio"] - 1.0) <= 0.10, f"p={p}: burstlab/ns-3 goodput ratio {r['ratio']:.3f}"


@pytest.mark.ns3
def test_issue_target_against_stock_ns3(ns3_python: Path, tmp_path: Path) -> None:
    # Issue 4's target as stated: 10 seeds, stock ns-3 NewReno, burstlab with ns-3's ssthresh
    # arithmetic ((FlightSize - 1 SMSS) / 2, see docs/ns3-reference.md) like the header sizes.
    rows = _run_compare(ns3_python, tmp_path / "results.json")
    for p, r in rows.items():
        assert r["seeds"] == 10
        assert abs(r["ratio"] - 1.0) <= 0.10, f"p={p}: burstlab/ns-3 goodput ratio {r['ratio']:.3f}"


def test_replay_reads_runs_and_loss_order() -> None:
    """benchmarks/ns3/replay.py's reading of a --trace log (no ns-3 needed): runs split where
    time goes back, the data frames' outcomes in order (ACK-sized frames ignored)."""
    sys.path.insert(0, str(NS3_DIR))
    try:
        import replay  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(NS3_DIR))
    log = ["# ns-3 import and hook compilation: 7.2 s",
           "0.010046 phy-rx 58", "0.020093 cwnd 10000", "0.020093 tx 1", "0.030979 phy-rx 1054",
           "0.031822 channel-drop 1054", "0.032000 phy-rx 66", "0.040000 cong 0 -> 1", "0.050000 phy-rx 1054",
           "0.010046 phy-rx 58", "0.020093 cwnd 10000", "0.031822 channel-drop 1054"]  # fmt: skip
    runs = replay.split_runs(log)
    assert [len(r) for r in runs] == [8, 3]
    assert replay.loss_order(runs[0]) == [1, 0, 1] and replay.loss_order(runs[1]) == [0]
    secs, sent, start = replay.ns3_states(runs[0], 1.0)
    assert start == 0.020093 and sent == {0: 1}
    assert secs[0] == pytest.approx(0.040000 - 0.020093) and secs[1] == pytest.approx(1.0 - 0.04)
    assert replay.parse_seeds("1-3,7") == [1, 2, 3, 7]
