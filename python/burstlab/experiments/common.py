"""What the simulation studies share (:mod:`~burstlab.experiments.error_models`,
:mod:`~burstlab.experiments.tibet`): cells keyed by their parameters, tasks of items that
resume from the store, paired statistics over replicates with common random numbers, and
atomic JSON.

A *cell* is one simulated configuration (a dict of plain values); an *item* is one cell
with one replicate, keyed by :func:`burstlab.store.config_hash` of {study, params,
replicate, seed, burstlab version, ...}: a killed study resumes from the rows it has, and
the rows never depend on the worker count.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from burstlab._util import json_safe
from burstlab.io import atomic_write_text
from burstlab.store import ResultStore, canonical_json, results_version
from burstlab.study.report import render_html, render_md, replace_table as _replace_table, write_csv
from burstlab.study.commit import commit_in_batches
from burstlab.study.estimate import bootstrap_cache
from burstlab.study.settings import check_seeds, check_sensitivity  # noqa: F401  (re-exported: the studies' configurations use them)
from burstlab.study.verdict import COLUMNS, replicates_to_add
from burstlab.sweep import run_tasks
from burstlab.study.estimate import add_t_quantiles, known_t_quantiles, t_quantile

T = TypeVar("T")


@dataclass(frozen=True)
class Item:
    """One simulation: a cell, its replicate, seed, key and configuration."""

    cell: str
    params: dict[str, Any]
    replicate: int
    seed: int
    key: str
    config: str


@dataclass(frozen=True)
class Task:
    """A group of simulations run by one worker call (one environment × one experiment
    group): its items."""

    name: str
    items: tuple[Item, ...]


def cell_hash(study: str, p: dict[str, Any]) -> str:
    """A short identity of a cell: SHA-256 of its parameters' canonical JSON (they are plain
    values — str, int, float, bool, None — so ``json.dumps`` with sorted keys is canonical)."""
    text = json.dumps({"study": study, "cell": p}, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keyed_items(study: str, cid: str, p: dict[str, Any], seeds: Sequence[int], extra: dict[str, Any] | None = None) -> list[Item]:
    """Replicates 0..len(seeds)−1 of cell ``p`` (id ``cid``), replicate k with ``seeds[k]``.
    Each key is :func:`burstlab.store.config_hash` of {study, params, replicate, seed,
    burstlab version, and ``extra``}; the parameters are checked once (``canonical_json``),
    then each replicate's text is ``json.dumps`` of plain values, which is the same
    canonical text at a fraction of the cost."""
    extra = extra or {}
    if any(k >= "replicate" or k in ("burstlab_version", "params") for k in extra):
        raise ValueError(f"extra keys must sort before 'replicate' and not shadow the item's own: {sorted(extra)}")
    canonical_json(p)  # plain, finite, JSON-serialisable, or a ParameterError
    # Sorted keys: burstlab_version, <extra>, params | replicate, seed, study.
    head = json.dumps({"burstlab_version": results_version(), **extra, "params": p}, sort_keys=True, separators=(",", ":"))[:-1]
    out = []
    for k, seed in enumerate(seeds):
        text = f'{head},"replicate":{k},"seed":{seed},"study":"{study}"}}'
        out.append(Item(cid, p, k, seed, hashlib.sha256(text.encode()).hexdigest(), text))
    return out


def cell_groups(items: Sequence[Item]) -> list[list[Item]]:
    """``items`` cut into runs of consecutive items of one cell (its replicates, which differ
    only by their seed: :func:`burstlab.sim.run_network_seeds` simulates them with the
    cell's set-up done once)."""
    out: list[list[Item]] = []
    for it in items:
        if out and out[-1][0].cell == it.cell:
            out[-1].append(it)
        else:
            out.append([it])
    return out


def by_cell(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The store's run rows grouped by their ``cell``, each group in replicate order (the order
    the statistics and the paired comparisons of a cell read them in)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["cell"], []).append(r)
    return {cid: sorted(rs, key=lambda r: r["replicate"]) for cid, rs in by.items()}


def sweep_points(cfg: Any) -> list[tuple[str, Any, Any]]:
    """(parameter, value, environment) of every sensitivity point of a study configuration
    (``setup``, ``sweep``, ``sensitivity``: (name, values) pairs of the setup's fields, each
    varied alone); the defaults are the ("baseline", None, setup) point."""
    pts: list[tuple[str, Any, Any]] = [("baseline", None, cfg.setup)]
    if cfg.sweep:
        for name, values in cfg.sensitivity:
            pts += [(name, v, replace(cfg.setup, **{name: v})) for v in values]
    return pts


def environments(cfg: Any, runs: Sequence[dict[str, Any]], cell_stats: Callable[[Sequence[dict[str, Any]]], Any], env: Callable[..., T],
                 points: Sequence[tuple[str, Any, Any]], full: Sequence[str] = ("baseline",)) -> tuple[T, list[tuple[str, Any, T]]]:  # fmt: skip
    """The baseline environment and every sensitivity point's (``points``, baseline first), as
    ``env(cfg, setup, stats)``: the points named in ``full`` on every replicate, the others
    on the first ``cfg.sweep_seeds``, so that along one parameter every point, its default
    included, uses the same replicates (common random numbers)."""
    every = cell_stats(runs)
    few = cell_stats([r for r in runs if r["replicate"] < cfg.sweep_seeds])
    pts = [(name, v, env(cfg, s, every if name in full else few)) for name, v, s in points]
    return pts[0][2], pts[1:]


def pending(tasks: Sequence[T], done: set[str]) -> list[T]:
    """The tasks with their finished items removed (resume): a :class:`Task`, or any
    dataclass with ``items`` of :class:`Item` (a study whose tasks carry more)."""
    out = []
    for t in tasks:
        left = tuple(i for i in t.items if i.key not in done)  # type: ignore[attr-defined]
        if left:
            out.append(replace(t, items=left))  # type: ignore[type-var]
    return out


@functools.lru_cache(maxsize=1024)
def t95(n: int) -> float:
    """Student's t quantile for a two-sided 95 % interval with n − 1 degrees of freedom
    (``scipy.special.stdtrit``, the same numbers as ``scipy.stats.t.ppf`` without importing
    scipy.stats)."""

    return t_quantile(n, 0.95)


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean of the finite values and its 95 % Student-t half-width (NaN with fewer than two)."""
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return math.nan, math.nan
    if len(x) == 1:
        return float(x[0]), math.nan
    return float(np.mean(x)), t95(len(x)) * float(np.std(x, ddof=1)) / math.sqrt(len(x))


@dataclass(frozen=True)
class Ratio:
    """mean(x) / mean(y) over paired replicates, with a delta-method 95 % interval
    (var R ≈ R²·(s²ₓ/(n·x̄²) + s²ᵧ/(n·ȳ²) − 2·sₓᵧ/(n·x̄·ȳ)); the pairing — common random
    numbers — enters through the covariance)."""

    value: float
    lo: float
    hi: float
    n: int

    def __format__(self, spec: str) -> str:
        if not math.isfinite(self.value):
            return "–"
        spec = spec or ".2f"
        return f"{self.value:{spec}} [{self.lo:{spec}}, {self.hi:{spec}}]"


NAN_RATIO = Ratio(math.nan, math.nan, math.nan, 0)


def paired_ratio(x: np.ndarray, y: np.ndarray) -> Ratio:
    """Ratio of means of two cells (arrays by replicate; pairs with a NaN dropped)."""
    n_all = min(len(x), len(y))
    x, y = np.asarray(x[:n_all], float), np.asarray(y[:n_all], float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = len(x)
    if n < 2 or np.mean(y) <= 0:
        return Ratio(math.nan, math.nan, math.nan, n)
    mx, my = float(np.mean(x)), float(np.mean(y))
    r = mx / my
    c = np.cov(x, y, ddof=1)
    var = r * r * (c[0, 0] / (n * mx * mx) + c[1, 1] / (n * my * my) - 2 * c[0, 1] / (n * mx * my))
    h = t95(n) * math.sqrt(max(var, 0.0))
    return Ratio(r, r - h, r + h, n)


def paired_difference(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """mean(x − y) over paired replicates and its 95 % CI half-width."""
    n_all = min(len(x), len(y))
    d = np.asarray(x[:n_all], float) - np.asarray(y[:n_all], float)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return math.nan, math.nan
    return float(np.mean(d)), t95(len(d)) * float(np.std(d, ddof=1)) / math.sqrt(len(d))


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (NaN → null)."""
    atomic_write_text(path, json.dumps(json_safe(obj), indent=2, allow_nan=False, default=str))


# --------------------------------------------------------------------------------------
# a study of keyed cells, from the plan to the report
# --------------------------------------------------------------------------------------
@dataclass
class StudyResult:
    """Where a study wrote its outputs, and what it computed."""

    out: Path
    store_path: Path
    report_md: Path
    report_html: Path
    runs: list[dict[str, Any]]
    figures: dict[str, Path]
    claims: list[dict[str, Any]]
    ran: int
    skipped: int
    elapsed_s: float


#: What a study's ``write_outputs`` returns: (figures, claims, report.md, report.html).
Outputs = tuple[dict[str, Path], list[dict[str, Any]], Path, Path]


def run_pending(
    description: str,
    tasks: Sequence[Task],
    run_task: Callable[[Task], list[dict[str, Any]]],
    store: ResultStore,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Run the items of ``tasks`` the ``store`` lacks (``run_task`` on local processes or a
    Dask cluster; finished tasks committed in batches, :func:`~burstlab.study.commit.commit_in_batches`);
    every planned row read back, and how many ran."""
    say = log or (lambda s: None)
    keys = [i.key for t in tasks for i in t.items]
    todo = pending(tasks, store.keys())
    n_todo = sum(len(t.items) for t in todo)
    say(f"{len(keys)} simulations in {len(tasks)} tasks: {len(keys) - n_todo} already in {store.path}, {n_todo} to run")

    def committed(task: Task, k: int) -> None:
        if not progress:
            say(f"finished {task.name} ({k}/{len(todo)} tasks)")

    # whole tasks, committed together at most every second (FLUSH_EVERY_S): a commit per task was ~40 % of tibet's CPU
    # help_while_starting: this process runs tasks until the pool's forkserver has imported the study
    commit_in_batches(run_tasks(run_task, todo, workers=workers, cluster=cluster, progress=progress, description=description, help_while_starting=True),
                      store, committed=committed)  # fmt: skip
    return store.rows_with_keys(keys, order_by="r.cell, r.replicate"), n_todo


def run_keyed_study(
    description: str,
    tasks: Sequence[Task],
    run_task: Callable[[Task], list[dict[str, Any]]],
    schema: dict[str, str],
    out: str | Path,
    write_outputs: Callable[[Path, ResultStore, list[dict[str, Any]]], Outputs],
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    rounds: Callable[[ResultStore], tuple[Sequence[Task], int]] | None = None,
) -> StudyResult:
    """Run (or resume) the ``tasks`` of a study: the items the store under ``out`` lacks run
    (:func:`run_pending`), then every planned row is read back and
    ``write_outputs(out, store, runs)`` writes the tables, figures and report. ``rounds``
    (adaptive replication): called with the store after the tasks ran, returns the tasks
    to run next and how many items they hold; the study stops adding rounds when it
    returns no new item, and its last tasks are the ones reported."""
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    store_path = out / "store.duckdb"
    with ResultStore(store_path, "runs", schema) as store:
        runs, ran = run_pending(description, tasks, run_task, store, workers=workers, cluster=cluster, progress=progress, log=log)
        total = sum(len(t.items) for t in tasks)
        while rounds is not None:
            nxt, n_items = rounds(store)
            if n_items <= total:
                break
            tasks, total = nxt, n_items
            runs, more = run_pending(description, tasks, run_task, store, workers=workers, cluster=cluster, progress=progress, log=log)
            ran += more
        # a re-run on the same rows recomputes no interval; the figures are drawn on the study's local workers
        with bootstrap_cache(out / ".cache" / "bootstrap.json"), figure_workers(workers if cluster is None else 1):
            figures, claims, md, html = write_outputs(out, store, runs)
    return StudyResult(out, store_path, md, html, runs, figures, claims, ran, total - ran, time.perf_counter() - t0)


def run_adaptive_study(
    description: str,
    cfg: Any,
    out: str | Path,
    plan: Callable[[Any], list[Task]],
    run_task: Callable[[Task], list[dict[str, Any]]],
    schema: dict[str, str],
    baseline: Callable[[Any, ResultStore], Sequence[Any]],
    write_outputs: Callable[..., Outputs],
    unit: str,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    formats: Sequence[str] = ("png",),
) -> StudyResult:
    """A study of keyed cells run whole (the ``run_study`` of error-models, tibet and
    link-transport): ``plan(cfg)``'s tasks through :func:`run_keyed_study`, with
    :class:`Adaptive` replication judged by ``baseline(cfg, store)`` (``unit``: what a
    replicate is called), and ``write_outputs(cfg, out, store, runs, formats,
    progress=...)`` with the configuration reached, which reproduces the same run."""
    rounds = Adaptive(cfg, plan, baseline, unit, log)

    def outputs(out: Path, store: ResultStore, runs: list[dict[str, Any]]) -> Outputs:
        return write_outputs(rounds.cfg, out, store, runs, formats, progress=progress)

    return run_keyed_study(description, plan(cfg), run_task, schema, out, outputs, workers=workers, cluster=cluster, progress=progress, log=log,
                           rounds=rounds)  # fmt: skip


#: Rounds of added replicates at most (adaptive replication).
MAX_ROUNDS = 4


class Adaptive:
    """Adaptive replication of a study of keyed cells: after the planned replicates ran,
    judge the claims on the defaults (``baseline(cfg, store)`` → the verdicts); while some
    claim is inconclusive and would likely decide within ``cfg.budget`` replicates per cell,
    raise ``cfg.seeds`` (:func:`burstlab.study.verdict.replicates_to_add`) and re-plan, in
    up to :data:`MAX_ROUNDS` rounds. ``cfg`` ends as the configuration reached, which
    reproduces the same run. A ``--quick`` run (a preview) never adds replicates."""

    def __init__(self, cfg: Any, plan: Callable[[Any], list[Task]], baseline: Callable[[Any, ResultStore], Sequence[Any]], unit: str,
                 log: Callable[[str], None] | None = None) -> None:  # fmt: skip
        self.cfg, self._plan, self._baseline, self._unit, self._log, self._rounds = cfg, plan, baseline, unit, log, 0

    def __call__(self, store: ResultStore) -> tuple[list[Task], int]:
        c = self.cfg
        if c.budget is None or c.quick or self._rounds >= MAX_ROUNDS:
            return [], 0
        vs = self._baseline(c, store)
        n = replicates_to_add(vs, c.seeds, c.budget)
        if n <= c.seeds:
            return [], 0
        if self._log:
            und = sum(v.outcome == "inconclusive" for v in vs)
            self._log(f"{und} claims inconclusive on {c.seeds} {self._unit} per cell: adding {self._unit} up to {n} (budget {c.budget})")
        self.cfg = replace(c, seeds=n)
        self._rounds += 1
        tasks = self._plan(self.cfg)
        return tasks, sum(len(t.items) for t in tasks)


def write_tables(out: Path, store: ResultStore, cells: list[dict[str, Any]], cell_columns: Sequence[str], claims: Sequence[dict[str, Any]],
                 sensitivity: Sequence[dict[str, Any]]) -> None:  # fmt: skip
    """``cells.csv`` and the store's ``cells`` table, ``claims.csv`` and the store's
    ``claims`` table (claims judged by :mod:`burstlab.study.verdict`: its ``COLUMNS``),
    ``sensitivity.csv``."""
    write_csv(out / "cells.csv", cells, cell_columns)
    _replace_table(store, "cells", cells, cell_columns)
    claim_columns = COLUMNS if claims and "id" in claims[0] else ["where", "claim", "paper", "ours", "verdict"]
    write_csv(out / "claims.csv", claims, claim_columns)
    if claims:
        _replace_table(store, "claims", claims, claim_columns)
    write_csv(out / "sensitivity.csv", sensitivity, list(sensitivity[0].keys()))


def show_param(name: str, v: Any, per: dict[str, float] | None = None, words: dict[str, dict[Any, str]] | None = None) -> str:
    """A parameter value as a study's tables print it: divided by ``per[name]`` into the
    table's unit (``{"rate": 1e6}``: Mb/s), spelled out by ``words[name]``, a receiver window
    of None as unlimited, booleans on/off, other floats with ``%g``."""
    if words and name in words:
        return words[name][v]
    if per and name in per and isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"{v / per[name]:g}"
    if name == "rwnd" and v is None:
        return "unlimited"
    if isinstance(v, bool):
        return "on" if v else "off"
    return f"{v:g}" if isinstance(v, float) else str(v)


def figure_saver(figdir: Path, formats: Sequence[str]) -> Callable[[Any, str], Path]:
    """``save(fig, name)``: write a matplotlib figure as ``figdir/name.EXT`` for each of
    ``formats`` (``svg``, ``png``, ``pdf``), close it, return the first format's path."""
    import matplotlib.pyplot as plt

    from burstlab import plot as P  # matplotlib, Agg backend

    def save(fig: Any, name: str) -> Path:
        try:
            return P.save_figure(fig, figdir, name, formats)
        finally:
            plt.close(fig)

    return save


def fixed_layout(fig: Any, *, left: float = 0.8, right: float = 0.2, bottom: float = 0.6, top: float = 0.6, wspace: float = 0.8,
                 hspace: float = 0.8) -> None:  # fmt: skip
    """Place a figure's grid of axes with margins and gaps in inches (``top`` holds the
    suptitle and the first row's titles, ``hspace`` a row's x labels and the next row's
    titles, ``wspace`` a column's y labels), set once: instead of ``tight_layout``, which
    measures every tick label and text of the figure in a draw of its own before
    ``savefig`` draws it again (a third of the drawing time of link-transport's figures)."""
    w, h = fig.get_size_inches()
    nrows, ncols = fig.axes[0].get_subplotspec().get_gridspec().get_geometry()
    aw = max((w - left - right - (ncols - 1) * wspace) / ncols, 0.1)
    ah = max((h - top - bottom - (nrows - 1) * hspace) / nrows, 0.1)
    fig.subplots_adjust(left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - top / h, wspace=wspace / aw, hspace=hspace / ah)


#: A figure to draw: (key in the report's figures, file name, function, its arguments).
FigureJob = tuple[str, str, Callable[..., Any], tuple[Any, ...]]


#: How many local processes :func:`draw_figures` uses (set by :func:`figure_workers`).
_FIGURE_WORKERS: int | None = 1


@contextmanager
def figure_workers(workers: int | None) -> Iterator[None]:
    """Within the block, :func:`draw_figures` draws on ``workers`` local processes (None: the
    default, every core this process may use; 1: in this process). A study's runner sets it
    to the study's own ``--workers`` (1 on a Dask cluster, whose workers need not share this
    machine's folders)."""
    global _FIGURE_WORKERS
    prev, _FIGURE_WORKERS = _FIGURE_WORKERS, workers
    try:
        yield
    finally:
        _FIGURE_WORKERS = prev


def _draw_job(job: tuple[str, Callable[..., Any], tuple[Any, ...], Path, tuple[str, ...], dict[tuple[int, float], float]]) -> Path:
    """Draw one figure and write its files (the pool's task: a module-level function), with
    the t quantiles the study's process already computed (the intervals a figure draws use
    the same ones: a figure worker then does not import scipy.special for them)."""
    name, fn, args, figdir, formats, t_quantiles = job
    add_t_quantiles(t_quantiles)
    return figure_saver(figdir, formats)(fn(*args), name)


def draw_figures(jobs: Sequence[FigureJob], figdir: Path, formats: Sequence[str], *, progress: bool = False, description: str = "figures") -> dict[str, Path]:
    """Draw and save every figure of ``jobs`` once (``fn(*args)``, then
    :func:`figure_saver`'s ``formats``), with progress on stderr (a bar with
    rate and time left on a terminal, plain lines otherwise): drawing takes seconds after
    the simulations' bar ends. On a study's local pool (:func:`figure_workers`) the figures
    are drawn in its workers, which fork from the pool's forkserver with the study (and
    matplotlib) already imported; this process draws until they can start. The files do not
    depend on where a figure is drawn. Returns key → path of the first format's file, in the order of ``jobs``."""
    tq = known_t_quantiles()
    tasks = [(name, fn, args, figdir, tuple(formats), tq) for _key, name, fn, args in jobs]
    drawn = {t[0]: path for t, path in run_tasks(_draw_job, tasks, workers=_FIGURE_WORKERS, progress=progress, description=description,
                                                  help_while_starting=True, unit="figures")}  # fmt: skip
    return {key: drawn[name] for key, name, _fn, _args in jobs}


def img_block(figs: dict[str, Path], out: Path, key: str, alt: str, pdf: bool) -> list[tuple[str, Any]]:
    """A report figure block: the figure (SVG or PNG), with a link to its PDF when this run wrote one (``--pdf``)."""
    return [("img", (str(figs[key].relative_to(out)), alt, pdf))] if key in figs else []


def write_report(out: Path, blocks: Sequence[tuple[str, Any]], title: str) -> tuple[Path, Path]:
    """``report.md`` and ``report.html`` (self-contained: figures embedded) from the report's
    blocks, atomically."""
    md, html = out / "report.md", out / "report.html"
    atomic_write_text(md, render_md(blocks))
    atomic_write_text(html, render_html(blocks, title, out))
    return md, html
