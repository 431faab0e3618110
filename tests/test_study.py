"""The PRR/μ study end to end on small configurations: outputs exist, their numbers equal
direct API calls (run_trace, trace_stats, the fits), worker count and Dask do not change a
number, and a killed, interrupted (Ctrl-C) or starved (disk) study ends with the exit code
and message the contract promises, leaves no process behind and resumes to the same table."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pytest

from burstlab import fits, sim
from burstlab._core import LossModel
from burstlab.datasets.synthetic import synthetic_testbed
from burstlab.experiments.prr_mu import PROFILES, StudyConfig, run_study
from burstlab.experiments.prr_mu_settings import QUICK
from burstlab.stats import trace_stats
from burstlab.store import ResultStore
from burstlab.sweep import task_seed
from burstlab.traces import Trace

# 36 links × 6,000 slots, 2 seeds per synthetic condition: 180 short simulations, 20+ links to fit.
SMALL = StudyConfig(dataset="synthetic", n_links=36, n_slots=6000, replicates=2, folds=3)
TINY = StudyConfig(dataset="synthetic", n_links=8, n_slots=3000, replicates=1)


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def _runs_table(out: Path) -> list[tuple[Any, ...]]:
    with ResultStore(out / "store.duckdb", "runs", _schema()) as st:
        return [tuple(r.values()) for r in st.rows()]


def _schema() -> dict[str, str]:
    from burstlab.experiments.prr_mu import RUN_SCHEMA

    return RUN_SCHEMA


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("study-small")
    with pytest.MonkeyPatch.context() as mp:  # on a pool although it is small: the pool's path is what the worker-count tests check
        mp.setattr("burstlab.experiments.prr_mu.POOL_MIN_SLOTS", 0)
        return run_study(SMALL, out, workers=2, progress=False, formats=("png", "pdf"))


def test_outputs_exist(small: Any) -> None:
    out = small.out
    assert small.report_md.exists() and small.report_html.exists()
    md = small.report_md.read_text()
    assert "Synthetic data" in md and "synthetic testbed" in small.report_html.read_text()
    for name in ("fig01", "fig03", "fig04", "fig06", "fig08", "fig15", "fig16", "fig19", "fig20"):
        png = small.figures[name]
        assert png.stat().st_size > 1000 and png.with_suffix(".pdf").stat().st_size > 1000
        assert str(png.relative_to(out)) in md  # the report links every figure
    # 6000-slot links: too short to show μ level off (Srinivasan et al. §8: 40,000 packets), so no Fig. 17, and the report says why
    assert "fig17" not in small.figures and "Not drawn: Fig. 17: no link has the 40,000 packets" in md
    assert "6000 packets" in md or "shorter than the length after which μ converges" in md
    # the fitted figures (Srinivasan et al. Figs. 11, 12) of the one group, linked from the report too
    for name in ("fig11-synthetic", "fig12-synthetic"):
        png = small.figures[name]
        assert png.stat().st_size > 1000 and str(png.relative_to(out)) in md
    for f in ("store.duckdb", "links.csv", "results.csv", "fig13.csv", "summary.json"):
        assert (out / f).exists()
    # one row per link × condition × replicate
    n_links = len(small.links)
    assert len(small.runs) == n_links * (1 + 2 * SMALL.replicates)


def test_numbers_equal_direct_api_calls(small: Any) -> None:
    prof = PROFILES["mirage"]
    traces = {t.name: t for t in synthetic_testbed(SMALL.n_links, SMALL.n_slots, SMALL.testbed_seed, prof.slot)}
    links = {r["link_id"]: r for r in _csv(small.out / "links.csv")}
    runs = {(r["link_id"], r["condition"], r["replicate"]): r for r in small.runs}
    tcp = sim.TcpConfig(**SMALL.tcp())
    for lid in sorted(links)[:4]:
        row = links[lid]
        st = trace_stats(traces[lid], warn=False)
        assert float(row["prr"]) == pytest.approx(st.prr, abs=1e-12)
        assert float(row["mu"]) == pytest.approx(st.mu, abs=1e-12)
        assert int(row["max_success_run"]) == st.success_runs.max
        # (a) the empirical trace
        seed = task_seed(SMALL.seed, lid, "empirical", 0)
        res = sim.run_trace(traces[lid], slot=prof.slot, tcp=tcp, ack_path="lossless", seed=seed)
        assert float(row["throughput_pps"]) == pytest.approx(res.goodput_pps, rel=1e-12)
        # (b) the independent links and (c) the GE links, each replicate with its own seed
        ind, ge = [], []
        for rep in range(SMALL.replicates):
            s = task_seed(SMALL.seed, lid, "independent", rep)
            t = Trace(LossModel.bernoulli(1 - st.prr).sample(len(traces[lid]), s))
            ind.append(sim.run_trace(t, slot=prof.slot, tcp=tcp, ack_path="lossless", seed=s).goodput_pps)
            assert runs[(lid, "independent", rep)]["throughput_pps"] == pytest.approx(ind[-1], rel=1e-12)
            s = task_seed(SMALL.seed, lid, "ge", rep)
            t = Trace(LossModel.gilbert_elliott_prr_mu(st.prr, st.mu).sample(len(traces[lid]), s))
            ge.append(sim.run_trace(t, slot=prof.slot, tcp=tcp, ack_path="lossless", seed=s).goodput_pps)
            assert runs[(lid, "ge", rep)]["max_success_run"] == trace_stats(t, warn=False).success_runs.max
        assert float(row["independent_pps"]) == pytest.approx(np.mean(ind), rel=1e-12)
        assert float(row["ge_pps"]) == pytest.approx(np.mean(ge), rel=1e-12)
        assert float(row["diff_pct"]) == pytest.approx(100 * (res.goodput_pps - np.mean(ind)) / np.mean(ind), rel=1e-9)


def test_fit_table_equals_fits_api(small: Any) -> None:
    res = _csv(small.out / "results.csv")
    assert res and all(0.2 <= float(r["prr"]) <= 0.6 for r in res)
    prr = np.array([float(r["prr"]) for r in res])
    mu = np.array([float(r["mu"]) for r in res])
    thr = np.array([float(r["throughput_pps"]) for r in res])
    direct = fits.fig13_row(prr, mu, thr, group="synthetic", link_pps=100.0, folds=SMALL.folds, seed=SMALL.seed)
    (row,) = _csv(small.out / "fig13.csv")
    def num(v: str) -> float:
        return float(v) if v else float("nan")  # empty: the fit was not made

    for col, fs in (("err_prr", "prr"), ("err_15", "fifteen"), ("err_2nd", "second_order")):
        assert num(row[col]) == pytest.approx(direct.error[fs], rel=1e-9, nan_ok=True)
        assert num(row["cv_" + col]) == pytest.approx(direct.cv_error[fs], rel=1e-9, nan_ok=True)
    lo, hi = direct.improvement_interval("second_order", cv=True)
    assert (num(row["cv_impr_2nd_lo"]), num(row["cv_impr_2nd_hi"])) == pytest.approx((lo, hi), rel=1e-9)
    md = small.report_md.read_text()
    assert f"{100 * direct.error['prr']:.2f}" in md and f"{100 * direct.error['second_order']:.2f}" in md
    # fewer than 2 links per coefficient in a 3-fold training split: no 15-term fit, and the report says so
    assert set(direct.skipped) == {"fifteen"} and np.isnan(num(row["err_15"]))
    assert "No fit: group synthetic: no PRR and μ, 15 terms fit" in md
    # the store's `results` table is what `burstlab fit-throughput STORE` reads: the same rows
    for src in (small.out / "store.duckdb", small.out / "results.csv"):
        data = fits.read_results(src)
        assert sorted(np.asarray(data["throughput_pps"], dtype=float)) == pytest.approx(sorted(thr))
        assert set(np.asarray(data["group"]).astype(str)) == {"synthetic"}
    summary = json.loads((small.out / "summary.json").read_text())
    assert summary["fig13"][0]["err_15"] is None  # not made: null in strict JSON
    assert summary["fig13"][0]["err_2nd"] == pytest.approx(direct.error["second_order"], rel=1e-9)


def test_rerun_skips_everything_and_workers_do_not_matter(small: Any, tmp_path: Path) -> None:
    again = run_study(SMALL, small.out, workers=1, progress=False)
    assert again.ran == 0 and again.skipped == len(small.runs)
    one = run_study(SMALL, tmp_path / "one", workers=1, progress=False)
    assert one.ran == len(small.runs)
    assert _runs_table(tmp_path / "one") == _runs_table(small.out)
    assert (tmp_path / "one" / "links.csv").read_text() == (small.out / "links.csv").read_text()


def test_dask_cluster_gives_the_same_rows(tmp_path: Path) -> None:
    ref = run_study(TINY, tmp_path / "local", workers=1, progress=False)
    with distributed.LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        viadask = run_study(TINY, tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert viadask.ran == ref.ran > 0
    assert _runs_table(tmp_path / "dask") == _runs_table(tmp_path / "local")


CMD = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())"]
RESUME_ARGS = ["study", "prr-mu", "--links", "16", "--slots", "20000", "--seeds", "2", "--workers", "2", "--no-progress"]
#: Long enough per link that the simulations are still running when a few links are done, and
#: enough links that the pool's workers take part (the study runs links itself while the
#: forkserver imports matplotlib and scipy, a second or more).
LONG_LINKS = 40
#: Long enough (~8 s of simulation on 2 cores) that a kill after the first commits (the
#: store commits once a second) and after the pool is up lands mid-run on any machine;
#: the kill test runs it to the end twice. At 400,000 slots (1.3 s) a fast machine had
#: committed every row before the signal came.
def _long_args(slots: int) -> list[str]:
    return ["study", "prr-mu", "--links", str(LONG_LINKS), "--slots", str(slots), "--seeds", "2", "--workers", "2", "--no-progress"]


LONG_ARGS = _long_args(6_000_000)
#: For the Ctrl-C tests, which never run to the end: ~3× longer still, so that even a slow
#: start of the pool leaves most links to do when Ctrl-C comes.
CTRL_C_ARGS = _long_args(16_000_000)


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parent[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, pp in parent.items() if pp in frontier} - out
        out |= frontier
    return out


def _alive(pids: set[int]) -> set[int]:
    live = set()
    for q in pids:
        try:
            state = Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(q)
    return live


def _start(out: Path, args: list[str] = RESUME_ARGS) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([*CMD, *args, "--out", str(out)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _wait_finished(p: subprocess.Popen[str], n: int, timeout: float = 180, seen: set[int] | None = None, helpers: int = 0) -> int:
    """Read stderr until ``n`` links are reported finished and ``helpers`` processes were
    seen below the study (the study runs links itself while its pool starts); returns how
    many links were finished. Every process seen on the way is added to ``seen``."""
    assert p.stderr is not None
    finished = 0
    seen = set() if seen is None else seen
    deadline = time.monotonic() + timeout
    while (finished < n or len(seen) < helpers) and time.monotonic() < deadline:
        line = p.stderr.readline()
        seen |= _descendants(p.pid)
        if not line:
            break
        finished += line.startswith("finished ")
    return finished


def _status(line: str) -> bool:
    """A progress line of --no-progress (a finished link, a phase) or a note on how the study
    runs (e.g. in its own process: too small for a pool), not a result or an error."""
    return line.startswith(("finished ", "[", "note: ")) or " simulations: " in line


def _gone(pids: set[int], timeout: float = 10) -> set[int]:
    deadline = time.monotonic() + timeout
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _alive(pids)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study-full") / "full"
    full = subprocess.run([*CMD, *RESUME_ARGS, "--out", str(out)], capture_output=True, text=True, check=True)
    assert "0 reused" in full.stdout
    return out


def test_killed_study_resumes_to_the_same_table(tmp_path: Path) -> None:
    """SIGKILL mid-run: the workers, the forkserver and the resource tracker die with the
    study (they would otherwise hold the caller's pipes for minutes); the next run removes
    the temporary files the kill left, reuses every committed row and ends with the table
    of an uninterrupted run."""
    out = tmp_path / "killed"
    p = _start(out, LONG_ARGS)
    helpers: set[int] = set()
    try:
        finished = _wait_finished(p, 3, seen=helpers, helpers=4)
        helpers |= _descendants(p.pid)
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    assert finished >= 3, "the study did not report finished links before the kill"
    assert len(helpers) >= 4, helpers  # resource tracker, forkserver, two workers
    assert _gone(helpers) == set(), "processes outlived the killed study"
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read()  # the pipes are closed: every writer is gone
    p.stderr.read()
    p.stdout.close()
    p.stderr.close()
    partial = _runs_table(out)
    assert 0 < len(partial) < LONG_LINKS * 5
    stale = out / "figures" / ".fig03-throughput-vs-prr.png.ab12cd34.tmp.png"  # what a kill during savefig leaves
    stale.parent.mkdir(exist_ok=True)
    stale.write_bytes(b"half a figure")
    resumed = subprocess.run([*CMD, *LONG_ARGS, "--out", str(out)], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(partial)} reused from the store" in resumed.stdout
    assert "report: " in resumed.stdout and "Traceback" not in resumed.stderr
    assert not stale.exists()
    assert not [f for f in out.rglob(".*") if f.is_file()]
    full = subprocess.run([*CMD, *LONG_ARGS, "--out", str(tmp_path / "full")], capture_output=True, text=True, check=True)
    assert "0 reused" in full.stdout
    assert _runs_table(out) == _runs_table(tmp_path / "full")
    assert (out / "links.csv").read_text() == (tmp_path / "full" / "links.csv").read_text()


def _ctrl_c(p: subprocess.Popen[str]) -> None:
    """Send Ctrl-C to the study's process group; it must exit 130 with one `aborted` line
    (beside its status lines) and no traceback."""
    os.killpg(p.pid, signal.SIGINT)
    try:
        _, rest_err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
    assert p.returncode == 130, rest_err
    assert [ln for ln in rest_err.splitlines() if ln.strip() and not _status(ln)] == ["aborted"], rest_err


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while workers
    run: exit 130, one `aborted` line, no worker traceback, no process left; the rows
    committed before it are kept (resuming is the kill test's)."""
    out = tmp_path / "int"
    p = _start(out, CTRL_C_ARGS)
    helpers: set[int] = set()
    finished = _wait_finished(p, 2, seen=helpers, helpers=4)
    helpers |= _descendants(p.pid)
    assert len(helpers) >= 4, f"the study ended before its workers ran: {helpers}"
    _ctrl_c(p)
    assert finished >= 2
    assert _gone(helpers) == set(), helpers
    assert 0 < len(_runs_table(out)) < LONG_LINKS * 5  # what was committed before Ctrl-C stays


def test_ctrl_c_while_the_pool_starts_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C as the simulations begin, while the study runs the first links itself and the
    forkserver still imports matplotlib and scipy for the figures: the same one `aborted`
    line and exit 130 (no traceback from the forkserver's imports), no process left."""
    out = tmp_path / "int-early"
    p = _start(out, CTRL_C_ARGS)
    assert p.stderr is not None
    helpers: set[int] = set()
    deadline = time.monotonic() + 180
    line = ""
    while " simulations: " not in line and time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
    helpers |= _descendants(p.pid)
    assert " simulations: " in line, "the simulations did not start"
    _ctrl_c(p)
    assert helpers and _gone(helpers) == set(), helpers


def test_full_disk_is_one_line_and_resumes(tmp_path: Path, uninterrupted: Path) -> None:
    """A device that refuses more bytes (a per-file size limit, RLIMIT_FSIZE, which needs no
    privilege; the same code paths as ENOSPC, checked by hand on a full tmpfs, see
    docs/errors.md): exit 2 and one `error:` line naming the file, whether the results
    store or a figure is refused; with room again the study resumes to the same table."""
    import resource

    out = tmp_path / "starved"
    for limit in (15_000, 30_000):  # the store's log, then a figure, is the first refused
        def cap(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        r = subprocess.run([*CMD, *RESUME_ARGS, "--out", str(out)], capture_output=True, text=True, preexec_fn=cap)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not _status(ln)]
        assert r.returncode == 2, r.stderr
        assert len(lines) == 1 and lines[0].startswith(f"error: {out}") and "file too large" in lines[0].lower(), r.stderr
        assert not [f for f in out.rglob(".*") if f.is_file()]  # no temporary file left
    again = subprocess.run([*CMD, *RESUME_ARGS, "--out", str(out)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert _runs_table(out) == _runs_table(uninterrupted)


def test_cli_errors_are_clean(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "study", "prr-mu"]
    r = subprocess.run([*cmd, "--traces", str(tmp_path / "nope"), "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2 and "error:" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*cmd, "--seeds", "0", "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2 and "seeds" in r.stderr and "Traceback" not in r.stderr


def test_real_datasets_small(shared: Path, tmp_path: Path) -> None:
    """The study runs on the Rutgers and TOSSIM-derived links (a few links each) and says what
    the data can and cannot support."""
    r = run_study(StudyConfig(dataset="rutgers", max_links=12, replicates=1), tmp_path / "rutgers", workers=1, progress=False)
    md = r.report_md.read_text()
    assert "12 of 12 links are shorter than the length after which μ converges" in md and "μ has not converged at 301 packets" in md
    assert "No fit:" in md  # 12 links cannot carry a 16-coefficient fit
    assert all(row["length"] == 301 for row in r.runs) and r.links[0]["link_pps"] == 500.0
    t = run_study(StudyConfig(dataset="tossim", max_links=3, replicates=1, tossim_targets=(0.3, 0.5)), tmp_path / "tossim", workers=1, progress=False)
    assert len(t.links) == 3 and all(row["subgroup"] in ("meyer-heavy", "casino-lab") for row in t.links)
    assert "TOSSIM" in t.report_md.read_text()


def _seqlist(path: Path, bits: np.ndarray) -> None:
    path.write_text("".join(f"{i}\n" for i in np.flatnonzero(bits)))


def test_traces_folder_reading(tmp_path: Path) -> None:
    """`--traces DIR`: symlinked folders followed once, a README skipped with a note, an empty
    file skipped (no --expected) or an all-lost link (--expected N), a malformed file with a
    trace extension an error."""
    from burstlab.experiments.prr_mu import load_traces

    rng = np.random.default_rng(0)
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    for name, where in (("a.txt", d), ("b.txt", tmp_path / "elsewhere")):
        _seqlist(where / name, rng.random(500) < 0.4)
    (d / "sub" / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (d / "sub" / "loop").symlink_to(d, target_is_directory=True)  # a cycle: followed once
    (d / "empty.txt").write_text("")
    (d / "README.md").write_text("# my traces\nsequence lists of received packets\n")
    notes: list[str] = []
    cfg = StudyConfig(dataset="traces", traces_dir=str(d), fmt="seqlist")
    names = sorted(t.name for t in load_traces(cfg, notes))
    assert names == ["a.txt", "sub/linked/b.txt"]
    assert any(n.startswith("skipped README.md: not a trace (README.md:2:") for n in notes)
    assert any(n.startswith("skipped empty.txt: empty") and "--expected" in n for n in notes)
    notes = []
    with_n = {t.name: t for t in load_traces(StudyConfig(dataset="traces", traces_dir=str(d), fmt="seqlist", traces_expected=600), notes)}
    assert len(with_n["empty.txt"]) == 600 and with_n["empty.txt"].bits.count_ones() == 0  # an all-lost link
    assert len(with_n["a.txt"]) == 600
    (d / "c.txt").write_text("3\n1000\n")  # seq 1000 beyond --expected 600: dropped with --drop-beyond
    t = {t.name: t for t in load_traces(StudyConfig(dataset="traces", traces_dir=str(d), fmt="seqlist", traces_expected=600, traces_drop_beyond=True))}["c.txt"]
    assert t.meta["dropped"] == 1 and t.bits.count_ones() == 1
    (d / "bad.seq").write_text("1\nxyz\n")
    with pytest.raises(Exception, match=r"bad.seq:2"):
        load_traces(StudyConfig(dataset="traces", traces_dir=str(d), fmt="seqlist", traces_expected=600, traces_drop_beyond=True))


def test_input_warnings_name_the_cause_and_the_fix(tmp_path: Path) -> None:
    """A 0/1 loss indicator read as reception (PRR 0.003) is warned about, and a 0/1 file read
    as a sequence list (almost everything a duplicate) refused, with the flag that fixes them."""
    from burstlab.experiments.prr_mu import load_traces, select_links

    rng = np.random.default_rng(1)
    lossy = (rng.random(20000) < 0.003).astype(int)  # 1 = lost: PRR 0.003 when read as 1 = received
    d = tmp_path / "bits"
    d.mkdir()
    (d / "l.bits").write_text("\n".join(map(str, lossy)) + "\n")
    info: dict[str, Any] = {}
    cfg = StudyConfig(dataset="traces", traces_dir=str(d))
    select_links(cfg, load_traces(cfg), info)
    w, timing = info["warnings"]
    assert "l.bits (PRR 0.00" in w and "--one-means lost" in w
    # the timing a --traces folder was given without --profile is said, with the fix
    assert "profile mirage (10-ms slots" in timing and "--profile roofnet" in timing
    info = {}
    cfg = StudyConfig(dataset="traces", traces_dir=str(d), traces_one_means="lost", profile="mirage")
    links, _ = select_links(cfg, load_traces(cfg), info)
    assert info["warnings"] == [] and links == []  # PRR 0.997: fine, but outside 0.1-0.9
    # read as a sequence list, a 0/1 file is refused by the reader itself (burstlab.io; issue 13)
    from burstlab import TraceFormatError

    cfg = StudyConfig(dataset="traces", traces_dir=str(d), fmt="seqlist")
    with pytest.raises(TraceFormatError, match=r"l\.bits: 19998 of its 20000 sequence numbers repeat .*--format bits instead of --format seqlist"):
        load_traces(cfg)


def test_short_links_opening_runs_phases_and_rerun(tmp_path: Path) -> None:
    """A 3000-packet link that opens with 40 received frames and then loses everything: the
    report flags it as too short for μ to converge (Srinivasan et al. §8) and says its whole
    "difference" from its independent twins is that opening run. Every phase is announced; a
    re-run fits and draws nothing."""
    d = tmp_path / "in"
    d.mkdir()
    rng = np.random.default_rng(2)
    bits = np.zeros(3000, dtype=int)
    bits[:40] = 1
    bits[40:] = rng.random(2960) < 0.01  # a few stray receptions later
    (d / "opening.bits").write_text("\n".join(map(str, bits)) + "\n")
    (d / "plain.bits").write_text("\n".join(map(str, (rng.random(3000) < 0.3).astype(int))) + "\n")
    cfg = StudyConfig(dataset="traces", traces_dir=str(d), prr_range=(0.01, 0.9), replicates=2)
    lines: list[str] = []
    r = run_study(cfg, tmp_path / "out", workers=1, progress=False, log=lines.append)
    from burstlab.experiments.prr_mu import PHASES

    import re

    for k, ph in enumerate(PHASES, 1):  # each phase ends with its time (the first says only that: bad input stays one line)
        assert any(re.fullmatch(rf"\[{k}/{len(PHASES)}\] {ph}( \(.*\))? done in {r.timings[ph]:.2f} s", x) for x in lines), lines
        assert k == 1 or any(x.startswith(f"[{k}/{len(PHASES)}] {ph}") and x.endswith("…") for x in lines)
    row = {x["link_id"]: x for x in r.links}["opening.bits"]
    assert row["opening_run"] == 40 and row["delivered"] >= 40 and not row["converged"]
    assert row["opening_makes_diff"] and row["diff_pct"] > 100
    md = r.report_md.read_text()
    assert "2 of 2 links are shorter than the length after which μ converges" in md
    assert "owe all of it to their opening run" in md
    figs = {p: p.stat().st_mtime_ns for p in (tmp_path / "out" / "figures").glob("*.png")}
    again = run_study(cfg, tmp_path / "out", workers=1, progress=False)
    assert again.ran == 0 and {p: p.stat().st_mtime_ns for p in figs} == figs  # nothing redrawn
    assert again.report_md.read_text() == md


def test_subsample_gives_fig14_and_ab(tmp_path: Path) -> None:
    cfg = StudyConfig(dataset="synthetic", n_links=16, n_slots=6000, replicates=1, subsample=3)
    r = run_study(cfg, tmp_path / "sub", workers=1, progress=False)
    assert all(row["length"] == 2000 for row in r.runs)
    assert "fig14" in r.figures and "fig08" not in r.figures and r.figures["fig14"].exists()
    md = r.report_md.read_text()
    assert "sub-sampled every 3" in md and "--subsample 3" in md


def test_a_study_too_small_for_a_pool_runs_in_its_process_and_says_so(tmp_path: Path) -> None:
    """Below POOL_MIN_SLOTS simulated slots a pool costs more than it saves: the study runs
    in its own process whatever --workers says, says so on its log, and gives the same
    numbers; --quick is below it, the default study above."""
    from burstlab.experiments import prr_mu

    assert prr_mu.slots_bound(StudyConfig(**QUICK)) < prr_mu.POOL_MIN_SLOTS <= prr_mu.slots_bound(StudyConfig())  # type: ignore[operator]
    assert prr_mu.slots_bound(StudyConfig(dataset="rutgers")) is None  # unknown before the traces are read
    lines: list[str] = []
    two = run_study(TINY, tmp_path / "two", workers=2, progress=False, log=lines.append)
    assert any(s.startswith("note: ") and "runs in this process" in s for s in lines), lines
    one = run_study(TINY, tmp_path / "one", workers=1, progress=False)
    assert _csv(two.out / "results.csv") == _csv(one.out / "results.csv")
