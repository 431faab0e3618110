"""What a study is to the framework: the :class:`Study` protocol every study implements
(its name, its settings dataclasses, its claims, how the command line's values become its
configuration, how it runs and what it prints), and :class:`CellStudy`, the
implementation the studies of keyed cells share. ``burstlab study NAME`` is generated
from a study (:mod:`burstlab.cli.study`): one option per declared setting
(:mod:`burstlab.study.settings`), the options every study takes, and :func:`run`.

Adding a study: its module (a :class:`Study`), its claims module, and one line in
:mod:`burstlab.study.registry`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from burstlab import _gcpolicy
from burstlab._core import ParameterError
from burstlab.study.settings import declared, given
from burstlab.study.settings import flag
from burstlab.sweep import default_workers, set_forkserver_preload
import importlib

if TYPE_CHECKING:
    from burstlab.experiments.common import StudyResult


class UsageError(ParameterError):
    """Options that do not go together (an option for another input, ``--budget`` with
    ``--quick``): the command line reports it as a usage error (exit 2)."""


@runtime_checkable
class Study(Protocol):
    """A study of the framework.

    ``name``: the command (``burstlab study NAME``); ``title``: one line (the paper, what is
    reproduced); ``description``: the command's help; ``Setup``: the dataclass of its open
    parameters (None: it has none apart from its configuration); ``Config``: the dataclass
    of its configuration (both declared with :func:`burstlab.study.settings.setting`; the
    configuration's ``QUICK`` holds the ``--quick`` values); ``claims``: the module that
    declares its claims (``verdicts(...)``); ``unit``: what a replicate is ("runs",
    "transfers", "seeds"); ``budget``: whether it adds replicates to inconclusive claims."""

    name: str
    title: str
    description: str
    Setup: type | None
    Config: type
    claims: str
    unit: str
    budget: bool

    def configure(self, values: Mapping[str, Any], *, quick: bool) -> Any:
        """The configuration from the command line's values (None: not given)."""
        ...

    def run(self, cfg: Any, out: str, *, workers: int | None, cluster: str | None, progress: bool, log: Callable[[str], None] | None,
            formats: Sequence[str]) -> StudyResult:  # fmt: skip
        """Run (or resume) the study under ``out``: store, tables, figures, report."""
        ...

    def default_out(self, cfg: Any) -> str:
        """The output folder when ``--out`` is not given."""
        ...

    def summary(self, cfg: Any, res: StudyResult) -> list[str]:
        """What the command prints on stdout after the run of ``cfg``."""
        ...


def claims_line(claims: Sequence[dict[str, Any]]) -> str:
    """The tally of a study's judged claims (:func:`burstlab.study.verdict.tally`'s sentence,
    from the rows of ``claims.csv``): reproduced / contradicted / inconclusive, calibration
    checks apart, "preview: not evidence" for a ``--quick`` run."""
    from burstlab.study.verdict import OUTCOMES, PREVIEW

    counts = {o: sum(1 for c in claims if c["verdict"] == o and not c["calibration"]) for o in OUTCOMES}
    cal = sum(1 for c in claims if c["calibration"])
    s = f"{sum(counts.values())} claims: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
    s += f" (and {cal} calibration checks, not counted)" if cal else ""
    return s + (f" — {PREVIEW}" if any(c["preview"] for c in claims) else "")


def check_only(cls: Any, values: Mapping[str, Any], dataset: str, names: Mapping[str, str] | None = None) -> None:
    """Options given for another input than ``dataset`` (their declaration's ``only``) are
    a :class:`UsageError` naming them, never a silent no-op (docs/errors.md
    "Combinations"); ``names`` spells an input as the command line does."""

    def name(ds: str) -> str:
        return (names or {}).get(ds, f"--dataset {ds}")

    wrong = [(flag(f, c), c.only) for f, c in declared(cls) if c.only and dataset not in c.only and values.get(f.name) is not None]
    if wrong:
        what = "; ".join(f"{opt} is for {' or '.join(name(o) for o in only)}" for opt, only in wrong)
        raise UsageError(f"{', '.join(o for o, _ in wrong)} {'has' if len(wrong) == 1 else 'have'} no effect with {name(dataset)} ({what})")


def run_module(module: str, cfg: Any, out: str, *, workers: int | None = None, cluster: str | None = None, preload: Sequence[str] = (), **kw: Any) -> Any:
    """Run the study whose module is named ``module`` (its ``run_study``): loaded by name when
    the study runs, so that a study's settings stay light for ``burstlab study --help``.
    On a local pool, the pool's forkserver imports the study once and its workers fork with
    nothing left to import (each worker importing numpy, the simulator's wrappers and the
    study was why two workers were slower than one on a ``--quick`` study), and matplotlib,
    for the figures they draw (:func:`burstlab.experiments.common.draw_figures`), and ``preload``; a study that
    sets its own preload before its pool starts (prr-mu) replaces this one."""
    if cluster is None and (workers or default_workers()) > 1:
        set_forkserver_preload(module, "burstlab.plot", "matplotlib.pyplot", *preload)  # the workers also draw the figures
    with _gcpolicy.tuned():  # a study allocates many short-lived containers: fewer collector runs (docs/claims.md)
        return importlib.import_module(module).run_study(cfg, out, workers=workers, cluster=cluster, **kw)


class CellStudy:
    """A study of keyed cells (:mod:`burstlab.experiments.common`): a ``Setup`` of open
    parameters inside a ``Config`` derived from
    :class:`burstlab.study.settings.CellStudyConfig`. Subclasses name the study and point
    at the module whose ``run_study(cfg, out, ...)`` runs it."""

    name: str = ""
    title: str = ""
    description: str = ""
    Setup: type | None = None
    Config: type = object
    claims: str = ""
    unit: str = "runs"
    budget: bool = True
    #: The module with ``run_study`` (imported when the study runs, not when its options are built).
    module: str = ""
    #: More modules for a local pool's forkserver to import before it forks the workers (heavy
    #: libraries the study imports only inside the functions that need them).
    preload: tuple[str, ...] = ()

    def setup_values(self, values: Mapping[str, Any], *, quick: bool) -> dict[str, Any]:
        """The setup's fields: ``--quick``'s (``Config.QUICK_SETUP``), then the given ones."""
        assert self.Setup is not None
        return {**(self.Config.QUICK_SETUP if quick else {}), **given(self.Setup, values)}  # type: ignore[attr-defined]

    def config_values(self, values: Mapping[str, Any], *, quick: bool) -> dict[str, Any]:
        """The configuration's given fields; ``--seeds`` alone also bounds the sweep's
        replicates (a sweep point has no more replicates than a default cell)."""
        kw = given(self.Config, values)
        if quick and "budget" in kw:
            raise UsageError("--budget has no effect with --quick (a preview never adds replicates)")
        if "seeds" in kw and "sweep_seeds" not in kw and not quick:
            kw["sweep_seeds"] = min(kw["seeds"], self.Config().sweep_seeds)
        return kw

    def configure(self, values: Mapping[str, Any], *, quick: bool) -> Any:
        setup = self.Setup(**self.setup_values(values, quick=quick)) if self.Setup is not None else None
        kw = self.config_values(values, quick=quick)
        return self.Config.quick_config(setup, **kw) if quick else self.Config(setup=setup, **kw)  # type: ignore[attr-defined]

    def run(self, cfg: Any, out: str, *, workers: int | None = None, cluster: str | None = None, progress: bool = True,
            log: Callable[[str], None] | None = None, formats: Sequence[str] = ("png",)) -> StudyResult:  # fmt: skip
        return run_module(self.module, cfg, out, workers=workers, cluster=cluster, progress=progress, log=log, formats=formats,  # type: ignore[no-any-return]
                          preload=self.preload)

    def default_out(self, cfg: Any) -> str:
        return f"results/{self.name}"

    def summary(self, cfg: Any, res: StudyResult) -> list[str]:
        return [f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s",
                f"claims of the paper: {claims_line(res.claims)} (report: claims table)",
                f"report: {res.report_md.resolve()}", f"report (HTML): {res.report_html.resolve()}"]  # fmt: skip


def settings_of(study: Study) -> list[type]:
    """The dataclasses whose declared fields are the study's options (setup first)."""
    return [c for c in (study.Setup, study.Config) if c is not None and dataclasses.is_dataclass(c)]
