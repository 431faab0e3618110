"""Barsocchi, Oligeri & Potortì's hybrid-path study, whole: plan and simulate
(:mod:`burstlab.experiments.hybrid`), judge the claims
(:mod:`burstlab.experiments.hybrid_claims`), write the tables, figures and report
(:mod:`burstlab.experiments.hybrid_report`). Its own module so that those three import the
study's definitions without the study importing them back (no import cycle)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from burstlab.experiments.common import Adaptive, run_keyed_study
from burstlab.experiments.hybrid import (
    FIT_SCHEMA,
    RUN_SCHEMA,
    Env,
    StudyResult,
    cell_stats,
    cells,
    items,
    load_traces,
    plan,
    group_fits,
    plan_fits,
    run_fits,
    run_task,
)
from burstlab.experiments.hybrid_claims import verdicts
from burstlab.experiments.hybrid_report import gap_rows, write_outputs
from burstlab.experiments.hybrid_settings import StudyConfig
from burstlab.store import ResultStore
from burstlab.study.commit import commit_in_batches
from burstlab.sweep import run_tasks


def run_study(
    cfg: StudyConfig,
    out: str | Path,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    formats: Sequence[str] = ("png",),
) -> StudyResult:
    """Run (or resume) the study: fit the models (table ``fits`` of the store), run the
    simulations (table ``runs``), write the tables, figures (PNG, and the other ``formats``)
    and report under ``out``."""
    say = log or (lambda s: None)
    t0 = time.perf_counter()
    out = Path(out)
    trs, notes = load_traces(cfg)
    say(f"{len(trs)} channel traces ({'synthetic' if cfg.dataset == 'synthetic' else cfg.dataset}): " + ", ".join(f"{t.name} (FER {100 * t.fer:.1f} %)" for t in trs[:4])
        + (" …" if len(trs) > 4 else ""))  # fmt: skip
    fit_tasks = plan_fits(cfg)
    out.mkdir(parents=True, exist_ok=True)
    with ResultStore(out / "store.duckdb", "fits", FIT_SCHEMA) as fstore:
        have = fstore.keys()
        todo = [t for t in fit_tasks if t.key not in have]
        say(f"{len(fit_tasks)} model fits: {len(fit_tasks) - len(todo)} already in the store, {len(todo)} to do")
        # committed together at most every second (FLUSH_EVERY_S): a commit per fit (~15 ms each) was ~1.3 s of a --quick run's 90 fits
        fitted = run_tasks(run_fits, group_fits(todo), workers=workers, cluster=cluster, progress=progress, description="hybrid fits", help_while_starting=True)
        commit_in_batches(fitted, fstore)
        fits_rows = fstore.rows_with_keys([t.key for t in fit_tasks], order_by="r.trace, r.model") if fit_tasks else []
    fits = {r["key"]: r for r in fits_rows}
    tasks, skipped_cells = plan(cfg, fits)
    rounds = Adaptive(cfg, lambda c: plan(c, fits)[0], baseline_verdicts, "runs", log)

    def outputs(out: Path, store: ResultStore, runs: list[dict[str, Any]]) -> Any:
        return write_outputs(rounds.cfg, out, store, runs, fits_rows, [*notes, *skipped_cells], formats, progress=progress)

    res = run_keyed_study("hybrid", tasks, functools.partial(run_task, study_seed=cfg.seed), RUN_SCHEMA, out, outputs, workers=workers, cluster=cluster, progress=progress, log=log,
                          rounds=rounds)  # type: ignore[arg-type]  # fmt: skip
    return StudyResult(**{**vars(res), "elapsed_s": time.perf_counter() - t0}, fits=fits_rows)


def baseline_verdicts(cfg: StudyConfig, store: ResultStore) -> list[Any]:
    """The claims judged on the defaults' cells as the store holds them (adaptive
    replication; the claims judged across sweep points are left to the report)."""
    keys = [i.key for p in cells(cfg, cfg.setup, True) for i in items(cfg, p, cfg.seeds)]
    env = Env(cfg, cfg.setup, cell_stats(store.rows_with_keys(keys, order_by="r.cell, r.replicate")))
    return verdicts(cfg, env, [], gap_rows(cfg, env.traces), cfg.dataset == "synthetic")
