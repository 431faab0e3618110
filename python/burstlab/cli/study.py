"""``burstlab study``: the papers' studies, one command each, generated from the registered
studies (:mod:`burstlab.study.registry`): one option per declared setting of the study's
setup and configuration (:mod:`burstlab.study.settings`; the defaults and ``--quick``
values shown come from the declarations, never restated here), and the options every
study takes (output folder, workers, preview, figures, progress). A study's module is
imported only when its command runs or shows its help."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from burstlab.study import registry, settings
from burstlab.study.base import Study, UsageError, settings_of

#: The figures a study writes: SVG (vector, embedded in the self-contained HTML report; drawn
#: in ~20 % less time than a PNG and a third smaller: docs/claims.md, "Speed of the studies").
FIGURES = ("svg",)


def _common(f: Callable[..., Any], study: Study) -> Callable[..., Any]:
    """The options every study takes."""
    quick = {**getattr(study.Config, "QUICK", {}), **getattr(study.Config, "QUICK_SETUP", {})}
    decl = {f.name: (f, c) for cls in settings_of(study) for f, c in settings.declared(cls)}
    what = ", ".join(f"{settings.flag(*decl[k])} {settings.show(v, decl[k][1])}" for k, v in quick.items() if k in decl and k != "budget")
    f = click.option("--no-progress", is_flag=True, help="No progress bar (one line per finished task instead).")(f)
    f = click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")(f)
    f = click.option("--png", is_flag=True, help="Figures as PNG images instead of SVG.")(f)
    f = click.option("--quick", is_flag=True, help=f"A preview ({what}{', fewer points and sweep values' if 'sensitivity' in quick else ''}): the "
                     "same figures and report, every verdict marked 'preview: not evidence'.")(f)  # fmt: skip
    f = click.option("--cluster", default=None, help="Dask scheduler address (tcp://host:port) to run the tasks on.")(f)
    f = click.option("--workers", type=click.IntRange(min=1), default=None, help="Local worker processes (default: every core this process may use).")(f)
    return click.option("--out", "out", type=click.Path(file_okay=False), default=None, help=f"Output folder [default: {study.default_out(study.Config())}].")(f)


def command(study: Study) -> click.Command:
    """``burstlab study NAME`` for ``study``: its options generated from its settings."""

    def callback(out: str | None, workers: int | None, cluster: str | None, quick: bool, pdf: bool, png: bool, no_progress: bool, **values: Any) -> None:
        try:
            cfg = study.configure(values, quick=quick)
        except UsageError as e:
            raise click.UsageError(str(e)) from None
        res = run(study, cfg, out, workers=workers, cluster=cluster, progress=not no_progress, formats=(("png",) if png else FIGURES) + (("pdf",) if pdf else ()))
        for line in study.summary(cfg, res):
            click.echo(line)

    f: Callable[..., Any] = callback
    for cls in reversed(settings_of(study)):
        f = settings.options(cls, getattr(study.Config, "QUICK", {}) if cls is study.Config else getattr(study.Config, "QUICK_SETUP", {}),
                             exclude=() if study.budget else ("budget",))(f)  # fmt: skip
    f = _common(f, study)
    return click.command(study.name, help=study.description)(f)


def run(study: Study, cfg: Any, out: str | None = None, **kw: Any) -> Any:
    """The one runner: ``study`` with configuration ``cfg`` under ``out`` (default: the
    study's), its log lines on stderr."""
    return study.run(cfg, out or study.default_out(cfg), log=lambda s: click.echo(s, err=True), **kw)


class _Commands(dict):  # type: ignore[type-arg]
    """The group's ``commands``: a registered study's command is built when it is first
    looked up (``name in``, ``[name]``, ``.get``); iterating builds every one."""

    def __missing__(self, name: str) -> click.Command:
        if name not in registry.STUDIES:
            raise KeyError(name)
        cmd = self[name] = command(registry.load(name))
        return cmd

    def __contains__(self, name: object) -> bool:
        return name in registry.STUDIES

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def _all(self) -> dict[str, click.Command]:
        return {n: self[n] for n in registry.STUDIES}

    def __iter__(self) -> Any:
        return iter(list(registry.STUDIES))

    def __len__(self) -> int:
        return len(registry.STUDIES)

    def keys(self) -> Any:
        return self._all().keys()

    def values(self) -> Any:
        return self._all().values()

    def items(self) -> Any:
        return self._all().items()


class StudyGroup(click.Group):
    """The registered studies as subcommands, each built when it is asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(registry.STUDIES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self.commands.get(name)  # type: ignore[no-any-return]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(e.name, e.summary) for e in registry.STUDIES.values()]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group("study", cls=StudyGroup)
def study_group() -> None:
    """The papers' studies, end to end (traces → simulations → fits → figures → report)."""


COMMANDS = [study_group]
