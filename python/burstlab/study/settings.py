"""A study's settings declared once, beside the dataclass that holds them: each field's
default, its command-line help and its unit. The ``burstlab study`` options and the
"Reproduce" line's arguments are generated from the declaration, so no default is
restated by hand.

Declaring a field::

    @dataclass(frozen=True)
    class Setup:
        rate: float = setting(1.5e6, "Channel capacity.", unit="rate")
        rwnd: int | None = setting(None, "Receiver window (segments).", none="unlimited", min=1)
        reading: str = setting("one-way", "How the delay is read.", choices=("one-way", "rtt"))
        delayed_ack: bool = setting(True, "Delayed ACKs.")

``unit``: "rate" (``1.5Mbit``), "time" (``200ms``), "size" (``8MB``) or None (a plain
number); a bool is an ``--x/--no-x`` flag. Every generated option defaults to None (not
given), so the dataclass's own default applies; :func:`given` picks the given ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from burstlab._core import ParameterError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Cli:
    """How a setting appears on the command line."""

    help: str
    unit: str | None = None
    choices: tuple[Any, ...] = ()
    min: float | None = None
    none: str = ""
    flag: str | None = None


def setting(default: Any, help: str, **cli: Any) -> Any:
    """A dataclass field with its command-line declaration (:class:`Cli`)."""
    return field(default=default, metadata={"cli": Cli(help, **cli)})


def declared(cls: Any) -> list[tuple[dataclasses.Field[Any], Cli]]:
    """The fields of ``cls`` declared with :func:`setting`, in order."""
    return [(f, f.metadata["cli"]) for f in dataclasses.fields(cls) if "cli" in f.metadata]


def flag(f: dataclasses.Field[Any], c: Cli) -> str:
    return c.flag or "--" + f.name.replace("_", "-")


def show(v: Any, c: Cli) -> str:
    """A value as the command line writes it."""
    if v is None:
        return c.none or "none"
    if c.unit == "rate":
        return f"{v / 1e6:g}Mbit"
    if c.unit == "time":
        return f"{v * 1e3:g}ms" if 0 < abs(v) < 1 else f"{v:g}s"
    if c.unit == "size":
        return f"{v / 1e6:g}MB" if v % 1000 == 0 else str(v)
    return f"{v:g}" if isinstance(v, float) else str(v)


def _click_type(f: dataclasses.Field[Any], c: Cli) -> Any:
    import click

    from burstlab.units import RATE, SIZE, TIME

    if c.choices:
        return click.Choice([str(x) for x in c.choices])
    if c.unit:
        return {"rate": RATE, "time": TIME, "size": SIZE}[c.unit]
    kind = type(f.default) if f.default is not None else int
    if kind is int:
        return click.IntRange(min=None if c.min is None else int(c.min))
    return click.FloatRange(min=c.min, min_open=c.min is not None and c.min == 0)


def options(cls: Any) -> Callable[[F], F]:
    """Decorate a click command with one option per declared field of ``cls`` (default
    None: not given; the help shows the dataclass default)."""
    import click

    def deco(fn: F) -> F:
        for f, c in reversed(declared(cls)):
            help = f"{c.help} [default: {show(f.default, c)}]"
            if isinstance(f.default, bool):
                name = f.name.replace("_", "-")
                fn = click.option(f"--{name}/--no-{name}", f.name, default=None, help=help)(fn)
            else:
                fn = click.option(flag(f, c), f.name, type=_click_type(f, c), default=None, help=help)(fn)
        return fn

    return deco


def given(cls: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The declared fields of ``cls`` given on the command line (not None), converted to
    the field's type (a size to int)."""
    out = {}
    for f, c in declared(cls):
        v = values.get(f.name)
        if v is not None:
            out[f.name] = int(v) if c.unit == "size" else v
    return out


def cli_args(obj: Any, base: Any | None = None) -> list[str]:
    """The options that turn ``base`` (default: the class's defaults) into ``obj``, in
    declaration order: what the "Reproduce" line writes."""
    ref = base if base is not None else type(obj)()
    out: list[str] = []
    for f, c in declared(type(obj)):
        v = getattr(obj, f.name)
        if v == getattr(ref, f.name):
            continue
        if isinstance(f.default, bool):
            out.append(f"--{'' if v else 'no-'}{f.name.replace('_', '-')}")
        elif v is None:
            raise ValueError(f"{f.name} = None cannot be written as an option (its default is {f.default!r})")
        else:
            out += [flag(f, c), show(v, c)]
    return out


def check_sensitivity(setup: Any, sensitivity: Sequence[tuple[str, Sequence[Any]]]) -> None:
    """Every swept name a field of the setup, every value one it accepts (its ``__post_init__``
    checks it), or a ParameterError."""
    known = {f.name for f in dataclasses.fields(setup)}
    for name, values in sensitivity:
        if name not in known:
            raise ParameterError(f"invalid parameter sensitivity: {name!r} is not an open parameter ({', '.join(sorted(known))})")
        for v in values:
            dataclasses.replace(setup, **{name: v})  # validates each value


def check_seeds(cfg: Any) -> None:
    """A study configuration's ``seeds`` and ``sweep_seeds`` (runs per cell at the defaults
    and per sensitivity point: at least 2 each, the second at most the first) and its study
    ``seed`` (0 ≤ seed < 2^32), or a ParameterError naming the option."""
    for name in ("seeds", "sweep_seeds"):
        v = getattr(cfg, name)
        if not (isinstance(v, int) and v >= 2):
            raise ParameterError(f"invalid parameter {name.replace('_', '-')} = {v!r}: expected at least 2 (a confidence interval needs two runs)")
    if cfg.sweep_seeds > cfg.seeds:
        raise ParameterError(f"invalid parameter sweep-seeds = {cfg.sweep_seeds}: at most seeds = {cfg.seeds}")
    if not 0 <= cfg.seed < 2**32:
        raise ParameterError(f"invalid parameter seed = {cfg.seed}: expected 0 ≤ seed < 2^32")


@dataclass(frozen=True)
class CellStudyConfig:
    """What every study of keyed cells is configured by (a study's ``StudyConfig`` extends
    it, overriding the defaults: a field redefined keeps its place). ``setup``: the open
    parameters (the study's ``Setup``); ``seeds``: replicates per cell at the defaults;
    ``sweep_seeds``: per cell of every sensitivity point (at most ``seeds``); ``seed``: the
    study seed (replicate k's seed derives from it and k alone); ``sweep``: run the
    sensitivity sweeps (``sensitivity``: (name, values) of the setup's fields, each varied
    alone); ``quick``: a preview; ``budget``: add replicates per cell up to this many while a
    claim is inconclusive and would likely decide (None: never)."""

    setup: Any = None
    seeds: int = 10
    sweep_seeds: int = 4
    seed: int = 0
    sweep: bool = True
    quick: bool = False
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    budget: int | None = None

    def __post_init__(self) -> None:
        check_seeds(self)
        if self.budget is not None and not (isinstance(self.budget, int) and not isinstance(self.budget, bool) and self.budget >= 2):
            raise ParameterError(f"invalid parameter budget = {self.budget!r}: expected at least 2 replicates per cell (or none); a budget below seeds adds nothing")
        if self.setup is not None:
            check_sensitivity(self.setup, self.sensitivity)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["sensitivity"] = {k: list(v) for k, v in self.sensitivity}
        return d
