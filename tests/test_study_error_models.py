"""The error-model study (Pentikousis & Badr) end to end on its ``--quick`` configuration:
outputs exist and the report links them, its rows equal direct simulations of the
documented networks, a partial store resumes to the same tables on another worker count,
a Dask cluster gives the same rows; known answers for the loss models it compares and for
its statistics."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pytest

from burstlab._core import LossModel
from burstlab.experiments import error_models as E
from burstlab.experiments import error_models_study as ES
from burstlab.sim import Flow, Hop, Link, Network, TcpConfig, run_network
from burstlab.store import ResultStore, config_hash
from burstlab.sweep import task_seed

QUICK = E.StudyConfig.quick_config()


def _runs(out: Path) -> list[tuple[Any, ...]]:
    with ResultStore(out / "store.duckdb", "runs", E.RUN_SCHEMA) as st:
        return [tuple(r.values()) for r in st.rows()]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return ES.run_study(QUICK, tmp_path_factory.mktemp("error-models") / "quick", workers=2, progress=False, formats=("png", "pdf"))


def test_quick_outputs(quick: Any) -> None:
    out = quick.out
    planned = sum(len(t.items) for t in E.plan(QUICK))
    assert quick.ran == planned == len(quick.runs) == len(_runs(out))
    md, html = quick.report_md.read_text(), quick.report_html.read_text()
    assert "Quick run" in md and "preview: not evidence" in md and "<table>" in html
    # the HTML page stands alone: every figure embedded, none referenced by path
    assert html.count("src='data:image/png;base64,") == md.count("![") and "src='figures/" not in html
    for name in ("fig02", "fig02-equivalence", "fig02-subcycle", "table1", "fig03a", "fig03b", "sensitivity-table1-rate", "sensitivity-sync", "sensitivity-models"):
        png = quick.figures[name]
        assert png.stat().st_size > 1000 and png.with_suffix(".pdf").stat().st_size > 1000, name
        assert str(png.relative_to(out)) in md and str(png.with_suffix(".pdf").relative_to(out)) in md, name
    for f in ("cells.csv", "claims.csv", "sensitivity.csv", "summary.json"):
        assert (out / f).stat().st_size > 100
    # The paper's nine Table 1 times are in the report beside ours.
    for v in E.PAPER_TABLE1.values():
        assert f"| {v:.1f} |" in md
    # Every claim has a verdict, and the claims table is the report's.
    claims = list(csv.DictReader((out / "claims.csv").open()))
    assert len(claims) >= len(quick.claims) >= 20  # the baseline's, then Fig. 2's under every swept setting
    assert all(c["verdict"] in ("reproduced", "contradicted", "inconclusive") and c["preview"] == "true" for c in claims)
    assert [c["id"] for c in claims[: len(quick.claims)]] == [c["id"] for c in quick.claims]
    assert any(c["setting"].startswith("sub-cycle") for c in claims)
    # Every cell ran its planned replicates; no transfer was left unfinished.
    cells = list(csv.DictReader((out / "cells.csv").open()))
    assert sum(int(c["n"]) for c in cells) == len(quick.runs) and all(c["incomplete"] == "0" for c in cells)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_runs"] == len(quick.runs) and summary["config"]["quick"] is True


def test_rows_equal_direct_simulations(quick: Any) -> None:
    """A row is a documented network run with replicate k's seed: the ON/OFF channel (Table 1),
    the 50-ms delay hop in series (Fig. 3a), the rate-based and VDDP channels (Fig. 2)."""
    defaults = {"rate": 1.5e6, "buffer": 50, "lan_delay": 0.0005, "mss": 1460, "delayed_ack": True, "rto_min": 1.0, "rwnd": None, "init_cwnd": 1}
    by = {(r["experiment"], r["variant"], r["ack_loss"], r["added_delay"], r["model"], r["mean_good"], r["drop"], r["cycle"], r["replicate"]): r
          for r in quick.runs if all(r[k] == v for k, v in defaults.items())}  # fmt: skip
    tcp = {"mss": 1460, "init_cwnd": 1, "delayed_ack": True, "rto_min": 1.0, "rwnd": None}
    seed = task_seed(QUICK.seed, "error-models", "replicate", 1)
    channel = {"rate": 1.5e6, "delay": 0.0005, "buffer": 50, "loss_mode": "time"}
    cases = [
        (("sync", "reno", "independent", 0.0, "onoff", 1.8, 1.0, None, 1), [], LossModel.on_off(1.8, 0.2), 8_000_000),
        (("sync", "tahoe", "sync", 0.05, "onoff", 1.8, 1.0, None, 1), [0.05], LossModel.on_off(1.8, 0.2), 8_000_000),
        (("models", "tahoe", "sync", 0.0, "rate", 1.0, 0.5, None, 1), [], LossModel.markov_ct(1.0, 1.0, 0.0, 0.5), 5_000_000),
        (("models", "tahoe", "sync", 0.0, "temporal", 10.0, 0.1, 1.0, 1), [], LossModel.vddp(10.0, 10.0, 0.0, 0.1, 1.0, 1.0), 5_000_000),
    ]
    for key, delay, loss, size in cases:
        row = by[key]
        hops = [Hop("delay", Link(rate=1e9, delay=d, buffer=100_000)) for d in delay]
        hops.append(Hop("channel", Link(**channel, loss=loss), ack_loss=key[2]))  # type: ignore[arg-type]
        net = Network(hops, [Flow("transfer", [h.name for h in hops], tcp=TcpConfig(variant=key[1], **tcp), size=size)], seed=seed)  # type: ignore[arg-type]
        f = run_network(net).flows["transfer"]
        assert row["seed"] == seed and row["completion_time"] == f.completion_time, key
        assert (row["timeouts"], row["spurious_timeouts"], row["acks_lost"], row["channel_losses"]) == (f.timeouts, f.spurious_timeouts, f.acks_lost, f.channel_losses)
        assert row["key"] == config_hash(json.loads(row["config"]))


def test_partial_store_resumes_to_the_same_tables(quick: Any, tmp_path: Path) -> None:
    """Delete a third of the rows (a study killed part way), re-run on one worker: only those
    run again and every table, CSV and the report come out identical."""
    part = tmp_path / "partial"
    shutil.copytree(quick.out, part)
    with ResultStore(part / "store.duckdb", "runs", E.RUN_SCHEMA) as st:
        st.connection.execute("DELETE FROM runs WHERE (replicate + hash(cell)) % 3 = 0")
        left = len(st)
    assert 0 < left < len(quick.runs)
    again = ES.run_study(QUICK, part, workers=1, progress=False, formats=("png", "pdf"))
    assert again.ran == len(quick.runs) - left and again.skipped == left
    assert _runs(part) == _runs(quick.out)
    for f in ("cells.csv", "claims.csv", "sensitivity.csv", "report.md"):
        # the report's "Reproduce" line names its own folder
        assert (part / f).read_text().replace(str(part), str(quick.out)) == (quick.out / f).read_text(), f


def test_dask_cluster_gives_the_same_rows(tmp_path: Path) -> None:
    cfg = E.StudyConfig.quick_config(seeds=2, sweep=False)
    ref = ES.run_study(cfg, tmp_path / "local", workers=1, progress=False)
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        viadask = ES.run_study(cfg, tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert viadask.ran == ref.ran > 0
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "local")
    # PNG only by default: the report links no PDF
    assert not list((tmp_path / "local" / "figures").glob("*.pdf")) and ".pdf" not in ref.report_md.read_text()


# --------------------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------------------
def _probe_fraction(model: LossModel, horizon: float, step: float, batch: float, seed: int) -> tuple[float, float]:
    """Fraction of zero-length probes every ``step`` s over ``horizon`` s that the model
    loses, and the standard error of that fraction from batch means over ``batch``-second
    batches (long against the sojourns, so the batch means are nearly independent)."""
    t = np.arange(0.0, horizon, step)
    lost = model.lost_in_transit_many(t, t, seed).astype(float)
    per = int(round(batch / step))
    means = lost[: len(lost) // per * per].reshape(-1, per).mean(axis=1)
    return float(lost.mean()), float(means.std(ddof=1) / math.sqrt(len(means)))


@pytest.mark.parametrize("drop", [0.1, 0.5])
def test_rate_and_temporal_models_lose_the_same_share_in_the_long_run(drop: float) -> None:
    """Pentikousis & Badr §2: equal exponential sojourns, B drops `drop`: the rate-based chain
    drops a share π_B·drop = drop/2 of the segments (a Bernoulli trial per segment in B), the
    temporal VDDP is ON for the same share of the time. Their TCP times differ because of
    *when* the losses fall, not how many there are."""
    rate = LossModel.markov_ct(1.0, 1.0, 0.0, drop)
    vddp = LossModel.vddp(1.0, 1.0, 0.0, drop, 1.0, 1.0)
    assert rate.mean_loss() == pytest.approx(drop / 2, abs=1e-12)
    assert vddp.time_loss_fraction() == pytest.approx(drop / 2, abs=1e-12)
    for model in (rate, vddp):
        frac, se = _probe_fraction(model, 40_000.0, 0.05, 200.0, seed=7)
        assert abs(frac - drop / 2) < 5 * se, (model.name, frac, se)


def test_on_off_channel_is_bad_a_tenth_of_the_time() -> None:
    """§3's channel: mean good 1.8 s, bad 0.2 s: bad 0.2/2.0 = 10 % of the time."""
    m = LossModel.on_off(*E.ON_OFF)
    assert m.time_loss_fraction() == pytest.approx(0.1, abs=1e-12)
    frac, se = _probe_fraction(m, 40_000.0, 0.01, 100.0, seed=3)
    assert abs(frac - 0.1) < 5 * se, (frac, se)


def test_paired_ratio_known_answers() -> None:
    y = np.array([10.0, 20.0, 30.0, 40.0])
    r = E.paired_ratio(2 * y, y)  # exactly proportional: no uncertainty
    assert (r.value, r.lo, r.hi) == pytest.approx((2.0, 2.0, 2.0))
    rng = np.random.default_rng(1)
    base = rng.exponential(50.0, 400)
    r = E.paired_ratio(base + rng.normal(0, 1, 400), base)  # same trajectories, small noise
    assert r.lo < 1.0 < r.hi and r.hi - r.lo < 0.02
    assert math.isnan(E.paired_ratio(np.array([1.0]), np.array([1.0])).value)
    d, h = E.paired_difference(y + 3.0, y)
    assert (d, h) == pytest.approx((3.0, 0.0))


def test_bad_parameters_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid parameter cycle"):
        E.Setup(cycle=0.0)
    with pytest.raises(ValueError, match="seeds"):
        E.StudyConfig(seeds=1)
    cmd = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "study", "error-models", "--out", str(tmp_path / "o")]
    for bad in (["--rate", "fast"], ["--seeds", "1"], ["--fig2-ack-loss", "maybe"]):
        r = subprocess.run([*cmd, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (bad, r.stderr)
    assert not (tmp_path / "o").exists()


def test_adaptive_replication_adds_transfers_up_to_the_budget(tmp_path: Path) -> None:
    """Claims inconclusive on 2 transfers per cell: the study adds transfers up to its
    budget (3), runs only the new ones, and its Reproduce line names the count reached."""
    from dataclasses import replace as dc_replace

    cfg = E.StudyConfig(seeds=2, sweep_seeds=2, sweep=False, budget=3, delays=(0.0,), sojourns=(1.0,), drops=(0.1, 0.5), equivalence_drops=(0.5,),
                        sync_size=200_000, models_size=200_000)  # fmt: skip
    logged: list[str] = []
    res = ES.run_study(cfg, tmp_path / "a", workers=1, progress=False, log=logged.append)
    reached = dc_replace(cfg, seeds=3)
    assert res.ran == len(res.runs) == sum(len(t.items) for t in E.plan(reached))
    assert any("adding transfers up to 3 (budget 3)" in s for s in logged)
    assert "--seeds 3 --sweep-seeds 2 --seed 0 --no-sweep --budget 3" in res.report_md.read_text()
    assert json.loads((res.out / "summary.json").read_text())["config"]["seeds"] == 3
