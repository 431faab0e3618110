"""Pentikousis & Badr's error-models study, whole: plan and simulate
(:mod:`burstlab.experiments.error_models`), judge the claims
(:mod:`burstlab.experiments.error_models_claims`), write the tables, figures and report
(:mod:`burstlab.experiments.error_models_report`). Its own module so that those three import the
study's definitions without the study importing them back (no import cycle)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from burstlab.experiments.common import StudyResult, run_adaptive_study
from burstlab.experiments.error_models import (
    RUN_SCHEMA,
    Env,
    cell_stats,
    cells,
    items,
    plan,
    run_task,
)
from burstlab.experiments.error_models_claims import verdicts
from burstlab.experiments.error_models_report import write_outputs
from burstlab.experiments.error_models_settings import StudyConfig
from burstlab.store import ResultStore


def run_study(cfg: StudyConfig, out: str | Path, **kw: Any) -> StudyResult:
    """Run (or resume) the study; write the store, tables, figures (PNG, and the other
    ``formats``, e.g. ``("png", "pdf")``) and report under ``out``
    (:func:`burstlab.experiments.common.run_adaptive_study`). With a ``budget``, claims still
    inconclusive after ``seeds`` transfers per cell get more transfers
    (:class:`burstlab.experiments.common.Adaptive`); the report then gives the
    configuration reached, which reproduces the same run."""
    return run_adaptive_study("error-models", cfg, out, plan, run_task, RUN_SCHEMA, baseline_verdicts, write_outputs, "transfers", **kw)


def baseline_verdicts(cfg: StudyConfig, store: ResultStore) -> list[Any]:
    """The claims judged on the defaults' cells as the store holds them (adaptive replication)."""
    keys = [i.key for p in cells(cfg, cfg.setup) for i in items(cfg, p, cfg.seeds)]
    return verdicts(cfg, Env(cfg, cfg.setup, cell_stats(store.rows_with_keys(keys, order_by="r.cell, r.replicate"))))
