"""The link- and transport-protocol study (Subramanian, Ramakrishnan, Kalyanaraman) end to end
on a reduced configuration over a small folder of traces in the Rutgers ORBIT layout:
outputs exist and the report links them, its rows equal direct simulations of the documented
networks, a partial store resumes to the same tables on another worker count, bad input is one
``error:`` line; known answers (a lossless ARQ hop, ARQ's residual loss p^R)."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from burstlab._core import LossModel
from burstlab.cli import main
from burstlab.experiments import link_transport as L
from burstlab.experiments import link_transport_study as LS
from burstlab.linklayer import Arq, Harq
from burstlab.sim import Link, TcpConfig, presets, run, run_network
from burstlab.store import ResultStore, config_hash
from burstlab.traces import Trace

#: Per noise level: each link's reception probability in good and bad periods (a bursty channel).
_LEVELS = {-10: 0.97, -5: 0.7, 0: 0.45}


def make_traces(root: Path, links: int = 6, seed: int = 7) -> Path:
    """A small folder in the Rutgers layout (data/dbm<noise>/Results_node<TX>_DailyTest_x/sdec<RX>):
    ``links`` links at three noise levels, 301 frames each, losses in runs; link 0 is dead at
    the quietest level (not selected), link 1 empty at the noisiest (a dead link: all lost)."""
    rng = np.random.default_rng(seed)
    for level, prr in _LEVELS.items():
        for k in range(links):
            d = root / "data" / f"dbm{level}" / f"Results_node1-{k}_DailyTest_1"
            d.mkdir(parents=True, exist_ok=True)
            good = np.repeat(rng.random(31) < prr, 10)[:301]  # runs of 10 frames
            if k == 0 and level == -10:
                good[:] = False
            if k == 1 and level == 0:
                good[:] = False
            (d / f"sdec2-{k}").write_text("".join(f"{i} 40\n" for i in np.flatnonzero(good)))
    return root


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_traces(tmp_path_factory.mktemp("orbit"))


def tiny(traces: Path, **kw: Any) -> L.StudyConfig:
    """The smallest study that still draws every figure and runs one sweep."""
    base = dict(traces=str(traces), seeds=2, sweep_seeds=2, uniform_ps=(0.0, 0.5), table1_ps=(0.0, 0.3), ltcp_ps=(0.0, 0.3), ltcp_rtts=(0.1,),
                sensitivity=(("persistence", (7, 15)),))  # fmt: skip
    return L.StudyConfig.quick_config(L.Setup(duration=20.0), **{**base, **kw})


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def _runs(out: Path) -> list[tuple[Any, ...]]:
    with ResultStore(out / "store.duckdb", "runs", L.RUN_SCHEMA) as st:
        return [tuple(r.values()) for r in st.rows()]


@pytest.fixture(scope="module")
def study(traces: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return LS.run_study(tiny(traces), tmp_path_factory.mktemp("lt") / "tiny", workers=2, progress=False)


def test_outputs(study: Any, traces: Path) -> None:
    cfg = tiny(traces)
    out = study.out
    planned = sum(len(t.items) for t in L.plan(cfg))
    assert study.ran == planned == len(study.runs) == len(_runs(out))
    md, html = study.report_md.read_text(), study.report_html.read_text()
    assert "Quick run" in md and "<table>" in html
    for name in ("fig1", "fig4", "fig7", "slide9", "slide10", "slides15-18-trace", "slides15-18-synthetic", "table1", "slides19-20", "sensitivity"):
        png = study.figures[name]
        assert png.stat().st_size > 1000 and str(png.relative_to(out)) in md, name
    claims = _csv(out / "claims.csv")
    assert len(claims) >= len(study.claims) >= 20  # the study's verdicts, then those under each open parameter's settings
    assert all(c["verdict"] in ("reproduced", "contradicted", "inconclusive") and c["preview"] == "true" for c in claims)
    assert "preview: not evidence" in md
    # Table 1 beside the slides' numbers, verbatim
    t1 = _csv(out / "table1.csv")
    assert {(r["error_rate"], r["quantity"], r["paper"]) for r in t1} >= {("0.3", "Goodput (Mb/s)", "5.61"), ("0.3", "PFEC sent (Mb/s)", "3.77")}
    assert "| Goodput (Mb/s) | 9.96 / " in md
    sens = _csv(out / "sensitivity.csv")
    assert len(sens) == 1 + 2
    # the trace links: PRR ≥ 0.5 at the quietest level (link 0 is dead there)
    tc = L.trace_channels(str(traces), 0.5)
    assert len(tc.links) == json.loads((out / "summary.json").read_text())["trace_links"] and ("1-0", "2-0") not in tc.links


def test_rows_equal_direct_simulations(study: Any, traces: Path) -> None:
    """A row is the documented network with replicate k's seed: the ORBIT hop over the
    trace channel, 4 LL-HARQ hops under LT-TCP, Table 1's ten flows, slides 19-20's link."""
    tc = L.trace_channels(str(traces), 0.5)
    seed = L.replicate_seed(0, 1)
    by = {(r["experiment"], r["channel"], r["noise_dbm"], r["p"], r["persistence"], r["link"], r["tcp"], r["hops"], r["replicate"]): r
          for r in study.runs if r["buffer"] in (100, 250)}  # fmt: skip
    common = {"duration": 20.0, "seed": seed}

    def replay(level: int, hop: int) -> LossModel:
        """The replicate's channel: an entry per millisecond (time mode)."""
        return LossModel.replay(Trace(tc.sequence(level, seed, hop)).bits, end="wrap", slot=1e-3)

    arq = Arq(retry_limit=15, counts="attempts", timing=(0.3e-3, 2e-3))
    orbit = presets.chain([Link(delay=0.001, buffer=100, loss=replay(-5, 0), loss_mode="time", link_layer=arq)], tcp=TcpConfig(variant="sack", rto_min=0.2),
                          **common)  # fmt: skip
    harq = Harq(attempts=2, timing=100e-6, rate=10e6)
    four = presets.chain([Link(delay=0.01, buffer=100, loss=LossModel.bernoulli(0.5), link_layer=harq)] * 4, tcp=TcpConfig(variant="lt-tcp", rto_min=0.2), **common)
    table1 = presets.chain([Link(delay=0.01, buffer=100, loss=LossModel.bernoulli(0.3), link_layer=harq)], tcp=TcpConfig(variant="sack", rto_min=0.2),
                           flows=10, **common)  # fmt: skip
    for key, net in ((("orbit", "orbit", -5, None, 15, "arq", "sack", 1, 1), orbit), (("lltx", "uniform", None, 0.5, None, "llharq", "lt-tcp", 4, 1), four),
                     (("table1", "uniform", None, 0.3, None, "llharq", "sack", 1, 1), table1)):  # fmt: skip
        row = by[key]
        r = run_network(net)
        assert row["seed"] == seed and row["goodput_bps"] == pytest.approx(sum(f.goodput_bps for f in r.flows.values()), rel=1e-12), key
        assert row["timeouts"] == sum(f.timeouts for f in r.flows.values()), key
        hops = [r.links[f"h{k}"].link_layer for k in range(key[7])]
        assert row["frames"] == sum(h.frames for h in hops) and row["dropped"] == sum(h.dropped for h in hops), key
        assert row["pfec_sent_bps"] == pytest.approx(hops[0].fec["pfec_sent"][1] * 8 / 20.0), key
        assert row["key"] == config_hash(json.loads(row["config"]))
    # slides 19-20: benchmarks/lt_tcp/subramanian.py's scenario
    row = by[("ltcp", "uniform", None, 0.3, None, None, "lt-tcp", 1, 1)]
    r = run(L.slides19_scenario("lt-tcp", 0.3, seed, duration=20.0))
    assert (row["goodput_bps"], row["lt_pfec"]) == (r.goodput_bps, r.pfec_sent)


def test_partial_store_resumes_to_the_same_tables(study: Any, traces: Path, tmp_path: Path) -> None:
    """Delete a third of the rows (a study killed part way), re-run on one worker instead of
    two: only those run again and every table and the report come out identical."""
    part = tmp_path / "partial"
    shutil.copytree(study.out, part)
    with ResultStore(part / "store.duckdb", "runs", L.RUN_SCHEMA) as st:
        st.connection.execute("DELETE FROM runs WHERE (replicate + hash(cell)) % 3 = 0")
        left = len(st)
    assert 0 < left < len(study.runs)
    again = LS.run_study(tiny(traces), part, workers=1, progress=False)
    assert again.ran == len(study.runs) - left and again.skipped == left
    assert _runs(part) == _runs(study.out)
    for f in ("cells.csv", "claims.csv", "sensitivity.csv", "table1.csv", "report.md"):
        assert (part / f).read_text().replace(str(part), str(study.out)) == (study.out / f).read_text(), f


# --------------------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------------------
def test_dask_cluster_and_one_worker_give_the_same_rows(traces: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    cfg = tiny(traces, sweep=False)
    ref = LS.run_study(cfg, tmp_path / "local", workers=1, progress=False)
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        viadask = LS.run_study(cfg, tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert viadask.ran == ref.ran > 0
    assert _runs(tmp_path / "dask") == _runs(tmp_path / "local")


def _binomial_ok(k: int, n: int, q: float) -> bool:
    """k successes of n within 4 binomial standard errors of n·q (and at least one unit)."""
    return abs(k - n * q) <= 4 * math.sqrt(n * q * (1 - q)) + 1


def test_arq_residual_loss_is_p_to_the_r(study: Any) -> None:
    """The ORBIT hop over uniform loss p per attempt: a frame is dropped iff its R attempts
    all fail, probability p^R, independently of the others (attempt outcomes are i.i.d.): the
    drops over all frames are Binomial(frames, p^R)."""
    for r in (7, 15, 25):
        rows = [x for x in study.runs if x["experiment"] == "orbit" and x["channel"] == "uniform" and x["p"] == 0.5 and x["persistence"] == r and x["buffer"] == 100]
        frames, dropped = sum(x["frames"] for x in rows), sum(x["dropped"] for x in rows)
        assert frames > 10_000 and _binomial_ok(dropped, frames, 0.5**r), (r, dropped, frames)
        # raw loss per attempt: Binomial(attempts, 1/2)
        att, lost = sum(x["units_sent"] for x in rows), sum(x["units_lost"] for x in rows)
        assert _binomial_ok(lost, att, 0.5), (r, lost, att)


def test_lossless_hop_carries_every_frame_once(study: Any) -> None:
    """Uniform loss 0: every frame one attempt, nothing lost, and the MAC throughput is the
    lossless link's: one 1040-byte frame per attempt, the attempts back to back — busy share
    (delivered frames × mean attempt time ÷ duration) at most 1 and, TCP keeping the
    100-packet buffer full after its first second, at least (20 − 1)/20 — up to the
    sampling error of the mean attempt time (a uniform attempt in [0.3, 2] ms has a standard
    deviation of 0.49 ms against its mean of 1.15: 4 standard errors over the frames)."""
    rows = [x for x in study.runs if x["experiment"] == "orbit" and x["channel"] == "uniform" and x["p"] == 0.0 and x["buffer"] == 100]
    assert rows
    for x in rows:
        assert x["attempts"] == x["frames"] and x["dropped"] == x["units_lost"] == 0 and x["raw_loss"] == x["residual_loss"] == 0
        busy = x["mac_bps"] / (1040 * 8) * x["attempt_time_mean"]  # frames per second × seconds per frame
        tol = 4 * (1.7e-3 / math.sqrt(12) / 1.15e-3) / math.sqrt(x["frames"])
        assert 19 / 20 - tol <= busy <= 1 + tol, (busy, tol)


def test_frame_error_unit_gives_fragments_their_share() -> None:
    """error_unit = frame: a fragment of 96 + 4 bytes of a 1048-byte frame (1000 + 40 + 8
    LLC/SNAP, cut into 11) keeps (1 − p)^(100/1048) — independent bit errors."""
    p = {"p": 0.5, "error_unit": "frame", "link": "llharq", "fragment_bytes": 100, "mss": 1000}
    assert L.unit_loss(p) == pytest.approx(1 - 0.5 ** (100 / 1048))
    assert L.unit_loss({**p, "error_unit": "unit"}) == 0.5 and L.unit_loss({**p, "link": "llarq"}) == 0.5


@pytest.mark.parametrize("unit", ["ber", "snr"])
def test_size_aware_error_units(unit: str) -> None:
    """error_unit = ber / snr: the channel loses a whole LL-ARQ frame (1048 bytes with
    LLC/SNAP) with p and each LL-HARQ fragment (96 + 4 bytes) at its own size, as the
    per-frame reading does by conversion: bit errors (1 − p)^(800/8384), or 802.11a 12 Mb/s's
    curve at the SNR that loses the frame with p (its own PHY header and symbol padding:
    within 10 % of the bit-error figure)."""
    from burstlab.linklayer import measure

    s = L.Setup(error_unit=unit)
    n = 40_000
    for link, want in (("llarq", 0.3), ("llharq", 1 - 0.7 ** (800 / 8384))):
        cell = L.lltx_cell(s, ("uniform", 0.3), link, "sack", 1)
        m = measure(L.link_layer(cell), L.channel_loss(cell, 1, 0), frames=n, frame_bytes=1040, seed=4)
        se = math.sqrt(want * (1 - want) / m.units_sent)
        tol = 5 * se if unit == "ber" or link == "llarq" else 0.1 * want
        assert abs(m.raw_loss_rate - want) <= tol, (unit, link, m.raw_loss_rate, want)
    with pytest.raises(Exception, match="error_unit"):
        L.Setup(error_unit="bits")


def test_shared_rutgers_channels(shared: Path) -> None:
    """The Rutgers ORBIT traces: the links alive at dbm-10 lose more at dbm-5 and more
    again at dbm0 (the folders' noise order)."""
    tc = L.trace_channels(None, 0.5)
    assert tc.levels == (-10, -5, 0) and len(tc.links) > 100
    assert tc.raw_loss(-10) < tc.raw_loss(-5) < tc.raw_loss(0)


@pytest.mark.parametrize(
    "args, text",
    [
        (["--traces", "{missing}"], "invalid --traces {missing}: no data/ folder"),
        (["--traces", "{empty}"], "no dbm<noise> folder"),
        (["--attempt-min", "5ms", "--attempt-max", "1ms"], "invalid parameter attempt_min/attempt_max"),
        (["--noise", "-7"], "invalid parameter noise = -7: the traces have levels dbm-10, dbm-5, dbm0"),
        (["--example-noise", "-7"], "invalid parameter example_noise = -7"),
        (["--seeds", "3", "--sweep-seeds", "4"], "sweep-seeds"),
    ],
)
def test_bad_input_is_one_error_line(args: list[str], text: str, traces: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty" / "data").mkdir(parents=True)
    subst = {"missing": str(tmp_path / "missing"), "empty": str(tmp_path / "empty")}
    argv = ["study", "link-transport", "--quick", "--traces", str(traces), "--out", str(tmp_path / "out"), *(a.format(**subst) for a in args)]
    rc = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: ") and text.format(**subst) in err[0], err
    assert not (tmp_path / "out").exists()


def test_why_follows_the_verdicts(study: Any, traces: Path) -> None:
    """The persistence paragraph explains a contradiction: it appears only beside it."""
    from dataclasses import replace

    from burstlab.experiments import link_transport_claims as LC
    from burstlab.experiments import link_transport_report as R

    cfg = tiny(traces)
    base, _ = L.environments(cfg, study.runs)
    vs = LC.verdicts(cfg, base, R.TABLE1)

    def text(outcome: str) -> str:
        return " ".join(R.why(cfg, base, [replace(v, outcome=outcome) if v.claim.id == "slide6-goodput-falls" else v for v in vs]))

    assert "Persistence and MAC throughput" in text("contradicted")
    assert "Persistence and MAC throughput" not in text("reproduced") and "Persistence and MAC throughput" not in text("inconclusive")


def test_adaptive_replication_adds_runs_while_claims_are_undecided(traces: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget, the claims judged on the defaults after the planned runs decide whether
    runs are added (here: always "more would decide", up to the budget), every cell of the
    plan gets them, and the report's Reproduce line gives the configuration reached."""
    import burstlab.experiments.common as C
    import burstlab.study.verdict as V

    seen: list[tuple[int, int, int]] = []

    def more(vs: Any, n: int, budget: int) -> int:
        seen.append((len(vs), n, budget))
        return budget

    monkeypatch.setattr(V, "replicates_to_add", more)
    monkeypatch.setattr(C, "replicates_to_add", more)  # where the cell studies look it up
    cfg = tiny(traces, quick=False, budget=3, sweep=False)
    res = LS.run_study(cfg, tmp_path / "a", workers=1, progress=False)
    reached = sum(len(t.items) for t in L.plan(dataclasses.replace(cfg, seeds=3)))
    assert res.ran == reached == len(res.runs) > sum(len(t.items) for t in L.plan(cfg))
    assert [s[1:] for s in seen] == [(2, 3), (3, 3)] and seen[0][0] >= 10  # judged on the defaults, then stopped at the budget
    assert "--seeds 3" in res.report_md.read_text()
    again = LS.run_study(dataclasses.replace(cfg, budget=None), tmp_path / "b", workers=1, progress=False)
    assert again.ran == sum(len(t.items) for t in L.plan(cfg))  # --budget 0: never
