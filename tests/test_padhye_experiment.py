"""The Padhye validation experiment (Barsocchi et al. §V): its bookkeeping on given numbers, and a
short run of burstlab's own simulator against the model."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from burstlab import ParameterError
from burstlab.analytic import padhye
from burstlab.experiments.padhye import PadhyeSetup, format_table, measure, summarise, write_outputs


def _result(send_pps: float, goodput_pps: float, lost: int, srtt: list[float], rto: list[float]) -> SimpleNamespace:
    """An object with the SimResult attributes ``measure`` reads (bookkeeping test only),
    100 measured seconds."""
    n = len(srtt)
    return SimpleNamespace(
        duration=100.0,
        goodput_pps=goodput_pps,
        packets_sent=round(send_pps * 100),
        packets_lost=lost,
        timeouts=3,
        fast_retransmits=7,
        series={"time": np.linspace(0.0, 100.0, n), "srtt": np.array(srtt), "rto": np.array(rto)},
    )


def test_measure_reads_rates_and_steady_state_series() -> None:
    # Samples at t = 0, 25, 50, 75, 100; warmup 30 s keeps the last three.
    res = _result(60.0, 57.0, 120, [9.0, 9.0, 0.1, 0.2, 0.3], [3.0, 3.0, 1.0, 1.0, 2.0])
    m = measure(res, "reno", 0.02, 1, warmup=30.0, mss=1000)
    assert m.send_pps == pytest.approx(60.0)
    assert m.loss_rate == pytest.approx(0.02)  # 120 / 6000
    assert m.rtt == pytest.approx(0.2)  # mean of 0.1, 0.2, 0.3
    assert m.t0 == pytest.approx(1.0)  # median of 1, 1, 2
    with pytest.raises(ParameterError, match="measured no time"):
        measure(SimpleNamespace(duration=0.0), "reno", 0.02, 1, 0.0, 1000)


def test_summarise_compares_median_with_model_at_mean_parameters() -> None:
    st = PadhyeSetup(ps=(0.02,), seeds=3)
    runs = [
        measure(_result(s, s * 0.97, lost, [0.1, 0.1, 0.1], [1.0, 1.0, 1.0]), "reno", 0.02, k, 0.0, 1000)
        for k, (s, lost) in enumerate([(50.0, 100), (40.0, 80), (45.0, 90)])
    ]
    row = summarise(runs, st)
    assert row.send_pps == 45.0 and (row.send_pps_min, row.send_pps_max) == (40.0, 50.0)
    assert row.loss_rate == pytest.approx(0.02)  # 100/5000, 80/4000, 90/4500
    model = padhye(0.02, 0.1, 1.0, 2).pps
    assert row.padhye_pps == pytest.approx(model)
    assert row.ratio == pytest.approx(45.0 / model)
    assert row.goodput_ratio == pytest.approx(45.0 * 0.97 / (model * 0.98))
    assert "reno" in format_table([row])


def test_write_outputs(tmp_path: Path) -> None:
    st = PadhyeSetup(ps=(0.02, 0.05), seeds=1)
    rows = [
        summarise([measure(_result(r, r, int(r * 100 * p), [0.1], [1.0]), v, p, 1, 0.0, 1000)], st)
        for v in ("reno", "newreno")
        for p, r in ((0.02, 40.0), (0.05, 20.0))
    ]
    paths = write_outputs(rows, st, str(tmp_path / "out"))
    assert [Path(p).name for p in paths] == ["padhye.csv", "padhye.json", "padhye.png"]
    assert Path(paths[2]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    d = json.loads(Path(paths[1]).read_text())
    assert len(d["rows"]) == 4 and d["setup"]["seeds"] == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["padhye.csv", "padhye.json", "padhye.png"]  # no temporary file left


def test_setup_validation() -> None:
    with pytest.raises(ParameterError, match="invalid p"):
        PadhyeSetup(ps=(0.0,)).validate()
    with pytest.raises(ParameterError, match="warmup"):
        PadhyeSetup(duration=10.0, warmup=10.0).validate()
    assert PadhyeSetup(delayed_ack=False).b == 1 and PadhyeSetup().b == 2


def test_simulated_reno_and_newreno_follow_padhye() -> None:
    """burstlab's own simulator against the full model over the documented set-up and p range
    (``burstlab validate padhye``: 0.5 %-10 %, 5 seeds × 600 s; well under a second):
    every ratio lies in the band docs/analytic.md states, [0.75, 1.10]."""
    from burstlab.experiments.padhye import run_comparison

    st = PadhyeSetup()
    rows = run_comparison(st)
    assert [(r.variant, r.p) for r in rows] == [(v, p) for v in ("reno", "newreno") for p in st.ps]
    assert min(st.ps) == 0.005 and max(st.ps) == 0.1
    for r in rows:
        assert 0.75 <= r.ratio <= 1.10, (r.variant, r.p, r.ratio)
        # the channel drops what it was told to: 5 binomial standard errors over all the
        # segments the runs sent in their measured 500 s
        sent = sum(run.send_pps for run in r.runs) * (st.duration - st.warmup)
        assert abs(r.loss_rate - r.p) < 5 * math.sqrt(r.p * (1 - r.p) / sent), (r.loss_rate, sent)
        assert 0.100 < r.rtt < 0.13  # 100 ms propagation, an empty queue, delayed-ACK waits
        assert r.t0 == pytest.approx(1.0, abs=0.05)  # the 1 s RTO floor
    # More loss, less rate; more timeouts at 5 % than at 1 %; NewReno above Reno at each p.
    for v in ("reno", "newreno"):
        rs = [r for r in rows if r.variant == v]
        assert all(a.send_pps > b.send_pps for a, b in zip(rs, rs[1:]))
        by_p = {r.p: r for r in rs}
        assert by_p[0.05].timeouts_per_run > by_p[0.01].timeouts_per_run
    for reno, newreno in zip(rows[: len(st.ps)], rows[len(st.ps) :]):
        assert newreno.send_pps > reno.send_pps, reno.p


def test_cli_validate_padhye_writes_what_the_api_computes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``burstlab validate padhye --plot DIR``, the one command that repeats the comparison:
    its JSON and its files carry the numbers ``run_comparison`` gives for the same set-up."""
    from burstlab.cli import main
    from burstlab.experiments.padhye import run_comparison

    args = ["--p", "0.01,0.05", "--seeds", "2", "--duration", "300", "--warmup", "50"]
    assert main(["validate", "padhye", *args, "--json", "--plot", str(tmp_path / "out")]) == 0
    got = json.loads(capsys.readouterr().out)
    want = run_comparison(PadhyeSetup(ps=(0.01, 0.05), seeds=2, duration=300.0, warmup=50.0))
    assert [(r["variant"], r["p"]) for r in got] == [(r.variant, r.p) for r in want]
    for g, w in zip(got, want):
        assert g["ratio"] == pytest.approx(w.ratio, rel=1e-12) and g["send_pps"] == pytest.approx(w.send_pps, rel=1e-12)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["padhye.csv", "padhye.json", "padhye.png"]
    on_disk = json.loads((tmp_path / "out" / "padhye.json").read_text())
    assert [r["ratio"] for r in on_disk["rows"]] == pytest.approx([w.ratio for w in want], rel=1e-12)
