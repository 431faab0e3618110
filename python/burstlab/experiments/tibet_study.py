"""Martignon & Capone's TIBET study, whole: plan and simulate (:mod:`burstlab.experiments.tibet`),
judge the claims (:mod:`burstlab.experiments.tibet_claims`), write the tables, figures and
report (:mod:`burstlab.experiments.tibet_report`). Its own module so that those three import the
study's definitions without the study importing them back (no import cycle)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from burstlab.experiments.common import StudyResult, run_adaptive_study
from burstlab.experiments.tibet import (
    RUN_SCHEMA,
    Env,
    cell_stats,
    cells,
    items,
    plan,
    run_task,
)
from burstlab.experiments.tibet_claims import verdicts
from burstlab.experiments.tibet_report import write_outputs
from burstlab.experiments.tibet_settings import CCS, READINGS, StudyConfig
from burstlab.store import ResultStore


def run_study(cfg: StudyConfig, out: str | Path, **kw: Any) -> StudyResult:
    """Run (or resume) the study; write the store, tables, figures (PNG, and the other
    ``formats``) and report under ``out``
    (:func:`burstlab.experiments.common.run_adaptive_study`). With a ``budget``, claims still
    inconclusive after ``seeds`` runs per cell get more runs
    (:class:`burstlab.experiments.common.Adaptive`)."""
    return run_adaptive_study("tibet", cfg, out, plan, run_task, RUN_SCHEMA, baseline_verdicts, write_outputs, "runs", **kw)


def baseline_verdicts(cfg: StudyConfig, store: ResultStore) -> list[Any]:
    """The claims judged on the defaults' cells as the store holds them (adaptive replication)."""
    keys = [i.key for p in cells(cfg, cfg.setup, CCS, tuple(READINGS)) for i in items(cfg, p, cfg.seeds)]
    return verdicts(cfg, Env(cfg, cfg.setup, cell_stats(store.rows_with_keys(keys, order_by="r.cell, r.replicate"))))
