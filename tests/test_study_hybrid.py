"""The hybrid satellite/Wi-Fi study (Barsocchi, Oligeri, Potortì) end to end on a reduced
``--quick`` configuration: outputs exist and the report links them, its rows equal direct
simulations of the documented network, a partial store resumes to the same tables on
another worker count, a Dask cluster gives the same rows; known answers for the synthetic
set, the tail test and the channel bookkeeping; real inputs (a Ttem folder, Rutgers, TOSSIM)."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pytest

from burstlab import _core
from burstlab.experiments import hybrid as H
from burstlab.experiments import hybrid_study as HS
from burstlab.experiments import hybrid_claims as HC
from burstlab.experiments import hybrid_report as R
from burstlab.datasets.support import DataSupportWarning
from burstlab.linklayer import Arq, Backoff
from burstlab.models import LossModelBase
from burstlab.sim import Flow, Hop, Link, Network, TcpConfig, run_network
from burstlab.store import ResultStore, config_hash

SHARED = Path(os.environ.get("BURSTLAB_SHARED", "../shared")) / "data"

#: --quick, smaller still for the test suite: 200-s runs, EM fits on 2000 slots, two swept parameters.
QUICK = H.StudyConfig.quick_config(duration=200.0, warmup=40.0, fit_slots=2000,
                                   sensitivity=(("backoff", ("none", "dcf")), ("wifi_buffer", (5, 100))))  # fmt: skip


def _runs(out: Path) -> list[tuple[Any, ...]]:
    with ResultStore(out / "store.duckdb", "runs", H.RUN_SCHEMA) as st:
        return [tuple(r.values()) for r in st.rows()]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return HS.run_study(QUICK, tmp_path_factory.mktemp("hybrid") / "quick", workers=2, progress=False, formats=("png", "pdf"))


def test_quick_outputs(quick: Any) -> None:
    out = quick.out
    tasks, skipped = H.plan(QUICK, {r["key"]: r for r in quick.fits})
    assert not skipped and quick.ran == sum(len(t.items) for t in tasks) == len(quick.runs) == len(_runs(out))
    md, html = quick.report_md.read_text(), quick.report_html.read_text()
    assert "Quick run" in md and "<table>" in html and "synthetic" in md.splitlines()[0]
    for name in ("fig02", "fig03", "fig04", "fig04-models", "fig04-arq", "sensitivity-fig04", "sensitivity-fig03"):
        png = quick.figures[name]
        assert png.stat().st_size > 1000 and png.with_suffix(".pdf").stat().st_size > 1000, name
        assert str(png.relative_to(out)) in md and str(png.with_suffix(".pdf").relative_to(out)) in md, name
    for f in ("cells.csv", "traces.csv", "fits.csv", "fig03.csv", "fig04.csv", "ranking.csv", "claims.csv", "sensitivity.csv", "summary.json"):
        assert (out / f).stat().st_size > 100, f
    # Every claim has a verdict; the paper's numbers stand beside ours.
    claims = list(csv.DictReader((out / "claims.csv").open()))
    assert len(claims) >= len(quick.claims) >= 15  # the study's verdicts, then Fig. 4's under each open parameter's settings
    assert all(c["verdict"] in ("reproduced", "contradicted", "inconclusive") and c["preview"] == "true" for c in claims)
    assert "(§II.B: 5.3 Mb/s)" in md and "(§III: about 1.2 ms)" in md  # the set-up constants, stated apart from the verdicts
    ids = {c["id"] for c in claims}
    assert ids >= {"s2b-late-frames", "fig4-a-twice", "fig4-c-farthest", "fig4-d-nearest", "s2b-wifi-buffer"}
    assert "Calibration checks" in md and "preview: not evidence" in md
    # Every model burstlab fits (but list/replay, which are the trace) is ranked against (e).
    ranked = {r["model"] for r in csv.DictReader((out / "ranking.csv").open())}
    assert ranked == {*H.MORE_MODELS, *(c for c in H.TABLE1.values() if c != "trace")}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_runs"] == len(quick.runs) and summary["synthetic"] is True and summary["config"]["quick"] is True
    # Every cell ran its replicates: runs at the defaults, sweep_seeds elsewhere.
    cells = list(csv.DictReader((out / "cells.csv").open()))
    assert sum(int(c["n"]) for c in cells) == len(quick.runs) and {int(c["n"]) for c in cells} == {QUICK.seeds}


def test_rows_equal_direct_simulations(quick: Any) -> None:
    """A row is the documented network run with replicate k's seed: satellite 2 Mb/s, 300 ms,
    150 kB, Bernoulli 10^-5; the Wi-Fi ARQ (7 attempts, DCF backoff) over the channel in
    time mode: the trace replayed from its offset, a fitted model's sample, or Fig. 3's
    Bernoulli slots."""
    trs, _ = H.load_traces(QUICK)
    tr = trs[1]
    base = {k: v for k, v in H.net_params(QUICK, QUICK.setup).items()}
    by = {(r["experiment"], r["trace_fp"], r["condition"], r["fer"] if r["experiment"] == "padhye" else None, r["replicate"]): r
          for r in quick.runs if all(r[k] == v for k, v in base.items())}  # fmt: skip
    fits = {(r["trace_fp"], r["model"]): r for r in quick.fits}
    k = 1
    seed = H.replicate_seed(QUICK.seed, k)
    n = QUICK.n_slots
    bits = tr.trace().to_numpy()
    cases = [
        (("table1", tr.fp, "trace", None, k), _core.BitTrace.from_numpy(np.roll(bits, -H.trace_offset(k, tr.length)))),
        (("table1", tr.fp, "bistable", None, k),
         LossModelBase.from_dict(json.loads(fits[(tr.fp, "bistable")]["params"])).to_core().sample(n, H.channel_seed(QUICK.seed, H.table1_cell(QUICK, QUICK.setup, tr, "bistable"), k))),
        (("padhye", None, "bernoulli", 0.2, k), _core.LossModel.bernoulli(0.2).sample(n, H.channel_seed(QUICK.seed, H.padhye_cell(QUICK, QUICK.setup, 0.2), k))),
    ]  # fmt: skip
    for key, channel in cases:
        row = by[key]
        sat = Link(rate=2e6, delay=0.3, buffer=150_000, buffer_unit="bytes", loss=_core.LossModel.bernoulli(1e-5))
        wifi = Link(rate=5.3e6, delay=0.0, buffer=100, loss=_core.LossModel.replay(channel, slot=0.005), loss_mode="time",
                    link_layer=Arq(retry_limit=7, counts="attempts", backoff=Backoff()))  # fmt: skip
        tcp = TcpConfig(variant="reno", mss=1000, init_cwnd=2, delayed_ack=False, rto_min=1.0)
        net = Network([Hop("satellite", sat), Hop("wifi", wifi)], [Flow("flow", ["satellite", "wifi"], tcp=tcp)], duration=200.0, warmup=40.0, seed=seed)
        r = run_network(net)
        f, ll = r.flows["flow"], r.links["wifi"].link_layer
        assert row["seed"] == seed and row["goodput_bps"] == f.goodput_bps, key
        assert (row["timeouts"], row["segments_lost"], row["wifi_frames"], row["wifi_dropped"]) == (f.timeouts, f.packets_lost, ll.frames, ll.dropped), key
        assert row["key"] == config_hash(json.loads(row["config"]))


def test_partial_store_resumes_to_the_same_tables(quick: Any, tmp_path: Path) -> None:
    """Delete a third of the rows and a fit (a study killed part way), re-run on one worker:
    only those run again and every table and the report come out identical."""
    part = tmp_path / "partial"
    shutil.copytree(quick.out, part)
    with ResultStore(part / "store.duckdb", "runs", H.RUN_SCHEMA) as st:
        st.connection.execute("DELETE FROM runs WHERE (replicate + hash(cell)) % 3 = 0")
        left = len(st)
    with ResultStore(part / "store.duckdb", "fits", H.FIT_SCHEMA) as st:
        st.connection.execute("DELETE FROM fits WHERE model = 'hmm'")
    assert 0 < left < len(quick.runs)
    again = HS.run_study(QUICK, part, workers=1, progress=False, formats=("png", "pdf"))
    assert again.ran == len(quick.runs) - left and again.skipped == left
    assert _runs(part) == _runs(quick.out)
    for f in ("cells.csv", "traces.csv", "fig03.csv", "fig04.csv", "ranking.csv", "claims.csv", "sensitivity.csv", "report.md"):
        assert (part / f).read_text().replace(str(part), str(quick.out)) == (quick.out / f).read_text(), f
    # fits.csv differs only in the refitted models' timing
    strip = lambda p: [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(p.open())]  # noqa: E731
    assert strip(part / "fits.csv") == strip(quick.out / "fits.csv")


def test_dask_cluster_gives_the_same_rows(tmp_path: Path) -> None:
    cfg = replace(QUICK, sweep=False, all_models=False, synth_fers=(0.1,), padhye_fers=(0.1,), duration=60.0, warmup=10.0)
    ref = HS.run_study(cfg, tmp_path / "local", workers=1, progress=False)
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        viadask = HS.run_study(cfg, tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert viadask.ran == ref.ran > 0
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "local")
    assert not list((tmp_path / "local" / "figures").glob("*.pdf")) and ".pdf" not in ref.report_md.read_text()


# --------------------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("xm", "alpha"), [(1.0, 1.5), (3.7, 1.5), (12.0, 2.5), (1.3, 1.2)])
def test_floor_pareto_mean_is_the_sum_of_its_tail(xm: float, alpha: float) -> None:
    """E[⌊X⌋] = Σ_{l≥1} P(X ≥ l) = Σ min(1, (x_m/l)^α): the closed form against the sum to
    10^6 plus the integral bound of the rest (∫_{N}^{∞} (x_m/l)^α dl)."""
    n = 10**6
    ls = np.arange(1, n + 1, dtype=float)
    direct = float(np.minimum(1.0, (xm / ls) ** alpha).sum())
    rest = xm**alpha * n ** (1 - alpha) / (alpha - 1)
    assert direct < H._floor_pareto_mean(xm, alpha) <= direct + rest + 1e-9


def test_synthetic_set_has_its_fer_and_burst_law() -> None:
    """With α = 2.5 (finite variance) a long sample's FER is the target within five standard
    errors (from batch means), its bursts have the mean of ``synthetic_burst``, its trace is
    labelled synthetic; the burst law: 2 slots at 10 %, ∝ √odds, at least 1."""
    assert H.synthetic_burst(0.1, 2.0, 0.5) == pytest.approx(2.0)
    assert H.synthetic_burst(0.3, 2.0, 0.5) == pytest.approx(2.0 * math.sqrt((0.3 / 0.7) / (0.1 / 0.9)))
    assert H.synthetic_burst(0.02, 2.0, 0.5) == 1.0 and H.synthetic_burst(0.3, 2.0, 0.0) == 2.0
    tr = H.synthetic_channel(0.2, 2.5, 2.0, 0.5, 2_000_000, seed=5)
    assert tr.name.startswith("synthetic/") and tr.meta["synthetic"] is True and tr.interval == 0.005
    lost = 1.0 - tr.to_numpy().astype(float)
    batches = lost.reshape(100, -1).mean(axis=1)
    assert abs(lost.mean() - 0.2) < 5 * batches.std(ddof=1) / 10
    bursts = tr.bits.run_lengths(False).astype(float)
    b = H.synthetic_burst(0.2, 2.0, 0.5)
    assert abs(bursts.mean() - b) < 5 * bursts.std(ddof=1) / math.sqrt(bursts.size)


def test_tail_test_tells_a_power_law_from_a_geometric_tail() -> None:
    """Vuong's z: positive beyond 1.96 for ⌊Pareto⌋ gaps (α recovered within 5 standard
    errors, α/√n for the tail's n points), negative beyond −1.96 for geometric gaps."""
    rng = np.random.default_rng(3)
    pareto = np.floor(5.0 * (1 - rng.random(20_000)) ** (-1 / 1.5))
    t = R.tail_test(pareto)
    assert t["z"] > 1.96 and abs(t["alpha"] - 1.5) < 5 * 1.5 / math.sqrt(t["n_tail"])
    geo = rng.geometric(0.05, 20_000).astype(float)
    assert R.tail_test(geo)["z"] < -1.96
    assert math.isnan(R.tail_test(np.ones(10))["z"])


def test_channel_bookkeeping() -> None:
    """The trace condition's offsets differ per replicate and do not depend on how many there
    are; a channel's sampling seed depends on (trace, condition, k), not on the network's
    settings (the same channels at every sensitivity point)."""
    offs = [H.trace_offset(k, 60_000) for k in range(10)]
    assert offs[0] == 0 and len(set(offs)) == 10 and all(0 <= o < 60_000 for o in offs)
    trs, _ = H.load_traces(QUICK)
    a = H.table1_cell(QUICK, QUICK.setup, trs[0], "bistable")
    b = H.table1_cell(QUICK, replace(QUICK.setup, backoff="none", variant="sack"), trs[0], "bistable")
    assert H.cell_id(a) != H.cell_id(b) and H.channel_seed(0, a, 3) == H.channel_seed(0, b, 3) != H.channel_seed(0, a, 4)


def test_padhye_goodput_is_the_full_model_at_the_cells_means() -> None:
    from burstlab.analytic import padhye

    c = H.CellStats({}, 2, np.array([1.0, 1.0]), 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, seg_loss=0.01, rtt=0.7, rto=1.5, timeouts=0, spurious=0, queue_drops=0,
                    sat_queue_delay=0, residual=0, raw_attempt_loss=0, attempts=1, late=0, channel_fer=0, channel_burst=1, channel_gap=1)  # fmt: skip
    g, est = H.padhye_goodput(c, 1000, False, None)
    assert g == pytest.approx(padhye(0.01, 0.7, 1.5, 1.0, None, 1000).pps * 0.99 * 8000) and est.regime == "loss-limited"
    assert math.isnan(H.padhye_goodput(replace(c, seg_loss=0.0), 1000, False, None)[0])


# --------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------
def test_ttem_folder(tmp_path: Path) -> None:
    """--traces: Ttem files (1 = bad, 5 ms) are raw channels; a README beside them is skipped."""
    d = tmp_path / "ttem"
    d.mkdir()
    rng = np.random.default_rng(1)
    for i, p in enumerate((0.05, 0.2)):
        bad = (rng.random(4000) < p).astype(int)
        (d / f"ch{i}.ttem").write_text("\n".join(map(str, bad)) + "\n")
    (d / "README.md").write_text("two channels\n")
    cfg = replace(QUICK, dataset="traces", traces_dir=str(d), sweep=False, all_models=False, padhye_fers=(0.1,), duration=30.0, warmup=5.0)
    with pytest.warns(DataSupportWarning, match=r"2 of 2 traces are looped more than 1 time to cover a 30 s run \(the shortest, 20 s, 1\.5 times\)"):
        trs, notes = H.load_traces(cfg)  # 4,000 entries of 5 ms: 20 s, replayed 1.5 times in a 30-s run
    assert [t.name for t in trs] == ["ch0.ttem", "ch1.ttem"] and all(t.interval == 0.005 and not t.synthetic for t in trs)
    assert trs[0].fer == pytest.approx(0.05, abs=0.02) and any("README.md" in n for n in notes)
    res = HS.run_study(cfg, tmp_path / "out", workers=1, progress=False)
    assert "synthetic" not in res.report_md.read_text().splitlines()[0] and len(res.runs) == (2 * 5 + 2) * cfg.seeds


@pytest.mark.skipif(not (SHARED / "rutgers-noise").is_dir(), reason="Rutgers data not found (set BURSTLAB_SHARED)")
def test_rutgers_links_as_raw_channels() -> None:
    """301 frames per link, no timing: one frame per --slot; the kept links span the FER range."""
    cfg = replace(QUICK, dataset="rutgers", rutgers_noise=("dbm-10",), max_traces=4, fer_range=(0.02, 0.4))
    with pytest.warns(DataSupportWarning, match=r"4 of 4 traces are looped more than 1 time"):
        trs, notes = H.load_traces(cfg)  # 301 frames of 5 ms against the run's length: said, with numbers
    assert len(trs) == 4 and all(t.length == 301 and t.interval == 0.005 and 0.02 <= t.fer <= 0.4 for t in trs)
    assert [t.fer for t in trs] == sorted(t.fer for t in trs) and any("no timing" in n for n in notes)


@pytest.mark.skipif(not (SHARED / "tossim-noise").is_dir(), reason="TOSSIM data not found (set BURSTLAB_SHARED)")
def test_tossim_links_as_raw_channels() -> None:
    cfg = replace(QUICK, dataset="tossim", synth_fers=(0.05, 0.2), max_traces=None)
    trs, _ = H.load_traces(cfg)
    assert len(trs) == 4 and all(t.interval == 0.005 and t.length > 190_000 for t in trs)
    for target in (0.05, 0.2):  # the signal strength is solved for the expected FER of each file
        assert sum(1 for t in trs if abs(t.fer - target) < 0.01) == 2


def test_bad_parameters_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid parameter counts"):
        H.Setup(counts="tries")
    with pytest.raises(ValueError, match="seeds"):
        H.StudyConfig(seeds=1)
    with pytest.raises(ValueError, match="fer-range"):
        H.StudyConfig(fer_range=(0.5, 0.1))
    cmd = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "study", "hybrid", "--out", str(tmp_path / "o")]
    for bad in (["--retry-limit", "0"], ["--runs", "1"], ["--backoff", "maybe"], ["--dataset", "rutgers", "--synthetic-alpha", "2"],
                ["--traces", str(tmp_path), "--dataset", "tossim"], ["--sat-buffer", "big"]):  # fmt: skip
        r = subprocess.run([*cmd, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and "Traceback" not in r.stderr and "rror" in r.stderr, (bad, r.stderr)
    assert not (tmp_path / "o").exists()


def test_why_follows_the_verdicts(quick: Any) -> None:
    """A mechanism paragraph that explains a verdict appears only beside that verdict: flip
    the Wi-Fi buffer claim's outcome and its paragraph comes or goes."""
    base, pts = H.environments(QUICK, quick.runs)
    vs = HC.verdicts(QUICK, base, pts, R.gap_rows(QUICK, base.traces), True)
    assert any(v.claim.id == "s2b-wifi-buffer" for v in vs)

    def text(outcome: str) -> str:
        return " ".join(R.why(QUICK, base, pts, [replace(v, outcome=outcome) if v.claim.id == "s2b-wifi-buffer" else v for v in vs]))

    assert "The Wi-Fi buffer matters" in text("contradicted")
    assert "The Wi-Fi buffer matters" not in text("reproduced") and "The Wi-Fi buffer matters" not in text("inconclusive")


def test_adaptive_replication_adds_runs_while_claims_are_undecided(quick: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget, the claims judged on the defaults after the planned runs decide whether
    runs are added (here: always "more would decide", up to the budget): one more run per
    cell of the defaults (the two planned are in the store), and the Reproduce line gives
    the configuration reached."""
    import burstlab.experiments.common as C
    import burstlab.study.verdict as V

    seen: list[tuple[int, int, int]] = []

    def more(vs: Any, n: int, budget: int) -> int:
        seen.append((len(vs), n, budget))
        return budget

    monkeypatch.setattr(V, "replicates_to_add", more)
    monkeypatch.setattr(C, "replicates_to_add", more)  # where the cell studies look it up
    out = tmp_path / "q"
    shutil.copytree(quick.out, out)
    cfg = replace(QUICK, quick=False, budget=3, sweep=False)
    planned = sum(len(t.items) for t in H.plan(cfg, {r["key"]: r for r in quick.fits})[0])
    res = HS.run_study(cfg, out, workers=1, progress=False)
    assert res.ran == planned // 2 > 0 and len(res.runs) == planned * 3 // 2
    assert [s[1:] for s in seen] == [(2, 3), (3, 3)] and seen[0][0] >= 5
    assert "--runs 3" in res.report_md.read_text()


def test_rate_adaptation_option_turns_bad_slots_into_a_deep_fade(tmp_path: Path) -> None:
    """rate_control (docs/study-hybrid.md): with "off" the Wi-Fi hop replays the slots as
    lost or not at 11 Mb/s; otherwise the slots are an SNR trace (GOOD_SNR_DB, BAD_SNR_DB)
    and the controller's low rates carry frames through a bad period: lower residual loss,
    attempts at 1-2 Mb/s; the report explains it under the sensitivity point."""
    from burstlab.phy import frame_error

    assert frame_error("cck11", H.BAD_SNR_DB, 1076) > 0.999 and frame_error("dsss1", H.BAD_SNR_DB, 1076) < 1e-3
    assert max(frame_error(m, H.GOOD_SNR_DB, 1076) for m in ("dsss1", "dsss2", "cck5.5", "cck11")) < 1e-6
    bits = _core.BitTrace.from_str01("1100011111")
    ch = H.snr_channel(bits, 0.005)
    # the SNR trace of 11 Mb/s frames at 1 ms spacing: lost exactly in the bad slots [10, 25) ms
    lost = ~np.asarray(ch.sample(50, 1).to_numpy(), dtype=bool)
    assert not lost[:10].any() and lost[10:25].all() and not lost[25:].any()
    with pytest.raises(_core.ParameterError, match="rate_control"):
        H.Setup(rate_control="onoe")
    cfg = H.StudyConfig.quick_config(duration=200.0, warmup=40.0, fit_slots=2000, sensitivity=(("rate_control", ("off", "minstrel")),))
    res = HS.run_study(cfg, tmp_path / "ra", workers=1, progress=False, formats=("png",))
    _, pts = H.environments(cfg, res.runs)
    by = {v: e for name, v, e in pts if name == "rate_control"}
    off = [x for t in by["off"].traces if (x := by["off"].table1(t, "trace")) is not None]
    mi = [x for t in by["minstrel"].traces if (x := by["minstrel"].table1(t, "trace")) is not None]
    assert off and mi
    assert all(x.low_rate_share == 0.0 and x.mean_rate == 11e6 for x in off)
    assert all(0 < x.low_rate_share < 1 and x.mean_rate < 11e6 for x in mi)
    # the bursts that exhaust 11 Mb/s attempts pass at 1-2 Mb/s: less residual loss on the traces
    assert np.mean([x.residual for x in mi]) < np.mean([x.residual for x in off])
    report = (tmp_path / "ra" / "report.md").read_text()
    assert "**Rate adaptation**" in report and "MINSTREL: (e)'s mean goodput" in report


def test_fits_grouped_so_shared_em_runs_once() -> None:
    """The HMM, HSMM and VDDP fits of a trace (same slots) run in one task, so the pool's
    process computes their shared Baum-Welch fits once; every other fit is a task of its own;
    nothing is lost or repeated."""
    tasks = H.plan_fits(QUICK)
    groups = H.group_fits(tasks)
    assert sorted(t.key for g in groups for t in g) == sorted(t.key for t in tasks)
    for g in groups:
        if len(g) > 1:
            assert {t.model for t in g} <= set(H.SHARED_EM) and len({(t.trace_fp, t.fit_slots) for t in g}) == 1
    shared = [t for t in tasks if t.model in H.SHARED_EM]
    assert sum(len(g) > 1 for g in groups) == len({(t.trace_fp, t.fit_slots) for t in shared}) > 0
    assert all(len(g) == 1 for g in groups if g[0].model not in H.SHARED_EM)
