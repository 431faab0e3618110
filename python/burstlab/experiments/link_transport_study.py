"""Subramanian, Ramakrishnan & Kalyanaraman's link-transport study, whole: plan and simulate
(:mod:`burstlab.experiments.link_transport`), judge the claims
(:mod:`burstlab.experiments.link_transport_claims`), write the tables, figures and report
(:mod:`burstlab.experiments.link_transport_report`). Its own module so that those three import
the study's definitions without the study importing them back (no import cycle)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from burstlab.experiments.common import StudyResult, run_adaptive_study
from burstlab.experiments.link_transport import (
    RUN_SCHEMA,
    Env,
    cell_stats,
    cells,
    items,
    plan,
    run_task,
    trace_channels,
)
from burstlab.experiments.link_transport_claims import verdicts
from burstlab.experiments.link_transport_report import TABLE1, write_outputs
from burstlab.experiments.link_transport_settings import STUDY, StudyConfig
from burstlab.store import ResultStore


def run_study(cfg: StudyConfig, out: str | Path, **kw: Any) -> StudyResult:
    """Run (or resume) the study; write the store, tables, figures and report under ``out``
    (:func:`burstlab.experiments.common.run_adaptive_study`). With a ``budget``, claims still
    inconclusive after ``seeds`` runs per cell get more runs
    (:class:`burstlab.experiments.common.Adaptive`); the report then gives the
    configuration reached, which reproduces the same run."""
    return run_adaptive_study(STUDY, cfg, out, plan, run_task, RUN_SCHEMA, baseline_verdicts, write_outputs, "runs", **kw)


def baseline_verdicts(cfg: StudyConfig, store: ResultStore) -> list[Any]:
    """The claims judged on the defaults' cells as the store holds them (adaptive
    replication). A claim whose cells this configuration does not run is left out here
    as in the report, which names it once."""
    tc = trace_channels(cfg.traces, cfg.setup.alive_prr)
    keys = [i.key for p in cells(cfg, cfg.setup, tc, full=True) for i in items(cfg, p, cfg.seeds)]
    env = Env(cfg, cfg.setup, cell_stats(store.rows_with_keys(keys, order_by="r.cell, r.replicate")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return verdicts(cfg, env, TABLE1)
