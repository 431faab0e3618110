"""The TIBET study (Martignon & Capone) end to end on its ``--quick`` configuration: outputs
exist and the report links them, its rows equal direct simulations of the documented
networks, a partial store resumes to the same tables on another worker count, a Dask
cluster gives the same rows; known answers for its units, closed forms and verdicts."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pytest

from burstlab._core import LossModel
from burstlab.analytic import tibet_ideal, tibet_reno
from burstlab.experiments import tibet as T
from burstlab.experiments import tibet_study as TS
from burstlab.experiments.tibet_report import cli_args
from burstlab.sim import Link, TcpConfig, presets, run_network
from burstlab.store import ResultStore, config_hash
from burstlab.sweep import task_seed

QUICK = T.StudyConfig.quick_config()
#: The smallest study that still draws every figure: one point per axis but two Reno mixes.
TINY = T.StudyConfig.quick_config(T.Setup(duration=30.0, warmup=10.0), seeds=2, sweep_seeds=2, sweep=False, loss_ps=(1e-2,), rtts=(0.1,), p_bads=(0.5,), model_ps=(1e-2,), ks=(0, 5))


def _runs(out: Path) -> list[tuple[Any, ...]]:
    with ResultStore(out / "store.duckdb", "runs", T.RUN_SCHEMA) as st:
        return [tuple(r.values()) for r in st.rows()]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return TS.run_study(QUICK, tmp_path_factory.mktemp("tibet") / "quick", workers=2, progress=False)


def test_quick_outputs(quick: Any) -> None:
    out = quick.out
    planned = sum(len(t.items) for t in T.plan(QUICK))
    assert quick.ran == planned == len(quick.runs) == len(_runs(out))
    md, html = quick.report_md.read_text(), quick.report_html.read_text()
    assert "Quick run" in md and "<table>" in html
    for name in ("fig02", "fig03", "fig04", "fig05", "fig06", "fig08", "fig09", "fig11", "fig12", "sensitivity-fairness-model", "sensitivity-gains"):
        png = quick.figures[name]
        assert png.stat().st_size > 1000 and str(png.relative_to(out)) in md, name
    for f in ("cells.csv", "claims.csv", "sensitivity.csv", "summary.json"):
        assert (out / f).stat().st_size > 100
    # Fig. 9: the paper's two closed forms at p = 10⁻², MSS and RTT 1: 1.31/√p and 3.4/(p·log2(1/p)).
    assert "| 0.01 | 13.10 | 51.18 | 3.91 | yes |" in md
    claims = list(csv.DictReader((out / "claims.csv").open()))
    assert len(claims) >= len(quick.claims) >= 15  # the defaults', then Figs. 4-5's under both readings
    assert all(c["verdict"] in ("reproduced", "contradicted", "inconclusive") and c["preview"] == "true" for c in claims)
    assert sum(c["calibration"] == "true" for c in claims) == 2
    assert {c["setting"] for c in claims[len(quick.claims):]} == set(T.READING_LABEL.values())
    cells = list(csv.DictReader((out / "cells.csv").open()))
    assert sum(int(c["n"]) for c in cells) == len(quick.runs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_runs"] == len(quick.runs) and summary["config"]["quick"] is True
    # Every sensitivity point of the quick sweep is a row of the table (and the baseline).
    sens = list(csv.DictReader((out / "sensitivity.csv").open()))
    assert len(sens) == 1 + sum(len(v) for _, v in QUICK.sensitivity)
    # The mixes of Figs. 2-3 hold ten connections each: Reno's mean per connection only when k > 0.
    fair = [r for r in quick.runs if r["experiment"] == "fairness"]
    assert fair and all(len(json.loads(r["flow_goodputs"])) == T.N_FLOWS for r in fair)
    assert all((r["goodput_reno_bps"] is None) == (r["k_reno"] == 0) and (r["goodput_tibet_bps"] is None) == (r["k_reno"] == T.N_FLOWS) for r in fair)


def _tcp(cc: str) -> TcpConfig:
    """The documented TCP of every cell at the defaults: ns-2's of the paper's time."""
    return TcpConfig(cc=cc, recovery="reno", mss=1000, init_cwnd=1, delayed_ack=False, rto_min=0.2)


def test_rows_equal_direct_simulations(quick: Any) -> None:
    """A row is a documented network run with replicate k's seed: a single lossy link with a
    one-BDP buffer (Figs. 4-6), the Markov channel (Fig. 8), the dumbbell with random start
    times (Figs. 2-3), the wired + wireless path (Figs. 11-12)."""
    defaults = {"recovery": "reno", "rto_min": 0.2, "init_cwnd": 1, "delayed_ack": False, "mss": 1000, "rwnd": None, "buffer_bdp": 1.0, "duration": 60.0}
    by = {(r["experiment"], r["cc"], r["rate"], r["one_way"], r["p"], r["p_bad"], r["k_reno"], r["replicate"]): r
          for r in quick.runs if all(r[k] == v for k, v in defaults.items()) and r["start_spread"] in (None, 2.0)}  # fmt: skip
    seed = task_seed(QUICK.seed, "tibet", "replicate", 1)
    run: dict[str, Any] = {"duration": 60.0, "warmup": 20.0, "seed": seed}
    # One BDP of 1040-byte packets: 10 Mb/s × 100 ms → 121; 2 Mb/s × 100 ms → 25; 10 Mb/s × 400 ms → 481.
    single = presets.single(Link(rate=10e6, delay=0.05, buffer=121, loss=LossModel.bernoulli(1e-3)), tcp=_tcp("tibet"), **run)
    markov = presets.single(Link(rate=2e6, delay=0.05, buffer=25, loss=LossModel.markov_ct(8.0, 4.0, 0.01, 0.5), loss_mode="time"), tcp=_tcp("ideal"), **run)
    ww = presets.wired_wireless(0.4, Link(rate=10e6, delay=0.001, buffer=481, loss=LossModel.bernoulli(1e-2)), wired_rate=1e9, tcp=_tcp("reno"), **run)
    starts = np.random.default_rng([seed, 0x74696265]).uniform(0.0, 2.0, 10)
    dumbbell = presets.dumbbell(10, Link(rate=2e6, delay=0.045, buffer=25), access_delay=0.005, tcp=[_tcp("reno")] * 5 + [_tcp("tibet")] * 5, **run)
    dumbbell = replace(dumbbell, flows=[replace(f, start=float(t)) for f, t in zip(dumbbell.flows, starts)])
    cases = [
        (("bernoulli", "tibet", 10e6, 0.05, 1e-3, None, None, 1), single),
        (("markov", "ideal", 2e6, 0.05, None, 0.5, None, 1), markov),
        (("model", "reno", 10e6, 0.2, 1e-2, None, None, 1), ww),
        (("fairness", "reno+tibet", 2e6, 0.05, None, None, 5, 1), dumbbell),
    ]
    for key, net in cases:
        row = by[key]
        r = run_network(net)
        g = [f.goodput_bps for f in r.flows.values()]
        assert row["seed"] == seed and row["goodput_bps"] == pytest.approx(sum(g), rel=1e-12), key
        assert json.loads(row["flow_goodputs"]) == [round(x, 3) for x in g], key
        assert (row["timeouts"], row["queue_drops"], row["channel_losses"]) == tuple(sum(getattr(f, a) for f in r.flows.values()) for a in ("timeouts", "queue_drops", "channel_losses"))
        assert row["key"] == config_hash(json.loads(row["config"]))
    fair = by[cases[-1][0]]
    assert fair["goodput_reno_bps"] == pytest.approx(np.mean(json.loads(fair["flow_goodputs"])[:5]), rel=1e-6)


def test_partial_store_resumes_to_the_same_tables(quick: Any, tmp_path: Path) -> None:
    """Delete a third of the rows (a study killed part way), re-run on one worker: only those
    run again and every table, CSV and the report come out identical."""
    part = tmp_path / "partial"
    shutil.copytree(quick.out, part)
    with ResultStore(part / "store.duckdb", "runs", T.RUN_SCHEMA) as st:
        st.connection.execute("DELETE FROM runs WHERE (replicate + hash(cell)) % 3 = 0")
        left = len(st)
    assert 0 < left < len(quick.runs)
    again = TS.run_study(QUICK, part, workers=1, progress=False)
    assert again.ran == len(quick.runs) - left and again.skipped == left
    assert _runs(part) == _runs(quick.out)
    for f in ("cells.csv", "claims.csv", "sensitivity.csv", "report.md"):
        # the report's "Reproduce" line names its own folder
        assert (part / f).read_text().replace(str(part), str(quick.out)) == (quick.out / f).read_text(), f


def test_dask_cluster_gives_the_same_rows(tmp_path: Path) -> None:
    """The smallest study on one local worker (PNG and PDF figures) and on a Dask cluster
    (PNG only, the default): the same rows; the report links a PDF only when the run wrote it."""
    ref = TS.run_study(TINY, tmp_path / "local", workers=1, progress=False, formats=("png", "pdf"))
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        viadask = TS.run_study(TINY, tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert viadask.ran == ref.ran > 0
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "local")
    md = ref.report_md.read_text()
    for png in ref.figures.values():
        assert png.with_suffix(".pdf").stat().st_size > 1000 and str(png.with_suffix(".pdf").relative_to(ref.out)) in md
    assert not list((tmp_path / "dask" / "figures").glob("*.pdf")) and ".pdf" not in viadask.report_md.read_text()


# --------------------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------------------
def test_units_and_closed_forms() -> None:
    # The fair share in goodput: 10 Mb/s less 40 header bytes per 1000-byte segment, ÷ 10.
    assert T.fair_share(10e6, 1000) == pytest.approx(10e6 * 1000 / 1040 / 10)
    # One bandwidth-delay product of 1040-byte packets, rounded up: 2 Mb/s × 100 ms = 24.04 → 25.
    s = T.Setup()
    assert T.buffer_packets(T.bernoulli_cell(s, "reno", 2e6, 0.05, 0.01)) == 25
    assert T.buffer_packets(T.bernoulli_cell(T.Setup(buffer_bdp=2.0), "reno", 2e6, 0.05, 0.01)) == 49
    # Eq. 3 and eq. 4 in b/s: pps × MSS × 8; at p = 0.1, RTT 1 s, MSS 1: 3.4/(0.1·log2 10) and 1.31/√0.1.
    assert T.closed_form("ideal", 0.1, 1.0, 1) == pytest.approx(8 * 3.4 / (0.1 * math.log2(10)))
    assert T.closed_form("reno", 0.1, 1.0, 1) == pytest.approx(8 * 1.31 / math.sqrt(0.1))
    assert T.closed_form("ideal", 0.01, 0.1, 1000) == tibet_ideal(0.01, 0.1, 1000).bps
    assert T.closed_form("reno", 0.01, 0.1, 1000) == tibet_reno(0.01, 0.1, 1000).bps
    # The two readings of "the one-way RTT is 50 ms".
    assert (T.Setup().one_way, T.Setup(reading="rtt").one_way) == (0.05, 0.025)
    # Fig. 6's RTT of 100 ms is Fig. 5's p = 10⁻³ cell under the default reading: one run, not two.
    assert T.cell_id(T.bernoulli_cell(s, "tibet", 10e6, 0.1 / 2, 1e-3)) == T.cell_id(T.bernoulli_cell(s, "tibet", 10e6, s.one_way, 1e-3))


def test_order_classifies_points() -> None:
    """a ≥ b from paired 95 % intervals: each point above, tied (the interval contains 0)
    or below (the verdicts themselves are the claims framework's: a tie is never a hold)."""

    class C:
        def __init__(self, g: list[float]) -> None:
            self.goodput = np.array(g)

    base = [10.0, 12.0, 11.0, 13.0]
    up = C([x + 1.0 for x in base])  # exactly 1 above in every pair: interval [1, 1]
    noisy = C([x + d for x, d in zip(base, (1.0, -1.0, 0.5, -0.5))])  # mean 0, spread
    down = C([x - 2.0 for x in base])
    b = C(base)
    o = T.Env.order([(1, up, b), (2, up, b)])  # type: ignore[list-item]
    assert (o.above, o.tied, o.below) == ([1, 2], [], [])
    o = T.Env.order([(1, up, b), (2, noisy, b)])  # type: ignore[list-item]
    assert (o.above, o.tied, o.below) == ([1], [2], [])
    o = T.Env.order([(1, up, b), (2, down, b)])  # type: ignore[list-item]
    assert (o.above, o.tied, o.below) == ([1], [], [2])
    assert T.Env.order([(1, None, b)]).n == 0  # type: ignore[list-item]


def test_cli_args_reproduce_the_configuration() -> None:
    cfg = T.StudyConfig(T.Setup(reading="rtt", recovery="sack", wireless_rate=50e6, delayed_ack=True), seeds=5, sweep_seeds=3, sweep=False)
    assert cli_args(cfg) == ["--seeds", "5", "--sweep-seeds", "3", "--seed", "0", "--no-sweep", "--reading", "rtt", "--recovery", "sack",
                             "--delayed-ack", "--wireless-rate", "50Mbit"]  # fmt: skip
    assert cli_args(QUICK)[:1] == ["--quick"] and "--duration" not in cli_args(QUICK)


def test_bad_parameters_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid parameter reading"):
        T.Setup(reading="both")
    with pytest.raises(ValueError, match="invalid parameter duration"):
        T.Setup(duration=10.0, warmup=20.0)
    with pytest.raises(ValueError, match="sweep-seeds"):
        T.StudyConfig(seeds=3, sweep_seeds=4)
    with pytest.raises(ValueError, match="invalid parameter ks"):
        T.StudyConfig(ks=(11,))
    cmd = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "study", "tibet", "--out", str(tmp_path / "o")]
    for bad in (["--wireless-rate", "fast"], ["--seeds", "1"], ["--reading", "maybe"], ["--duration", "10s", "--warmup", "20s"], ["--buffer-bdp", "0"]):
        r = subprocess.run([*cmd, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and "Traceback" not in r.stderr and "error" in r.stderr.lower(), (bad, r.stderr)
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------------------
# Martignon & Capone's results (issue 11), at a reduced scale (4 runs of 150 s per cell);
# docs/validation.md has the full study's numbers. Figs. 4-6 (Ideal > TIBET > Reno) are
# checked by `cargo test -p burstlab-core --release martignon`.
# --------------------------------------------------------------------------------------
VAL = T.Setup(duration=150.0)
VAL_SEEDS = [T.replicate_seed(0, k) for k in range(4)]


def _runs_of(p: dict[str, Any]) -> list[dict[str, Any]]:
    return [T.run_item(it) for it in T.items(T.StudyConfig(setup=VAL), p, len(VAL_SEEDS))]


def _mean_se(x: list[float]) -> tuple[float, float]:
    a = np.asarray(x, float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


@pytest.mark.parametrize("rate", T.FAIR_RATES)
def test_fairness_within_ten_percent_for_an_even_mix(rate: float) -> None:
    """Figs. 2-3, five Reno and five TIBET connections: each kind's mean goodput per
    connection within ±10 % of the fair share (issue 11's reading of "very close")."""
    fs = T.fair_share(rate, VAL.mss)
    rows = _runs_of(T.fairness_cell(VAL, rate, 5))
    for kind in ("reno", "tibet"):
        m, _ = _mean_se([r[f"goodput_{kind}_bps"] for r in rows])
        assert abs(m / fs - 1) <= 0.10, (kind, m / fs)


@pytest.mark.parametrize(("rate", "k", "sign"), [(2e6, 8, -1), (10e6, 9, +1)])
def test_fairness_gap_and_its_mechanism(rate: float, k: int, sign: int) -> None:
    """Where the ±10 % is not reached (docs/validation.md): with few TIBET connections among
    Reno ones TIBET falls short on 2 Mb/s and runs ahead on 10 Mb/s, beyond 3 standard
    errors; the cause is where its loss response, Bwe·RTT_min, lands against Reno's halved
    window: below it on 2 Mb/s (with more timeouts per connection), above it on 10 Mb/s."""
    fs = T.fair_share(rate, VAL.mss)
    rows = _runs_of(T.fairness_cell(VAL, rate, k))
    m, se = _mean_se([r["goodput_tibet_bps"] / fs - 1 for r in rows])
    assert sign * m > 3 * se, (m, se)
    mech = T.fairness_mechanism(T.fairness_cell(VAL, rate, k), VAL_SEEDS)
    assert sign * (mech["tibet"]["ssthresh"] - mech["reno"]["ssthresh"]) > 0, mech
    if sign < 0:
        assert mech["tibet"]["timeouts_per_s"] > mech["reno"]["timeouts_per_s"], mech


def _model_ratio(rtt: float, p: float) -> tuple[float, float]:
    """The Ideal TCP's goodput on Fig. 10's path ÷ eq. 3, and its standard error."""
    ref = T.closed_form("ideal", p, rtt, VAL.mss)
    return _mean_se([r["goodput_bps"] / ref for r in _runs_of(T.model_cell(VAL, "ideal", rtt, p))])


@pytest.mark.parametrize("p", [5e-3, 1e-2, 2e-2])
def test_ideal_tcp_follows_the_model_where_it_is_loss_limited(p: float) -> None:
    """Figs. 11-12, RTT 100 ms: between the wireless capacity (eq. 3 above it for p ≤ 2·10⁻³)
    and the timeout-bound losses (p ≥ 5·10⁻²) the simulated Ideal TCP is within ±20 % of
    3.4·MSS/(RTT·p·log2(1/p)) (issue 11's criterion)."""
    r, _ = _model_ratio(0.1, p)
    assert abs(r - 1) <= 0.20, r


@pytest.mark.parametrize("rtt", T.MODEL_RTTS)
def test_ideal_tcp_falls_below_the_model_at_high_loss(rtt: float) -> None:
    """The documented gap: at p = 10⁻¹ the Ideal TCP keeps less than half of eq. 3 (its
    full-window restarts lose several segments each and it waits on backed-off timers),
    beyond 3 standard errors; at RTT 100 ms and p = 10⁻³ eq. 3 exceeds the 10 Mb/s
    wireless hop, which caps the simulation."""
    r, se = _model_ratio(rtt, 0.1)
    assert r + 3 * se < 0.5, (r, se)
    if rtt == 0.1:
        assert T.closed_form("ideal", 1e-3, rtt, VAL.mss) > VAL.wireless_rate
        r, _ = _model_ratio(rtt, 1e-3)
        assert r < VAL.wireless_rate / T.closed_form("ideal", 1e-3, rtt, VAL.mss)
