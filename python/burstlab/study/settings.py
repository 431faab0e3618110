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
from typing import Any, ClassVar, TypeVar

from burstlab._core import ParameterError
from burstlab.formats import FORMATS

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Cli:
    """How a setting appears on the command line.

    ``help``: its help text (the default, and the ``--quick`` value when it differs, are
    appended); ``unit``: "rate", "time", "size", "dir" (a folder), "format" (a trace format)
    or None; ``choices``; ``min``/``max``: bounds of a number; ``none``: how None is shown
    (``--budget``'s "never"); ``none_value``: the command-line text that means None (``0``);
    ``flag``: the option's name (default ``--field-name``; a bool's ``--on/--off`` pair may
    be given); ``nargs``: numbers taken at once (a range: 2); ``items``: the element type of
    a comma-separated list (``float``, ``int``, ``str``); ``only``: the inputs (values of the
    configuration's ``dataset``) the option applies to — given for another, it is a usage
    error, never a silent no-op."""

    help: str
    unit: str | None = None
    choices: tuple[Any, ...] = ()
    min: float | None = None
    max: float | None = None
    none: str = ""
    none_value: str | None = None
    flag: str | None = None
    nargs: int = 1
    items: type | None = None
    only: tuple[str, ...] = ()


def setting(default: Any, help: str, **cli: Any) -> Any:
    """A dataclass field with its command-line declaration (:class:`Cli`)."""
    return field(default=default, metadata={"cli": Cli(help, **cli)})


def _cli_of(cls: Any, name: str) -> Cli | None:
    """The declaration of field ``name`` on ``cls`` or, when a subclass redefines the field
    only to change its default, on the nearest base class that declares it."""
    for k in getattr(cls, "__mro__", (cls,)):
        fs = getattr(k, "__dataclass_fields__", {})
        if name in fs and "cli" in fs[name].metadata:
            return fs[name].metadata["cli"]  # type: ignore[no-any-return]
    return None


def declared(cls: Any) -> list[tuple[dataclasses.Field[Any], Cli]]:
    """The fields of ``cls`` declared with :func:`setting` (here or on a base class), in order."""
    out = []
    for f in dataclasses.fields(cls):
        c = _cli_of(cls, f.name)
        if c is not None:
            out.append((f, c))
    return out


def default_of(f: dataclasses.Field[Any]) -> Any:
    """A field's default value (its factory's product for a mutable default)."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def flag(f: dataclasses.Field[Any], c: Cli) -> str:
    return (c.flag or "--" + f.name.replace("_", "-")).split("/")[0]


def _bool_flags(f: dataclasses.Field[Any], c: Cli) -> tuple[str, str]:
    """A bool's (on, off) options: ``--x/--no-x`` unless the declaration names the pair."""
    if c.flag and "/" in c.flag:
        on, off = c.flag.split("/")
        return on, off
    name = (c.flag or "--" + f.name.replace("_", "-")).removeprefix("--")
    return f"--{name}", f"--no-{name}"


def show(v: Any, c: Cli) -> str:
    """A value as the command line writes it."""
    if v is None:
        return c.none_value if c.none_value is not None else (c.none or "none")
    if isinstance(v, tuple):
        return ",".join(show(x, Cli(c.help, unit=c.unit)) for x in v) if c.nargs == 1 else " ".join(show(x, Cli(c.help, unit=c.unit)) for x in v)
    if c.unit == "rate":
        return f"{v / 1e6:g}Mbit"
    if c.unit == "time":
        return f"{v * 1e3:g}ms" if 0 < abs(v) < 1 else f"{v:g}s"
    if c.unit == "size":
        return f"{v / 1e6:g}MB" if v % 1000 == 0 else str(v)
    return f"{v:g}" if isinstance(v, float) else str(v)


def _show_default(v: Any, c: Cli) -> str:
    if v is None:
        return c.none or "none"
    return show(v, c)


def _click_type(f: dataclasses.Field[Any], c: Cli) -> Any:
    import click

    from burstlab.units import RATE, SIZE, TIME

    if c.choices:
        return click.Choice([str(x) for x in c.choices])
    if c.items is not None:
        return str  # a comma-separated list, split by :func:`given`
    if c.unit == "dir":
        return click.Path(file_okay=False)
    if c.unit == "format":

        return click.Choice(FORMATS)
    if c.unit:
        return {"rate": RATE, "time": TIME, "size": SIZE}[c.unit]
    d = default_of(f)
    kind = type(d[0] if isinstance(d, tuple) and d else d) if d is not None else int
    if kind is int:
        return click.IntRange(min=None if c.min is None else int(c.min), max=None if c.max is None else int(c.max))
    if kind is str:
        return str
    return click.FloatRange(min=c.min, max=c.max, min_open=c.min is not None and c.min == 0)


def options(cls: Any, quick: Mapping[str, Any] | None = None, exclude: Sequence[str] = ()) -> Callable[[F], F]:
    """Decorate a click command with one option per declared field of ``cls`` (default
    None: not given; the help shows the dataclass default, and ``quick[name]`` as the
    ``--quick`` value where it differs)."""
    import click

    quick = quick or {}

    def deco(fn: F) -> F:
        for f, c in reversed(declared(cls)):
            if f.name in exclude:
                continue
            d = default_of(f)
            if isinstance(d, bool):
                on, off = _bool_flags(f, c)
                text = f"default: {on if d else off}"
            else:
                text = f"default: {_show_default(d, c)}"
            if f.name in quick and quick[f.name] != d:
                text += f"; --quick: {_show_default(quick[f.name], c)}"
            if c.only:
                text += f"; for {', '.join(c.only)}"
            help = f"{c.help} [{text}]"
            if isinstance(d, bool):
                on, off = _bool_flags(f, c)
                fn = click.option(f"{on}/{off}", f.name, default=None, help=help)(fn)
            else:
                fn = click.option(flag(f, c), f.name, type=_click_type(f, c), nargs=c.nargs, default=None, help=help)(fn)
        return fn

    return deco


def _split(text: str, c: Cli, f: dataclasses.Field[Any]) -> tuple[Any, ...]:
    """A comma-separated list of ``c.items``, or a usage error naming the option."""
    import click

    kind = c.items or str
    out = []
    for x in text.split(","):
        x = x.strip()
        if not x:
            continue
        try:
            out.append(kind(x.removeprefix("dbm")) if kind is int else kind(x))
        except ValueError:
            raise click.BadParameter(f"expected a comma-separated list of {kind.__name__}s, got {text!r}", param_hint=flag(f, c)) from None
    return tuple(out)


def given(cls: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The declared fields of ``cls`` given on the command line (not None), converted to
    the field's type (a size to int, a list split at commas, the "none" text to None)."""
    out: dict[str, Any] = {}
    for f, c in declared(cls):
        v = values.get(f.name)
        if v is None:
            continue
        if c.none_value is not None and str(v) == c.none_value:
            out[f.name] = None
        elif c.items is not None:
            out[f.name] = _split(v, c, f)
        elif c.nargs > 1:
            out[f.name] = tuple(v)
        else:
            out[f.name] = int(v) if c.unit == "size" else v
    return out


def cli_args(obj: Any, base: Any | None = None, pin: Sequence[str] = ()) -> list[str]:
    """The options that turn ``base`` (default: the class's defaults) into ``obj``, in
    declaration order, and the fields named in ``pin`` whatever their value: what the
    "Reproduce" line writes."""
    ref = base if base is not None else type(obj)()
    out: list[str] = []
    for f, c in declared(type(obj)):
        v = getattr(obj, f.name)
        if v == getattr(ref, f.name) and f.name not in pin:
            continue
        if isinstance(default_of(f), bool):
            on, off = _bool_flags(f, c)
            out.append(on if v else off)
        elif v is None and c.none_value is None:
            raise ValueError(f"{f.name} = None cannot be written as an option (its default is {f.default!r})")
        elif isinstance(v, tuple) and c.nargs > 1:
            out += [flag(f, c), *(show(x, Cli(c.help, unit=c.unit)) for x in v)]
        else:
            out += [flag(f, c), show(v, c)]
    return out


def reproduce_args(cfg: Any) -> list[str]:
    """The options that give a study configuration (a :class:`CellStudyConfig` or any
    configuration with ``QUICK``) from the command's defaults: ``--quick`` if it is a
    preview, the replicates and the study seed (pinned: a later version's defaults may
    differ), then every declared field of the configuration and of its ``setup`` that
    differs from what the command would take (the ``--quick`` values for a preview)."""
    quick = bool(getattr(cfg, "quick", False))
    cls = type(cfg)
    base = cls.quick_config() if quick and hasattr(cls, "quick_config") else cls(**getattr(cls, "QUICK", {})) if quick else cls()
    out = ["--quick"] if quick else []
    out += cli_args(cfg, base, pin=("seeds", "sweep_seeds", "seed", "replicates"))
    if getattr(cfg, "dataset", None) == "traces" and "--dataset" in out:  # the input "traces" is --traces DIR, not a --dataset
        i = out.index("--dataset")
        del out[i : i + 2]
    if getattr(cfg, "setup", None) is not None:
        out += cli_args(cfg.setup, base.setup)
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
    seeds: int = setting(10, "Replicates per cell at the defaults.", min=2)
    sweep_seeds: int = setting(4, "Replicates per cell of every sensitivity point (given --seeds alone: at most it).", min=2)
    seed: int = setting(0, "Study seed.", min=0, max=2**32 - 1)
    sweep: bool = setting(True, "Run the sensitivity sweeps (--no-sweep: only the defaults).")
    quick: bool = False
    sensitivity: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    budget: int | None = setting(None, "While a claim is inconclusive and more replicates would likely decide it, add replicates per cell up to "
                                       "this many (0: never; never with --quick).", min=0, none="never", none_value="0")  # fmt: skip

    #: ``--quick``: the configuration's values that differ (a preview), and the setup's.
    QUICK: ClassVar[dict[str, Any]] = {"quick": True, "budget": None}
    QUICK_SETUP: ClassVar[dict[str, Any]] = {}

    @classmethod
    def quick_config(cls, setup: Any | None = None, **kw: Any) -> Any:
        """The reduced study of ``--quick`` (:attr:`QUICK`), ``kw`` overriding it; ``setup``
        defaults to the setup with :attr:`QUICK_SETUP`. ``seeds`` given alone also caps
        ``sweep_seeds``, as ``--seeds`` does."""
        if setup is None:
            setup = type(default_of(cls.__dataclass_fields__["setup"]))(**cls.QUICK_SETUP)
        values = {**cls.QUICK, **kw}
        if "seeds" in kw and "sweep_seeds" not in kw and "sweep_seeds" in values:
            values["sweep_seeds"] = min(values["sweep_seeds"], kw["seeds"])
        return cls(setup=setup, **values)

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
